"""Thresh typologies as schemas (Heineman, Dou & Xu 2023, "Thresh: A Unified, Customizable
and Deployable Platform for Fine-Grained Text Evaluation"; thresh.tools).

A typology is the YAML that configures a Thresh interface. What it says maps as follows:

- each entry of ``edits`` is an edit type; ``enable_input`` lets it span the original
  (source), ``enable_output`` the simplification (target); neither: a document-level edit
  (``sides: []``), e.g. InfoLossQA's ``comment``;
- ``type: single_span`` (Thresh's default) allows one span per side, ``multi_span`` several,
  ``composite`` makes an edit of constituent edits (SALSA's ``structure``, ``split``);
- ``instructions`` become the project's guideline (the annotators' guideline tab, a
  release's ``guideline.md``), ``template_description`` its description;
- each ``annotation`` question is a field: ``options: textarea`` / ``textbox`` a text
  field, ``binary`` a yes/no choice, ``likert-3`` an ordinal scale (minor, somewhat,
  a lot), a list a choice whose options may hold their own question (a sub-question asked
  only for that answer: the field ``QUESTION.OPTION`` with ``when``). Thresh writes answers
  to list-option questions as ``{"val": OPTION, OPTION: sub-answer}``; the field keeps
  ``thresh_nested`` so exports write them the same way.

Presentation keys (``display``, ``font_size``, ``interface_text``, ``icon``, links,
citation) do not change what is annotated; :func:`unused_keys` lists them for
``annotator schema show``.
"""

from __future__ import annotations

from annotator.schemas import (
    EditType,
    FieldSpec,
    Option,
    Schema,
    SchemaError,
    check_count,
    read_yaml,
)

TOP_LEVEL = {"template_name", "template_label", "template_description", "instructions",
             "edits"}
PRESENTATION = {"interface_text", "display", "font_size", "default_data_link", "paper_link",
                "citation", "hide_context", "prepend_questions", "tutorial", "paragraph_mode"}
EDIT_KEYS = {"name", "label", "color", "icon", "enable_input", "enable_output", "type",
             "annotation"}
QUESTION_KEYS = {"name", "label", "question", "options", "required"}
OPTION_KEYS = {"name", "label", "question", "options"}
SPAN_TYPES = ("single_span", "multi_span", "composite")
# Thresh's named colours, as hex (our schemas take '#rrggbb').
COLORS = {"red": "#d9534f", "orange": "#f0ad4e", "yellow": "#e8c547", "green": "#5cb85c",
          "teal": "#20a39e", "blue": "#5b7bd5", "purple": "#8e6cc0", "pink": "#e377c2",
          "gray": "#888888", "grey": "#888888", "brown": "#8c564b", "black": "#333333"}
# Thresh's preset answer kinds.
PRESETS: dict[str, tuple[str, tuple[Option, ...]]] = {
    "binary": ("choice", (Option("yes", "yes"), Option("no", "no"))),
    "likert-3": ("ordinal", (Option("minor", "minor", 1), Option("somewhat", "somewhat", 2),
                             Option("a lot", "a lot", 3))),
}
TEXT_PRESETS = ("textarea", "textbox")


def parse_typology(text: str, path: str = "<typology>") -> Schema:
    data = read_yaml(text, path)
    return _Typology(path).schema(data)


def unused_keys(text: str) -> list[str]:
    """Top-level keys of a typology that only shape Thresh's page (not what is annotated)."""
    data = read_yaml(text)
    return [k for k in data if k in PRESENTATION] if isinstance(data, dict) else []


class _Typology:
    def __init__(self, path: str):
        self.path = path

    def fail(self, key, expected, got=None):
        raise SchemaError(self.path, key, expected, got)

    def known(self, data, key, allowed):
        for k in data:
            if k not in allowed:
                where = f"{key}.{k}" if key else k
                self.fail(where, f"one of {sorted(allowed)}", "unknown key")

    def text(self, value, key, default=""):
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(key, "text", value)
        return value.strip()

    def name(self, value, key) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            self.fail(key, "a name", value)
        return value.strip()

    def schema(self, data) -> Schema:
        if not isinstance(data, dict):
            self.fail("(top level)", "a Thresh typology (a mapping with 'edits')", data)
        self.known(data, "", TOP_LEVEL | PRESENTATION)
        edits = data.get("edits")
        if not isinstance(edits, list) or not edits:
            self.fail("edits", "a list of edit types", edits)
        check_count(self.path, "edits", edits, "edit types")
        name = self.name(data.get("template_name", "thresh"), "template_name")
        return Schema(
            name=name.replace(" ", "-"),
            title=self.text(data.get("template_label"), "template_label", name),
            description=self.text(data.get("template_description"), "template_description"),
            guideline=self.guideline(data.get("instructions")), unit="document",
            edit_types=tuple(self.edit(e, f"edits[{i}]") for i, e in enumerate(edits)))

    def guideline(self, value) -> str | None:
        """The typology's ``instructions`` (Markdown, as Thresh shows them) as the project's
        guideline, kept as written but for surrounding blank space; None without them."""
        return self.text(value, "instructions") or None

    def edit(self, item, key) -> EditType:
        if not isinstance(item, dict):
            self.fail(key, "a mapping with name, enable_input/enable_output, annotation", item)
        self.known(item, key, EDIT_KEYS)
        name = self.name(item.get("name"), f"{key}.name")
        sides = []
        for flag, side in (("enable_input", "source"), ("enable_output", "target")):
            value = item.get(flag, False)
            if not isinstance(value, bool):
                self.fail(f"{key}.{flag}", "true or false", value)
            if value:
                sides.append(side)
        span_type = item.get("type", "single_span")
        if span_type not in SPAN_TYPES:
            self.fail(f"{key}.type", f"one of {list(SPAN_TYPES)}", span_type)
        color = item.get("color", "gray")
        if isinstance(color, str) and not color.startswith("#"):
            if color.lower() not in COLORS:
                self.fail(f"{key}.color", f"a colour name ({', '.join(COLORS)}) or '#rrggbb'",
                          color)
            color = COLORS[color.lower()]
        questions = item.get("annotation") or []
        if not isinstance(questions, list):
            self.fail(f"{key}.annotation", "a list of questions", questions)
        fields: list[FieldSpec] = []
        for j, q in enumerate(questions):
            self.question(q, f"{key}.annotation[{j}]", None, None, fields)
        return EditType(name=name, label=self.text(item.get("label"), f"{key}.label", name),
                        sides=tuple(sides), required_sides=tuple(sides), fields=tuple(fields),
                        color=color, composite=span_type == "composite",
                        multi_span=span_type != "single_span")

    def question(self, q, key, name, when, out: list[FieldSpec]) -> None:
        """One question (or an option's sub-question, then ``name`` and ``when`` are given)
        and, depth first, the sub-questions of its options."""
        if not isinstance(q, dict):
            self.fail(key, "a question with name and options", q)
        self.known(q, key, QUESTION_KEYS if name is None else OPTION_KEYS)
        name = name or self.name(q.get("name"), f"{key}.name")
        prompt = self.text(q.get("question"), f"{key}.question")
        label = self.text(q.get("label"), f"{key}.label") if when is None else ""
        required = q.get("required", False)
        if not isinstance(required, bool):
            self.fail(f"{key}.required", "true or false", required)
        options = q.get("options")
        common = dict(name=name, label=label or prompt or name, required=required,
                      help=prompt if label and prompt else "", when=when)
        if isinstance(options, str):
            if options in TEXT_PRESETS:
                out.append(FieldSpec(type="text", **common))
            elif options in PRESETS:
                ftype, values = PRESETS[options]
                out.append(FieldSpec(type=ftype, options=values, **common))
            else:
                self.fail(f"{key}.options", f"a list of options or one of "
                          f"{list(TEXT_PRESETS) + list(PRESETS)}", options)
            return
        if not isinstance(options, list) or not options:
            self.fail(f"{key}.options", "a list of options or a preset name", options)
        check_count(self.path, f"{key}.options", options, "options")
        values, subs = [], []
        for i, opt in enumerate(options):
            okey = f"{key}.options[{i}]"
            if not isinstance(opt, dict):
                opt = {"name": opt}
            self.known(opt, okey, OPTION_KEYS)
            value = self.name(opt.get("name"), f"{okey}.name")
            values.append(Option(value, self.text(opt.get("label"), f"{okey}.label", value)))
            if opt.get("options") is not None:
                subs.append((opt, okey, value))
        if len({o.value for o in values}) != len(values):
            self.fail(f"{key}.options", "distinct option names")
        out.append(FieldSpec(type="choice", options=tuple(values), thresh_nested=True,
                             **common))
        for opt, okey, value in subs:
            self.question(opt, okey, f"{name}.{value}", (name, (value,)), out)
