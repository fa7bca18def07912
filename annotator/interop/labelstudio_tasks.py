"""Label Studio tasks out (labelstud.io/guide/tasks.html, predictions:
labelstud.io/guide/predictions.html), as full JSON tasks and as JSON-MIN rows.

One task per document. Its ``data`` holds the two texts under the config's data keys
(``original`` / ``simplification`` for a generated config; the study's own keys for a
project made from a Label Studio config) and the document id and metadata. Each annotator's
work is one entry of ``annotations`` (``completed_by`` = the account's e-mail,
``lead_time`` = seconds spent, a skipped assignment is a cancelled annotation); the
pre-highlights are ``predictions``. An edit becomes one labelled region per span (label =
edit type); its fields are per-region results on its first region of each side (both
sides carry them, so either region shows the edit's answers); the
regions of a multi-span edit are linked with ``relation`` results. Ratings are results of
their per-task controls (one item per level; rationales and edits without spans cannot be
represented and are returned as notes).
"""

from __future__ import annotations

from typing import Any, Callable

from annotator.interop.labelstudio_config import value_to_result
from annotator.interop.labelstudio_layout import ANNOTATION_KEYS, Layout, layout
from annotator.interop.records import AnnotationRecord, EditIn
from annotator.schemas import Schema

SINGLE_ITEM = {"document": "", "pair": "0", "sentence": "0", "qa": "0"}


def task_data(lay: Layout, doc) -> dict[str, Any]:
    if lay.own_config:
        data = dict(doc.meta or {})
        data[lay.text_keys["source"]] = doc.source
        data[lay.text_keys["target"]] = doc.target
        return data
    return {"document_id": doc.external_id, lay.text_keys["source"]: doc.source,
            lay.text_keys["target"]: doc.target, "meta": dict(doc.meta or {})}


def to_tasks(schema: Schema, documents, records: list[AnnotationRecord],
             suggestions: dict[str, list] | None = None,
             email_of: Callable[[str], str] | None = None) -> tuple[list[dict], list[str]]:
    """Tasks for every document; returns (tasks, what could not be represented).
    ``email_of``: annotator name -> the e-mail Label Studio knows them by."""
    lay = layout(schema)
    by_doc: dict[str, list[AnnotationRecord]] = {}
    for r in records:
        by_doc.setdefault(r.document_id, []).append(r)
    tasks, skipped, annotation_id = [], [], 0
    for number, doc in enumerate(documents, start=1):
        annotations = []
        for r in by_doc.get(doc.external_id, []):
            annotation_id += 1
            result = []
            for k, e in enumerate(r.edits):
                if not e.spans:
                    skipped.append(f"{r.document_id}/{r.annotator}: {e.edit_type} edit "
                                   "without spans (Label Studio needs a region)")
                    continue
                result += _edit_results(lay, e, f"e{k}", doc)
            result += _rating_results(lay, r, skipped)
            who = email_of(r.annotator) if email_of else r.annotator
            annotations.append({"id": annotation_id, "completed_by": {
                "email": who, "username": r.annotator}, "lead_time": r.seconds_spent,
                "was_cancelled": r.status == "skipped", "result": result,
                "_status": r.status})
        task = {"id": number, "data": task_data(lay, doc), "annotations": annotations}
        predictions = _predictions(lay, schema, doc,
                                   (suggestions or {}).get(doc.external_id, []))
        if predictions:
            task["predictions"] = predictions
        tasks.append(task)
    return tasks, skipped


def _rating_results(lay: Layout, r: AnnotationRecord, skipped: list[str]) -> list[dict]:
    result = []
    for g in r.ratings:
        control = lay.rating_control.get((g.level, g.field))
        if control is None or g.item != SINGLE_ITEM.get(g.level) or g.rationale:
            skipped.append(f"{r.document_id}/{r.annotator}: rating {g.level} "
                           f"{g.item!r} {g.field} (only one item per level, no rationale)")
            continue
        if g.value in (None, ""):
            continue
        kind, value = value_to_result(control, g.value)
        result.append({"id": f"{g.level}-{g.field}", "from_name": control.name,
                       "to_name": lay.objects["source"], "type": kind, "value": value})
    return result


def _region(lay: Layout, side: str, start: int, end: int, edit_type: str, text: str,
            rid: str, extra: dict | None = None) -> dict:
    extra = dict(extra or {})
    control, label = lay.label_of[(edit_type, side)]
    control = extra.pop("labelstudio_control", control)
    value = {"start": start, "end": end, "text": extra.pop("text", text[start:end]),
             "labels": [label], **extra}
    return {"id": rid, "from_name": control, "to_name": lay.objects[side], "type": "labels",
            "value": value}


def _edit_results(lay: Layout, e: EditIn, prefix: str, doc) -> list[dict]:
    texts = {"source": doc.source, "target": doc.target}
    extras = (e.meta or {}).get("labelstudio_regions") or [{}] * len(e.spans)
    regions = [_region(lay, s.side, s.start, s.end, e.edit_type, texts[s.side],
                       f"{prefix}-{i}", extras[i] if i < len(extras) else {})
               for i, s in enumerate(e.spans)]
    result = list(regions)
    # Per-region answers sit on the edit's first region of EACH side: Label Studio shows a
    # control for the regions of the text it names only, so an edit with regions on both
    # texts carries its answers on both, and selecting either region shows the edit's own
    # answers, not empty boxes (the relations below say the regions are one edit). A pull
    # settles answers the page changed on one side only (labelstudio_merge).
    heads = {}
    for region, span in zip(regions, e.spans):
        heads.setdefault(span.side, region)
    for name, value in e.fields.items():
        if value in (None, ""):
            continue
        used = set()  # a study's own config may name one control for both sides
        for side, head in heads.items():
            control = lay.region_control.get((e.edit_type, name, side))
            if control is None or control.name in used:
                continue
            used.add(control.name)
            kind, rvalue = value_to_result(control, value)
            result.append({"id": head["id"], "from_name": control.name,
                           "to_name": head["to_name"], "type": kind, "value": rvalue})
    for other in regions[1:]:
        result.append({"type": "relation", "from_id": regions[0]["id"], "to_id": other["id"],
                       "direction": "right"})
    return result


def to_min_rows(schema: Schema, documents, records: list[AnnotationRecord]) -> list[dict]:
    """JSON-MIN rows, one per annotator and task, as Label Studio writes them: the task
    data, one key per control that has an answer, and the annotation's keys."""
    lay = layout(schema)
    docs = {d.external_id: d for d in documents}
    rows = []
    for number, r in enumerate(records, start=1):
        doc = docs[r.document_id]
        row = task_data(lay, doc)
        kept = dict((r.assignment_meta or {}).get("labelstudio", {}))
        row["id"] = kept.get("id", number)
        texts = {"source": doc.source, "target": doc.target}
        for e in r.edits:
            extras = (e.meta or {}).get("labelstudio_regions") or [{}] * len(e.spans)
            for i, s in enumerate(e.spans):
                region = _region(lay, s.side, s.start, s.end, e.edit_type, texts[s.side], "",
                                 extras[i] if i < len(extras) else {})
                row.setdefault(region["from_name"], []).append(region["value"])
            for name, value in e.fields.items():
                control = next((lay.region_control[(e.edit_type, name, s.side)]
                                for s in e.spans
                                if (e.edit_type, name, s.side) in lay.region_control), None)
                if control is not None and value not in (None, ""):
                    row[control.name] = value
        for g in r.ratings:
            control = lay.rating_control.get((g.level, g.field))
            if control is not None and g.value not in (None, ""):
                row[control.name] = g.value
        row["annotator"] = kept.get("annotator", r.annotator)
        for key in ANNOTATION_KEYS[2:]:
            if key in kept:
                row[key] = kept[key]
        # Time worked on here since the import replaces the imported lead time.
        if abs(float(kept.get("lead_time", -1)) - r.seconds_spent) > 1e-3:
            row["lead_time"] = r.seconds_spent
        rows.append(row)
    return rows


def suggestion_edit_type(schema: Schema, kind: str, sides: set[str]) -> str | None:
    """The edit type a pre-highlight stands for: the kind itself, or the only edit type
    that may span the suggestion's sides."""
    if schema.edit_type(kind) is not None:
        return kind
    fitting = [e.name for e in schema.edit_types if sides <= set(e.sides)]
    return fitting[0] if len(fitting) == 1 else None


def _predictions(lay: Layout, schema: Schema, doc, suggestions) -> list[dict]:
    texts = {"source": doc.source, "target": doc.target}
    result = []
    for n, s in enumerate(suggestions):
        spans = [("source", a, b) for a, b in s.source_spans] + \
                [("target", a, b) for a, b in s.target_spans]
        label = suggestion_edit_type(schema, s.kind, {side for side, _, _ in spans})
        if label is None or not spans or any((label, side) not in lay.label_of
                                             for side, _, _ in spans):
            continue
        regions = [_region(lay, side, a, b, label, texts[side], f"s{n}-{i}")
                   for i, (side, a, b) in enumerate(spans)]
        for region in regions:
            region["score"] = s.score
            region["meta"] = {"text": [f"{s.kind} ({s.method}): {s.explanation}"]}
        result += regions + [{"type": "relation", "from_id": regions[0]["id"],
                              "to_id": r["id"], "direction": "right"} for r in regions[1:]]
    if not result:
        return []
    return [{"model_version": "annotator-prehighlight", "score": max(
        s.score for s in suggestions), "result": result}]
