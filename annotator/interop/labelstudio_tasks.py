"""Label Studio tasks out (labelstud.io/guide/tasks.html, predictions:
labelstud.io/guide/predictions.html).

One task per document, ``data`` = ``{"document_id", "source", "target", "meta"}``; each
annotator's work is one entry of ``annotations`` (``completed_by`` = the user name,
``lead_time`` = seconds spent); the pre-highlights are ``predictions``. An edit becomes one
labelled region per span (``source_labels`` / ``target_labels``, label = edit type); its
fields are per-region results on its first region; the regions of a multi-span edit are
linked with ``relation`` results. Ratings are results of the ``<level>_<field>`` controls
(one item per level; rationales and edits without spans cannot be represented and are
returned as notes).
"""

from __future__ import annotations

from annotator.interop.labelstudio_config import (
    edit_field_controls,
    rating_controls,
    value_to_result,
)
from annotator.interop.records import AnnotationRecord, EditIn
from annotator.schemas import Schema

SINGLE_ITEM = {"document": "", "pair": "0", "sentence": "0", "qa": "0"}


def to_tasks(schema: Schema, documents, records: list[AnnotationRecord],
             suggestions: dict[str, list] | None = None) -> tuple[list[dict], list[str]]:
    """Tasks for every document; returns (tasks, what could not be represented)."""
    field_controls, rating_ctl = edit_field_controls(schema), rating_controls(schema)
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
                result += _edit_results(e, f"e{k}", doc, field_controls)
            for g in r.ratings:
                control = rating_ctl.get((g.level, g.field))
                if control is None or g.item != SINGLE_ITEM.get(g.level) or g.rationale:
                    skipped.append(f"{r.document_id}/{r.annotator}: rating {g.level} "
                                   f"{g.item!r} {g.field} (only one item per level, no "
                                   "rationale)")
                    continue
                if g.value in (None, ""):
                    continue
                kind, value = value_to_result(control, g.value)
                result.append({"id": f"{g.level}-{g.field}", "from_name": control.name,
                               "to_name": "source", "type": kind, "value": value})
            annotations.append({"id": annotation_id, "completed_by": {
                "email": r.annotator, "username": r.annotator}, "lead_time": r.seconds_spent,
                "was_cancelled": False, "result": result, "_status": r.status})
        task = {"id": number, "data": {"document_id": doc.external_id, "source": doc.source,
                                       "target": doc.target, "meta": dict(doc.meta or {})},
                "annotations": annotations}
        predictions = _predictions(schema, doc, (suggestions or {}).get(doc.external_id, []))
        if predictions:
            task["predictions"] = predictions
        tasks.append(task)
    return tasks, skipped


def _region(side: str, start: int, end: int, label: str, text: str, rid: str) -> dict:
    return {"id": rid, "from_name": f"{side}_labels", "to_name": side, "type": "labels",
            "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]}}


def _edit_results(e: EditIn, prefix: str, doc, field_controls) -> list[dict]:
    texts = {"source": doc.source, "target": doc.target}
    regions = [_region(s.side, s.start, s.end, e.edit_type, texts[s.side], f"{prefix}-{i}")
               for i, s in enumerate(e.spans)]
    head = regions[0]
    result = list(regions)
    for name, value in e.fields.items():
        control = field_controls.get((e.edit_type, name))
        if control is None or value in (None, ""):
            continue
        kind, rvalue = value_to_result(control, value)
        result.append({"id": head["id"], "from_name": control.name,
                       "to_name": head["to_name"], "type": kind, "value": rvalue})
    for other in regions[1:]:
        result.append({"type": "relation", "from_id": head["id"], "to_id": other["id"],
                       "direction": "right"})
    return result


def suggestion_edit_type(schema: Schema, kind: str, sides: set[str]) -> str | None:
    """The edit type a pre-highlight stands for: the kind itself, or the only edit type
    that may span the suggestion's sides."""
    if schema.edit_type(kind) is not None:
        return kind
    fitting = [e.name for e in schema.edit_types if sides <= set(e.sides)]
    return fitting[0] if len(fitting) == 1 else None


def _predictions(schema: Schema, doc, suggestions) -> list[dict]:
    texts = {"source": doc.source, "target": doc.target}
    result = []
    for n, s in enumerate(suggestions):
        spans = [("source", a, b) for a, b in s.source_spans] + \
                [("target", a, b) for a, b in s.target_spans]
        label = suggestion_edit_type(schema, s.kind, {side for side, _, _ in spans})
        if label is None or not spans:
            continue
        regions = [_region(side, a, b, label, texts[side], f"s{n}-{i}")
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
