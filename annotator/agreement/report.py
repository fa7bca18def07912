"""Build the agreement report: one JSON-serialisable dict (keys documented in
docs/agreement.md). Undefined values are ``null`` with an ``explanation`` string next to them.

Sources of the definitions: Krippendorff (2011) alpha; Randolph (2005); Fleiss (1971);
Cohen (1960, 1968); Devaraj et al. (2022) majority statistics; Trienes et al. (2024,
InfoLossQA) span F1, sentence alpha, question similarity; Passonneau (2006) MASI; Landis &
Koch (1977) and Artstein & Poesio (2008) bands; PLABA (Attal et al. 2023) aggregation levels.
"""

from __future__ import annotations

import math

import numpy as np

from annotator.core.overlap import f1_from_counts, macro_f1
from annotator.core.vocabulary import SIDES

from .aggregation import aggregate
from .alpha import (
    alpha_from_coincidence,
    check_alpha_defined,
    krippendorff_alpha,
    unit_counts,
)
from .bootstrap import Bootstrap
from .composites import with_composites
from .data import AgreementInput, document_annotators
from .descriptives import annotator_profiles, positions, question_similarity, sections
from .errors import UndefinedAgreement
from .fields import field_agreement, metric
from .names import describe
from .sentences import per_document_coincidence, projection
from .spans import span_statistics
from .tokens import token_agreement
from .units import edit_field_units, match_edits, rating_units

CITATIONS = {
    "alpha": "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability",
    "randolph": "Randolph (2005), Free-marginal multirater kappa",
    "fleiss": "Fleiss (1971), Measuring nominal scale agreement among many raters",
    "cohen": "Cohen (1960); weighted: Cohen (1968)",
    "majority": "Devaraj et al. (2022), Evaluating factuality in text simplification",
    "spans": "Trienes et al. (2024), InfoLossQA",
    "masi": "Passonneau (2006), MASI",
    "bands": "Landis & Koch (1977); Artstein & Poesio (2008)",
    "aggregation": "Attal et al. (2023), PLABA",
    "tokens": "Heineman et al. (2023), SALSA: token-level agreement per edit type",
}


def build_report(inp: AgreementInput, *, bootstrap: int = 1000, seed: int = 0,
                 iou_threshold: float = 0.5, first_span_only: bool = False) -> dict:
    """The full agreement report of ``inp`` (see docs/agreement.md for every key)."""
    given = inp
    inp, composites = with_composites(inp, inp.constituents)
    schema = inp.schema
    docs = list(inp.documents)
    doc_index = {d.id: i for i, d in enumerate(docs)}
    annotators = document_annotators(inp)
    boot = Bootstrap(len(docs), bootstrap, seed)
    names = sorted({a for v in annotators.values() for a in v} | {e.annotator for e in inp.edits}
                   | {r.annotator for r in inp.ratings})
    report = {
        "schema": {
            "name": schema.name,
            "title": schema.title,
            "unit": schema.unit,
            "edit_types": [e.name for e in schema.edit_types],
            "rating_fields": [
                {"name": f.name, "type": f.type, "level": f.level} for f in schema.ratings
            ],
        },
        "settings": {
            "bootstrap": bootstrap,
            "seed": seed,
            "ci_level": 0.95,
            "iou_threshold": iou_threshold,
            "first_span_only": first_span_only,
        },
        "counts": {
            "documents": len(docs),
            "annotators": len(names),
            "edits": len(given.edits),
            "ratings": len(inp.ratings),
            "documents_with_2plus_annotators": sum(len(v) >= 2 for v in annotators.values()),
        },
        "warnings": [],
    }
    if composites:
        report["composites"] = composites
        report["settings"]["constituents"] = composites["convention"]
        for item in composites["excluded"]:
            report["warnings"].append(f"edit {item['edit']} ({item['edit_type']}, "
                                      f"{item['annotator']} on {item['document']}) left out: "
                                      f"{item['reason']}")
    report["fields"], report["aggregation"] = _rating_fields(
        inp, doc_index, boot, report["warnings"]
    )
    report["edit_fields"] = _edit_fields(inp, annotators, doc_index, boot)
    report["spans"] = {side: _spans(inp, annotators, side, boot, iou_threshold, first_span_only)
                       for side in SIDES}
    report["tokens"] = {side: token_agreement(docs, inp.edits, annotators, schema, side, boot)
                        for side in ("source", "target")}
    report["annotators"] = annotator_profiles(docs, inp.edits, inp.work, annotators,
                                              [e.name for e in schema.edit_types])
    report["question_similarity"] = question_similarity(docs, inp.edits, annotators, inp.embed)
    report["sections"] = sections(docs, inp.edits)
    report["positions"] = positions(docs, inp.edits)
    report["interpretation"] = _interpretation(report, schema)
    report["citations"] = CITATIONS
    if report["counts"]["documents_with_2plus_annotators"] == 0:
        report["warnings"].append("no document has two or more annotators: agreement is undefined")
    return clean(report)


def _field_key(field, taken) -> str:
    return field.name if field.name not in taken else f"{field.name}@{field.level}"


def _rating_fields(inp, doc_index, boot, warnings):
    fields, aggregation = {}, {}
    for field in inp.schema.ratings:
        key = _field_key(field, fields)
        if field.type == "text":
            fields[key] = {"label": field.label or field.name, "level": field.level,
                           "type": "text", "metrics": None,
                           "explanation": "free-text fields are not compared"}
            continue
        units, ignored = rating_units(inp.ratings, field, doc_index)
        if ignored:
            warnings.append(f"{key}: {ignored} rating(s) ignored (empty, not an option, or "
                            "on an unknown document)")
        fields[key] = {"label": field.label or field.name, "level": field.level,
                       "type": field.type, "ignored_ratings": ignored,
                       "metrics": field_agreement(units, field, len(doc_index), boot)}
        if field.type == "ordinal":
            aggregation[key] = aggregate(units, inp.documents, field, boot,
                                         item_level=field.level != "document")
    return fields, aggregation


def _edit_fields(inp, annotators, doc_index, boot):
    pairs = match_edits(inp.edits, inp.schema, annotators)
    out = {}
    for et in inp.schema.edit_types:
        for field in et.fields:
            if field.type not in ("choice", "ordinal", "multichoice"):
                continue
            units = edit_field_units(pairs, et.name, field, doc_index)
            out[f"{et.name}.{field.name}"] = {
                "label": f"{et.label or et.name}, {field.label or field.name}"
                         + _condition_text(field),
                "edit_type": et.name, "field": field.name, "type": field.type,
                "matched_pairs": sum(1 for x, _y in pairs if x.edit_type == et.name),
                "metrics": field_agreement(units, field, len(doc_index), boot)}
    return out


def _condition_text(field) -> str:
    """A sub-question's answer path, so its line is told apart from its parent's and its
    siblings' (SALSA's sub-questions share prompts such as "Rate the severity")."""
    if not getattr(field, "when", None):
        return ""
    parent, values = field.when
    return f" (when {parent} is {' or '.join(str(v) for v in values)})"


def _spans(inp, annotators, side, boot, threshold, first_only) -> dict:
    labels = [e.name for e in inp.schema.edit_types if side in e.sides]
    if not labels:
        return {"labels": [], "explanation": f"no edit type has spans on the {side} side"}
    stats = span_statistics(
        inp.documents, inp.edits, annotators, side, labels, threshold, first_only
    )
    out = {"labels": labels, "pairs": stats["pairs"]}
    for kind in ("exact", "partial"):
        per_doc = stats[kind]
        total = per_doc.sum(axis=0)
        entry = {"per_label": {}, "counts": {}}
        for j, label in enumerate(labels):
            entry["counts"][label] = dict(zip(("tp", "fp", "fn"), total[j].astype(int).tolist()))
            entry["per_label"][label] = metric(
                lambda j=j, label=label: _defined(f1_from_counts(total[j]),
                                                  _no_spans(stats, label, side)),
                boot, per_doc[:, j, :], f1_from_counts)
        entry["macro"] = metric(lambda: _defined(macro_f1(f1_from_counts(total)),
                                                 _no_spans(stats, None, side)),
                                boot, per_doc, lambda s: macro_f1(f1_from_counts(s)))
        out[kind] = entry
    doc_ids = [d.id for d in inp.documents]
    proj = projection(inp.documents, inp.edits, annotators, side, first_only)
    sentence = {}
    for name, binary in (("binary", True), ("masi", False)):
        per_doc, domain, delta, (_names, rows) = per_document_coincidence(proj, doc_ids, binary)
        total = per_doc.sum(axis=0)
        if binary:
            def point(rows=rows):
                return krippendorff_alpha(_no_rows(rows), "nominal", [0, 1])
        else:
            def point(total=total, delta=delta, rows=rows):
                return _masi_point(rows, domain, total, delta)
        sentence[name] = metric(point, boot, per_doc,
                                lambda o, delta=delta: alpha_from_coincidence(o, delta=delta),
                                "sentence_alpha")
        sentence[name]["sentences"] = int(len(rows[0]) if rows else 0)
    out["sentence_alpha"] = sentence
    return out


def _no_rows(rows):
    if not rows or not rows[0]:
        raise UndefinedAgreement("no sentence of a document with annotators")
    return rows


def _masi_point(rows, domain, total, delta) -> float:
    _no_rows(rows)
    index = {v: i for i, v in enumerate(domain)}
    codes = np.array([[index[v] if v is not None else -1 for v in row] for row in rows],
                     dtype=np.int64).reshape(len(rows), -1)
    check_alpha_defined(unit_counts(codes, len(domain)), delta)
    return float(alpha_from_coincidence(total, delta=delta))


def _no_spans(stats, label, side) -> str:
    if not stats["pairs"]:
        return "no document has two or more annotators"
    what = f"label '{label}'" if label else "any label"
    return f"neither annotator of any pair marked a {side} span of {what}: F1 is 0/0"


def _defined(value, explanation: str) -> float:
    value = float(value)
    if math.isnan(value):
        raise UndefinedAgreement(explanation)
    return value


def _interpretation(report, schema) -> list[dict]:
    """The headline coefficients: raw key (``metric``), readable ``title`` and ``about``,
    value, CI, the reason when undefined (``explanation``) and the verbal band."""
    rows = []

    def add(path, m):
        if isinstance(m, dict) and "interpretation" in m:
            rows.append({"metric": path, **describe(path, schema), "value": m["value"],
                         "ci": m.get("ci"), "explanation": m["explanation"],
                         **m["interpretation"]})

    for group in ("fields", "edit_fields"):
        for key, entry in report[group].items():
            metrics = entry.get("metrics") or {}
            for name in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "alpha_masi",
                         "randolph", "fleiss"):
                if name in metrics:
                    add(f"{group}.{key}.{name}", metrics[name])
    for side, entry in report["spans"].items():
        for name, m in (entry.get("sentence_alpha") or {}).items():
            add(f"spans.{side}.sentence_alpha.{name}", m)
    for side, entry in report["tokens"].items():
        for label, stats in (entry.get("types") or {}).items():
            add(f"tokens.{side}.types.{label}.fleiss", stats["fleiss"])
    return rows


def clean(obj):
    """JSON-safe copy: numpy scalars -> Python, NaN/inf -> None, tuples/sets -> lists."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((clean(v) for v in obj), key=str)
    if isinstance(obj, np.ndarray):
        return clean(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
