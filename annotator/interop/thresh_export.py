"""Writing Thresh files and typologies (the inverse of :mod:`annotator.interop.thresh` and
:mod:`annotator.schemas.thresh_typology`).

A record imported from Thresh is written back as it came: the keys it had, its ``id`` as
the file wrote it (number or string, or none when the texts identified the pair), its
``metadata`` and other keys from ``Assignment.meta``, each edit's own ``id`` and keys from
``Edit.meta``, nested ``{"val": ...}`` answers for questions with sub-questions, and
``constituent_edits`` under their composite edit. Time and status are the project's
current ones (``_seconds_spent``, ``_completed`` keeps the file's timestamp while the work
is still done). Work made in this tool gets the full form, with our extra keys
(``_annotator``, ``_status``, ``_ratings``, ``_meta``), which Thresh ignores.
"""

from __future__ import annotations

from typing import Any

import yaml

from annotator.core.vocabulary import EDIT_TYPE_OF_INFOLOSSQA_CATEGORY
from annotator.interop.records import AnnotationRecord, EditIn
from annotator.schemas import EditType, Schema
from annotator.schemas.guideline_text import schema_guideline


def to_thresh(records: list[AnnotationRecord], schema: Schema) -> dict[str, list[dict]]:
    """Records -> one Thresh file (a list of records) per annotator."""
    files: dict[str, list[dict]] = {}
    for r in records:
        out = files.setdefault(r.annotator, [])
        kept = (r.assignment_meta or {}).get("thresh")
        edits = _edits(r.edits, schema, _EditIds(r.edits))
        out.append(_imported(r, kept, edits) if isinstance(kept, dict)
                   else _native(r, edits, len(out)))
    return files


def _native(r: AnnotationRecord, edits: list[dict], position: int) -> dict:
    record = {"id": r.document_id, "source": r.source, "target": r.target, "edits": edits,
              "_thresh_id": position, "_seconds_spent": r.seconds_spent,
              "_completed": r.status == "done", "_status": r.status, "_annotator": r.annotator}
    if r.ratings:
        record["_ratings"] = _ratings(r)
    if r.meta:
        record["_meta"] = r.meta
    return record


def _imported(r: AnnotationRecord, kept: dict, edits: list[dict]) -> dict:
    keys = list(kept.get("_keys") or [])
    computed: dict[str, Any] = {"source": r.source, "target": r.target, "edits": edits}
    original_id = kept.get("id")
    computed["id"] = original_id if str(original_id) == r.document_id else r.document_id
    seconds = r.seconds_spent
    if isinstance(kept.get("_seconds_spent"), int) and float(seconds).is_integer():
        seconds = int(seconds)
    computed["_seconds_spent"] = seconds
    done = r.status == "done"
    computed["_completed"] = kept["_completed"] if (
        "_completed" in kept and bool(kept["_completed"]) == done) else done
    computed["_status"] = r.status
    if r.ratings:
        computed["_ratings"] = _ratings(r)
    if r.meta:
        computed["_meta"] = r.meta
    # What changed here and the file had no key for: time worked, work not done.
    extra = []
    if "_seconds_spent" not in keys and r.seconds_spent:
        extra.append("_seconds_spent")
    if not done and "_completed" not in keys and "_status" not in keys:
        extra.append("_status")
    extra += [k for k in ("_ratings", "_meta") if k in computed and k not in keys]
    record = {}
    for key in keys + extra:
        record[key] = computed[key] if key in computed else kept.get(key)
    return record


def _ratings(r: AnnotationRecord) -> list[dict]:
    return [{"level": g.level, "item": g.item, "field": g.field, "value": g.value,
             "rationale": g.rationale} for g in r.ratings]


class _EditIds:
    """Thresh edit ids of one record: per category, from 1, over the record's edits and
    their constituents (Thresh's own files, e.g. the InfoLossQA authors': omission 1, 2, …
    and concept 1, 2, … in one record). An imported edit keeps its id while it has the
    category it was read with; an edit made here, or relabelled since, takes the next id
    after the highest of its category in the record, so no two edits share (category, id)
    and no id is reused."""

    def __init__(self, edits: list[EditIn]):
        self.kept: dict[int, Any] = {}  # id(edit) -> the id it keeps
        self.highest: dict[str, int] = {}
        taken: set[tuple[str, Any]] = set()
        for e in _walk(edits):
            kept = _kept(e)
            if kept is None or "id" not in kept or not _as_read(kept, e.edit_type):
                continue
            key = (e.edit_type, kept["id"])
            if key in taken:
                continue  # the file's own duplicate: the later one is numbered anew
            taken.add(key)
            self.kept[id(e)] = kept["id"]
            if isinstance(kept["id"], int) and not isinstance(kept["id"], bool):
                self.highest[e.edit_type] = max(self.highest.get(e.edit_type, 0), kept["id"])

    def of(self, e: EditIn) -> Any:
        if id(e) in self.kept:
            return self.kept[id(e)]
        number = self.highest.get(e.edit_type, 0) + 1
        self.highest[e.edit_type] = number
        self.kept[id(e)] = number
        return number


def _walk(edits: list[EditIn]):
    for e in edits:
        yield e
        yield from _walk(e.constituents)


def _kept(e: EditIn) -> dict | None:
    kept = (e.meta or {}).get("thresh")
    return kept if isinstance(kept, dict) else None


def _as_read(kept: dict, edit_type: str) -> bool:
    """The edit still has the category it was read with (edits stored before the type
    read was recorded count as unchanged)."""
    return kept.get("_category_of", edit_type) == edit_type


def _edits(edits: list[EditIn], schema: Schema, ids: _EditIds) -> list[dict]:
    out = []
    for e in edits:
        kept = _kept(e)
        edit_type = schema.edit_type(e.edit_type)
        sides = edit_type.sides if edit_type is not None else ("source", "target")
        computed: dict[str, Any] = {"category": e.edit_type, "id": ids.of(e)}
        source = [[s.start, s.end] for s in e.spans if s.side == "source"]
        target = [[s.start, s.end] for s in e.spans if s.side == "target"]
        computed["annotation"] = nested_answers(e.fields, edit_type,
                                                (kept or {}).get("_nested"))
        # Only the keys the category has (Thresh: enable_input / enable_output), unless
        # the edit has spans there anyway.
        if "source" in sides or source:
            computed["input_idx"] = source or None
        if "target" in sides or target:
            computed["output_idx"] = target or None
        if e.constituents or (edit_type is not None and edit_type.composite):
            computed["constituent_edits"] = _edits(e.constituents, schema, ids)
        if kept is None:
            out.append(computed)
            continue
        keys = list(kept.get("_keys") or [])
        if not _as_read(kept, e.edit_type):  # relabelled: the new category's span keys
            keys = [k for k in keys if k not in ("input_idx", "output_idx") or k in computed]
        empty = kept.get("_empty") or {}
        computed["category"] = _category(kept, e.edit_type)
        extra = [k for k, v in (("input_idx", source), ("output_idx", target),
                                ("annotation", e.fields),
                                ("constituent_edits", e.constituents)) if v and k not in keys]
        record = {}
        for key in keys + extra:
            if key in empty and not computed.get(key):
                record[key] = empty[key]  # null, [] or {} as the file had it
            elif key in computed:
                record[key] = computed[key]
            else:
                record[key] = kept.get(key)
        out.append(record)
    return out


def _category(kept: dict, edit_type: str) -> str:
    """The category an imported edit is written back with: the file's own spelling (an
    alias such as InfoLossQA's ``omission``) while the edit keeps the type it was read as;
    once relabelled (in Label Studio, by a lead), its new type. Edits stored before the
    type was recorded with the alias read it from the InfoLossQA aliases."""
    alias = kept.get("_category")
    if not alias:
        return edit_type
    read_as = kept.get("_category_of",
                       EDIT_TYPE_OF_INFOLOSSQA_CATEGORY.get(str(alias).lower(), edit_type))
    return alias if read_as == edit_type else edit_type


def nested_answers(fields: dict[str, Any], edit_type: EditType | None,
                   nested_as_read: list[str] | None = None) -> dict[str, Any]:
    """Flat fields -> Thresh answers: a question with sub-questions (``thresh_nested``)
    becomes ``{"val": OPTION, OPTION: sub-answer}``. For an imported edit,
    ``nested_as_read`` lists the answers the file wrote that way (Thresh itself sometimes
    writes a bare answer to such a question), and wins."""
    if edit_type is None:
        return dict(fields)
    consumed: set[str] = set()

    def is_nested(name: str, spec) -> bool:
        if nested_as_read is not None and name not in nested_as_read:
            return False
        return nested_as_read is not None or (spec is not None and spec.thresh_nested)

    def answer(name: str) -> Any:
        value = fields[name]
        spec = edit_type.field(name)
        if not is_nested(name, spec):
            return value
        out = {"val": value}
        for sub in edit_type.fields:
            if sub.when and sub.when[0] == name and value in sub.when[1] and sub.name in fields:
                consumed.add(sub.name)
                out[str(value)] = answer(sub.name)
        return out

    result = {}
    for name in fields:
        spec = edit_type.field(name)
        parent = spec.when[0] if spec is not None and spec.when else None
        if parent is not None and parent in fields and is_nested(parent,
                                                                 edit_type.field(parent)):
            continue  # written inside its parent's answer
        result[name] = answer(name)
    for name in fields:  # a sub-answer whose parent was not answered: keep it flat
        if name not in result and name not in consumed:
            result[name] = fields[name]
    return result


# ---------------------------------------------------------------- typology

PRESET_OF = {("yes", "no"): "binary", ("minor", "somewhat", "a lot"): "likert-3"}


def typology_yaml(schema: Schema) -> str:
    """A Thresh typology (the YAML that configures a Thresh interface) for the schema's edit
    types: sides -> enable_input/enable_output, composite and single/multi span -> type,
    fields -> questions (text -> textarea, yes/no -> binary, minor/somewhat/a lot ->
    likert-3, other choices -> options), a conditional sub-question under its option; the
    project's guideline -> instructions."""
    edits = []
    for e in schema.edit_types:
        questions = [_question(e, f) for f in e.fields
                     if f.when is None or not _nested_parent(e, f)]
        edit: dict[str, Any] = {"name": e.name, "label": e.label, "color": e.color,
                                "enable_input": "source" in e.sides,
                                "enable_output": "target" in e.sides}
        edit["type"] = ("composite" if e.composite else
                        "multi_span" if e.multi_span else "single_span")
        if questions:
            edit["annotation"] = questions
        edits.append(edit)
    # The project's guideline is what Thresh shows as instructions (a typology's own
    # instructions come back as they were read, see schemas/thresh_typology.py).
    guideline = schema_guideline(schema).markdown
    typology = {"template_name": schema.name, "template_label": schema.title,
                **({"template_description": schema.description}
                   if guideline and schema.description else {}),
                "instructions": guideline or schema.description or schema.title,
                "edits": edits}
    return yaml.safe_dump(typology, sort_keys=False, allow_unicode=True)


def _nested_parent(edit_type: EditType, spec) -> bool:
    parent = edit_type.field(spec.when[0])
    return parent is not None and parent.thresh_nested and len(spec.when[1]) == 1


def _question(edit_type: EditType, spec, as_option: str | None = None) -> dict[str, Any]:
    q: dict[str, Any] = {} if as_option else {"name": spec.name}
    q["question"] = spec.help or spec.label
    if as_option is None and spec.help:
        q["label"] = spec.label
    q["options"] = _options(edit_type, spec)
    if spec.required and as_option is None:
        q["required"] = True
    return q


def _options(edit_type: EditType, spec) -> Any:
    if spec.type == "text":
        return "textbox"
    values = tuple(str(o.value) for o in spec.options)
    if not spec.thresh_nested and values in PRESET_OF:
        return PRESET_OF[values]
    options = []
    for o in spec.options:
        option: dict[str, Any] = {"name": str(o.value), "label": o.label}
        sub = next((f for f in edit_type.fields if f.when == (spec.name, (o.value,))
                    and spec.thresh_nested), None)
        if sub is not None:
            option.update(_question(edit_type, sub, as_option=str(o.value)))
            option["label"] = o.label
        options.append(option)
    return options
