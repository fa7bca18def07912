"""Task schemas: what annotators may mark, which fields they fill in, what gets rated.

A schema is a YAML file in the spirit of Thresh typologies (Heineman et al. 2023): a list of
edit types (each spanning the original, the simplification, or both), their fields, the
item-level rating fields and the pre-highlighters that run for the project. The built-in
schemas live next to this module; a user may point at their own file instead.

Loading validates the whole file and raises :class:`SchemaError` naming the file, the key
and what was expected, so a lead can fix a typo without reading a traceback.

Beyond spans and flat fields, a schema can declare what published typologies use:

- document-level edit types (``sides: []``): an edit without spans, e.g. InfoLossQA's
  ``comment`` on the whole pair;
- composite edit types (``composite: true``): an edit made of constituent edits of other
  types, kept as such (SALSA's ``structure`` edits, Heineman et al. 2023);
- conditional (nested) questions: a field with ``when: {FIELD: VALUE or [VALUES]}`` is only
  asked, and only accepted, when FIELD holds one of those values; an option may also carry
  its sub-questions inline under ``fields:``;
- options are read as strings: YAML 1.1 turns unquoted ``yes``/``no``/``on``/``off`` into
  booleans, so schema files are read with YAML 1.2 booleans (only ``true``/``false``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from annotator.core.limits import current_limits
from annotator.core.shown import shown_repr
from annotator.core.vocabulary import (
    PREHIGHLIGHTERS,
    RATING_LEVELS,
    SIDES,
    SUGGESTION_KINDS,
    TASK_MODES,
)
from annotator.schemas.bounded import SchemaOutOfBounds, load_yaml

BUILTIN_DIR = Path(__file__).parent
FIELD_TYPES = ("text", "choice", "ordinal", "multichoice")


def read_yaml(text: str, path: str = "<schema>") -> Any:
    """Parse schema/typology YAML (YAML 1.2 booleans) within the schema limits
    (:mod:`annotator.schemas.bounded`), or raise SchemaError with the line."""
    try:
        return load_yaml(text)
    except SchemaOutOfBounds as exc:
        raise SchemaError.out_of_bounds(path, exc) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "file"
        raise SchemaError(path, where, "valid YAML", str(exc).splitlines()[0]) from None


class SchemaError(ValueError):
    """A schema file that does not say what the tool needs."""

    def __init__(self, path: str, key: str, expected: str, got: Any = None, *,
                 found: str | None = None):
        """``got``: the rejected value, quoted as a bounded prefix (a value may be huge);
        ``found``: what was found instead, in words (a limit's refusal)."""
        self.path, self.key, self.expected = path, key, expected
        got_text = "" if got is None else f", got {shown_repr(got)}"
        found_text = "" if found is None else f", found {found}"
        super().__init__(f"{path}: key '{key}': expected {expected}{got_text}{found_text}")

    @classmethod
    def out_of_bounds(cls, path: str, refused: SchemaOutOfBounds) -> SchemaError:
        """The bounded reader's refusal of file ``path`` as a SchemaError."""
        return cls(path, refused.where, refused.expected, found=refused.found)


@dataclass(frozen=True)
class Option:
    value: Any
    label: str
    # Value used for agreement statistics when it differs from the stored one (Devaraj et
    # al. 2022 treat -1, gibberish, as the most severe level: 3).
    agreement_value: Any = None

    @property
    def stat_value(self) -> Any:
        return self.value if self.agreement_value is None else self.agreement_value


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    type: str
    required: bool = False
    options: tuple[Option, ...] = ()
    help: str = ""
    level: str | None = None  # only for rating fields
    placeholder: str = ""
    # Conditional question: asked only when field when[0] holds one of the values when[1].
    when: tuple[str, tuple[Any, ...]] | None = None
    # How Thresh writes the answer: {"val": option, option: sub-answer} (a Thresh question
    # whose options are a list) instead of the bare option (presets such as ``binary``).
    thresh_nested: bool = False

    def option_values(self) -> list[Any]:
        return [o.value for o in self.options]

    def is_valid_value(self, value: Any) -> bool:
        if value is None or value == "":
            return not self.required
        if self.type == "text":
            return isinstance(value, str)
        if self.type == "multichoice":
            return isinstance(value, list) and all(v in self.option_values() for v in value)
        return value in self.option_values()


def choice_to_value(spec: FieldSpec, given: Any) -> tuple[bool, Any]:
    """A choice as another tool writes it (a Label Studio choice string or rating number, a
    CSV cell) -> (found, the schema's option value): the value itself, its string form, or
    the option's label."""
    for option in spec.options:
        if given == option.value or str(given) == str(option.value) or given == option.label:
            return True, option.value
    return False, given


@dataclass(frozen=True)
class EditType:
    name: str
    label: str
    sides: tuple[str, ...]
    required_sides: tuple[str, ...]
    fields: tuple[FieldSpec, ...] = ()
    description: str = ""
    color: str = "#888888"
    key: str = ""  # keyboard shortcut for "new edit of this type"

    # An edit made of constituent edits (Edit.parent_id), e.g. SALSA's structure changes.
    composite: bool = False
    # False: at most one span per side (Thresh ``single_span``).
    multi_span: bool = True

    def field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def document_level(self) -> bool:
        """An edit about the whole pair, without spans (``sides: []``)."""
        return not self.sides

    def applicable_fields(self, values: dict[str, Any]) -> list[FieldSpec]:
        """The fields asked given the answers so far: unconditional ones, and conditional
        ones whose condition holds (recursively: a sub-question of a sub-question)."""
        return [f for f in self.fields if field_applies(f, self.fields, values)]


def field_applies(spec: FieldSpec, fields: tuple[FieldSpec, ...], values: dict[str, Any]) -> bool:
    """Whether ``spec`` is asked given ``values``: its condition holds and its parent is
    asked too (a chain of conditions, as Thresh's nested questions)."""
    return unmet_condition(spec, fields, values) is None


def unmet_condition(spec: FieldSpec, fields: tuple[FieldSpec, ...],
                    values: dict[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
    """The first condition on the path from ``spec`` up to its root question that
    ``values`` do not meet, as (field, allowed values); None when ``spec`` is asked. A
    message names this link, not the direct parent, whose own condition may hold."""
    seen = set()
    while spec.when is not None and spec.name not in seen:
        seen.add(spec.name)
        parent_name, allowed = spec.when
        if values.get(parent_name) not in allowed:
            return parent_name, allowed
        parent = next((f for f in fields if f.name == parent_name), None)
        if parent is None:
            return parent_name, allowed
        spec = parent
    return None


@dataclass(frozen=True)
class Schema:
    name: str
    title: str
    description: str
    unit: str  # "document" or "sentence": what one imported record is
    # The task mode (annotator.annotate.modes): which page, done rule and results apply.
    mode: str = "annotation"
    edit_types: tuple[EditType, ...] = ()
    ratings: tuple[FieldSpec, ...] = ()
    prehighlighters: tuple[str, ...] = ()
    guideline: str | None = None
    # Accepting a suggestion of this kind creates an edit of this type (kind -> edit type
    # name); kinds not listed fall back to the first edit type spanning the same sides.
    suggestion_types: dict[str, str] = field(default_factory=dict)
    source_text: str = field(default="", repr=False)  # the YAML exactly as loaded
    # A schema made from a Label Studio labeling config keeps that config and the task data
    # keys of the two texts (``{"config": XML, "source": KEY, "target": KEY}``), so the
    # study's own exports import, and export back, under its own names.
    labelstudio: dict[str, str] | None = field(default=None, repr=False, compare=False)

    def edit_type(self, name: str) -> EditType | None:
        return next((e for e in self.edit_types if e.name == name), None)

    def rating(self, name: str, level: str | None = None) -> FieldSpec | None:
        return next(
            (r for r in self.ratings if r.name == name and (level is None or r.level == level)),
            None,
        )


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.yaml"))


def resolve(name_or_path: str) -> Path:
    """A built-in schema name (``infolossqa``) or a path to a YAML file."""
    candidate = BUILTIN_DIR / f"{name_or_path}.yaml"
    if candidate.is_file():
        return candidate
    path = Path(name_or_path)
    if path.is_file():
        return path
    raise SchemaError(
        name_or_path,
        "schema",
        f"a built-in schema ({', '.join(builtin_names())}) or a schema file (YAML, "
        "Thresh typology, Label Studio config)",
    )


def parse_schema(text: str, path: str = "<schema>") -> Schema:
    return _Parser(path).schema(read_yaml(text, path), text)


class _Parser:
    """Walks the YAML tree, keeping the dotted key for error messages."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, expected: str, got: Any = None):
        raise SchemaError(self.path, key, expected, got)

    def mapping(self, value, key):
        if not isinstance(value, dict):
            self.fail(key, "a mapping", value)
        return value

    def string(self, value, key, required=True, default=""):
        if value is None and not required:
            return default
        if not isinstance(value, str) or not value.strip():
            self.fail(key, "a non-empty string", value)
        return value

    def identifier(self, value, key, dotted=False):
        value = self.string(value, key)
        plain = value.replace("_", "").replace("-", "")
        if dotted:  # sub-question names such as "deletion_type.good_deletion"
            plain = plain.replace(".", "")
        if not plain.isalnum():
            allowed = "'_', '-' or '.'" if dotted else "'_' or '-'"
            self.fail(key, f"a name of letters, digits, {allowed}", value)
        return value

    def known_keys(self, data: dict, key: str, allowed: set[str]):
        for k in data:
            if k not in allowed:
                self.fail(f"{key}.{k}" if key else k, f"one of {sorted(allowed)}", "unknown key")

    def schema(self, data, text) -> Schema:
        data = self.mapping(data, "(top level)")
        self.known_keys(
            data,
            "",
            {"name", "title", "description", "unit", "mode", "edit_types", "ratings",
             "prehighlighters", "suggestion_types", "guideline", "labelstudio"},
        )
        name = self.identifier(data.get("name"), "name")
        unit = data.get("unit", "document")
        if unit not in ("document", "sentence"):
            self.fail("unit", "'document' or 'sentence'", unit)
        mode = data.get("mode", "annotation")
        if mode not in TASK_MODES:
            self.fail("mode", f"one of {list(TASK_MODES)}", mode)
        edit_types = self.edit_types(data.get("edit_types", []))
        ratings = tuple(
            self.field_spec(r, f"ratings[{i}]", rating=True)
            for i, r in enumerate(self.list_of(data.get("ratings", []), "ratings"))
        )
        seen = set()
        for i, r in enumerate(ratings):
            if (r.name, r.level) in seen:
                self.fail(f"ratings[{i}].name", "a name unique within its level", r.name)
            seen.add((r.name, r.level))
        if not edit_types and not ratings:
            self.fail("edit_types", "at least one edit type or rating field")
        pre = self.list_of(data.get("prehighlighters", []), "prehighlighters")
        for i, p in enumerate(pre):
            if p not in PREHIGHLIGHTERS:
                self.fail(f"prehighlighters[{i}]", f"one of {list(PREHIGHLIGHTERS)}", p)
        return Schema(
            name=name,
            title=self.string(data.get("title"), "title", required=False, default=name),
            description=self.string(data.get("description"), "description", False),
            unit=unit,
            mode=mode,
            suggestion_types=self.suggestion_types(data.get("suggestion_types", {}), edit_types),
            edit_types=edit_types,
            ratings=ratings,
            prehighlighters=tuple(pre),
            guideline=self.string(data.get("guideline"), "guideline", required=False) or None,
            source_text=text,
            labelstudio=self.labelstudio(data.get("labelstudio")),
        )

    def labelstudio(self, value) -> dict[str, str] | None:
        if value is None:
            return None
        value = self.mapping(value, "labelstudio")
        self.known_keys(value, "labelstudio", {"config", "source", "target"})
        return {k: self.string(value.get(k), f"labelstudio.{k}")
                for k in ("config", "source", "target")}

    def suggestion_types(self, value, edit_types) -> dict[str, str]:
        names = [e.name for e in edit_types]
        for kind, edit_type in self.mapping(value, "suggestion_types").items():
            if kind not in SUGGESTION_KINDS:
                self.fail("suggestion_types", f"suggestion kinds among {list(SUGGESTION_KINDS)}",
                          kind)
            if edit_type not in names:
                self.fail(f"suggestion_types.{kind}", f"an edit type of this schema {names}",
                          edit_type)
        return dict(value)

    def list_of(self, value, key):
        if not isinstance(value, list):
            self.fail(key, "a list", value)
        return value

    def edit_types(self, value) -> tuple[EditType, ...]:
        result, names = [], set()
        check_count(self.path, "edit_types", self.list_of(value, "edit_types"), "edit types")
        for i, item in enumerate(value):
            key = f"edit_types[{i}]"
            item = self.mapping(item, key)
            self.known_keys(
                item, key,
                {"name", "label", "sides", "required_sides", "fields", "description",
                 "color", "key", "composite", "multi_span"},
            )
            name = self.identifier(item.get("name"), f"{key}.name")
            if name in names:
                self.fail(f"{key}.name", "a name used once", name)
            names.add(name)
            sides = self.sides(item.get("sides"), f"{key}.sides", allow_empty=True)
            required = self.sides(item.get("required_sides", list(sides)), f"{key}.required_sides",
                                  allow_empty=True)
            if not set(required) <= set(sides):
                self.fail(f"{key}.required_sides", f"a subset of sides {list(sides)}", required)
            fields = self.edit_fields(item.get("fields", []), f"{key}.fields")
            flags = {}
            for flag, default in (("composite", False), ("multi_span", True)):
                flags[flag] = item.get(flag, default)
                if not isinstance(flags[flag], bool):
                    self.fail(f"{key}.{flag}", "true or false", flags[flag])
            color = item.get("color", "#888888")
            if not (isinstance(color, str) and color.startswith("#") and len(color) in (4, 7)):
                self.fail(f"{key}.color", "a colour like '#d9534f'", color)
            result.append(EditType(
                name=name,
                label=self.string(item.get("label"), f"{key}.label", False, name),
                sides=sides,
                required_sides=required,
                fields=fields,
                description=self.string(item.get("description"), f"{key}.description", False),
                color=color,
                key=self.string(item.get("key"), f"{key}.key", False),
                **flags,
            ))
        return tuple(result)

    def edit_fields(self, value, key) -> tuple[FieldSpec, ...]:
        """An edit type's fields, sub-questions written inline under an option's
        ``fields:`` flattened after their parent with ``when`` set."""
        fields: list[FieldSpec] = []
        for j, f in enumerate(self.list_of(value, key)):
            self._field_tree(f, f"{key}[{j}]", None, fields)
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            self.fail(key, "field names used once each", dup)
        for j, f in enumerate(fields):
            if f.when is None:
                continue
            parent = next((p for p in fields[:j] if p.name == f.when[0]), None)
            if parent is None or parent.type == "text":
                self.fail(f"{key}.{f.name}.when", "the name of a choice field declared "
                          "before this one", f.when[0])
            missing = [v for v in f.when[1] if v not in parent.option_values()]
            if missing:
                self.fail(f"{key}.{f.name}.when", f"options of {parent.name} "
                          f"({parent.option_values()})", missing[0])
        return tuple(fields)

    def _field_tree(self, value, key, when, out: list[FieldSpec]) -> None:
        raw = self.mapping(value, key)
        spec = self.field_spec(raw, key, inherited_when=when)
        out.append(spec)
        for i, opt in enumerate(raw.get("options") or []):
            if isinstance(opt, dict) and opt.get("fields") is not None:
                sub_key = f"{key}.options[{i}].fields"
                for j, sub in enumerate(self.list_of(opt["fields"], sub_key)):
                    self._field_tree(sub, f"{sub_key}[{j}]", (spec.name, (opt["value"],)), out)

    def when(self, value, key):
        if value is None:
            return None
        if not isinstance(value, dict) or len(value) != 1:
            self.fail(key, "one condition {FIELD: VALUE} or {FIELD: [VALUES]}", value)
        (name, values), = value.items()
        values = tuple(values) if isinstance(values, list) else (values,)
        if not values or any(isinstance(v, (dict, list)) or v is None for v in values):
            self.fail(f"{key}.{name}", "an option value or a list of them", value[name])
        return (str(name), values)

    def sides(self, value, key, allow_empty=False) -> tuple[str, ...]:
        if not isinstance(value, list) or (not value and not allow_empty) or any(
            s not in SIDES for s in value
        ):
            self.fail(key, "a list of 'source' and/or 'target'", value)
        return tuple(dict.fromkeys(value))

    def field_spec(self, value, key, rating=False, inherited_when=None) -> FieldSpec:
        item = self.mapping(value, key)
        allowed = {"name", "label", "type", "required", "options", "help", "placeholder"}
        if rating:
            allowed.add("level")
        else:
            allowed |= {"when", "thresh_nested"}
        self.known_keys(item, key, allowed)
        ftype = item.get("type", "text")
        if ftype not in FIELD_TYPES:
            self.fail(f"{key}.type", f"one of {list(FIELD_TYPES)}", ftype)
        options = self.options(item.get("options"), f"{key}.options", ftype)
        level = None
        if rating:
            level = item.get("level", "document")
            if level not in RATING_LEVELS:
                self.fail(f"{key}.level", f"one of {list(RATING_LEVELS)}", level)
        required = item.get("required", False)
        if not isinstance(required, bool):
            self.fail(f"{key}.required", "true or false", required)
        name = self.identifier(item.get("name"), f"{key}.name", dotted=not rating)
        when = self.when(item.get("when"), f"{key}.when")
        if when is not None and inherited_when is not None:
            self.fail(f"{key}.when", "no 'when' on a sub-question written under an option "
                      "(the option is its condition)", item.get("when"))
        nested = item.get("thresh_nested", False)
        if not isinstance(nested, bool):
            self.fail(f"{key}.thresh_nested", "true or false", nested)
        return FieldSpec(
            name=name,
            label=self.string(item.get("label"), f"{key}.label", False, name),
            type=ftype,
            required=required,
            options=options,
            help=self.string(item.get("help"), f"{key}.help", False),
            level=level,
            placeholder=self.string(item.get("placeholder"), f"{key}.placeholder", False),
            when=when or inherited_when,
            thresh_nested=nested,
        )

    def options(self, value, key, ftype) -> tuple[Option, ...]:
        if ftype == "text":
            if value is not None:
                self.fail(key, "no options for a text field", value)
            return ()
        if not isinstance(value, list) or len(value) < 2:
            self.fail(key, f"a list of at least two options for a {ftype} field", value)
        check_count(self.path, key, value, "options")
        result = []
        for i, opt in enumerate(value):
            okey = f"{key}[{i}]"
            if not isinstance(opt, dict):
                opt = {"value": opt, "label": str(opt)}
            self.known_keys(opt, okey, {"value", "label", "agreement_value", "fields"})
            if "value" not in opt or isinstance(opt["value"], (dict, list)) or opt["value"] is None:
                self.fail(f"{okey}.value", "a string or number", opt.get("value"))
            if ftype == "ordinal" and not _is_number(opt.get("agreement_value", opt["value"])):
                self.fail(f"{okey}.value", "a number, or a numeric agreement_value (ordinal "
                          "scales are numeric)", opt["value"])
            if "agreement_value" in opt and not _is_number(opt["agreement_value"]):
                self.fail(f"{okey}.agreement_value", "a number", opt["agreement_value"])
            result.append(Option(
                value=opt["value"],
                label=self.string(opt.get("label", str(opt["value"])), f"{okey}.label"),
                agreement_value=opt.get("agreement_value"),
            ))
        if len({o.value for o in result}) != len(result):
            self.fail(key, "distinct option values")
        return tuple(result)


def check_count(path: str, key: str, items: list, what: str) -> None:
    """Refuse a list of more edit types or options than the limit allows, before reading
    any of them (issue 41: a schema of 90,000 edit types ran for minutes)."""
    limits = current_limits()
    limit, variable = {"edit types": (limits.max_schema_edit_types,
                                      "ANNOTATOR_MAX_SCHEMA_EDIT_TYPES"),
                       "options": (limits.max_schema_options,
                                   "ANNOTATOR_MAX_SCHEMA_OPTIONS")}[what]
    if len(items) > limit:
        raise SchemaError(path, key, f"at most {limit:,} {what} ({variable})",
                          found=f"{len(items):,}")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
