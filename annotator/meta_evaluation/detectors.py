"""A detector's spans and document scores judged against a release's gold (pure).

The detector is a pre-highlighter (``annotator align`` output: ``{"id", "suggestions":
[{"kind", "source_spans", "target_spans", "score", "kind_scores"}]}``, a box carrying two
kinds counted for each with its own score) or any tool writing
``{"document_id", "spans": [{"kind", "side", "start", "end", "score"}], "scores": {kind: s}}``
per line. Against the gold edits of each kind:

- span level, per kind and side: exact and partial (token IoU >= 0.5) F1 with the agreement
  engine's definitions (``agreement/spans.py``, Trienes et al. 2024), TP/FP/FN summed over
  documents;
- document level, per kind (SimpleOG's rule: a document is positive when any of its gold
  edits has the kind): the document's score (given, else its best span score, else 0) as a
  detector: AUC-ROC, precision / recall / F1 at ``threshold``, and the best-F1 threshold
  (optimistic: chosen on the same documents).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from annotator.agreement.spans import exact_counts, partial_counts
from annotator.core.overlap import f1_from_counts, whitespace_tokens
from annotator.core.problems import IngestError, Problem
from annotator.core.records import json_lines_rows, read_text
from annotator.core.shown import got
from annotator.core.spans import SpanFault, read_span, read_spans
from annotator.core.vocabulary import SIDES
from annotator.meta_evaluation.correlation import binary_scores


@dataclass
class Detection:
    kind: str
    side: str
    start: int
    end: int
    score: float


@dataclass
class Detections:
    spans: dict[str, list[Detection]] = field(default_factory=dict)  # document -> spans
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # document -> kind -> s


def _span(value: Any, side: str, name: str, line: int, where: str,
          problems: list[Problem]) -> bool:
    """Is ``value`` a ``[start, end]`` span by the one span rule (a detector file carries
    no text: 0 <= start < end)? A problem naming the field when not."""
    found = read_span(value, where, side=side, nonempty=True)
    if isinstance(found, SpanFault):
        problems.append(found.at(name, line))
        return False
    return True


def _score(value: Any, name: str, line: int, where: str, problems: list[Problem]) -> float:
    if value is None:
        return 1.0  # a span without a score is a plain "detected"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(Problem(name, line, where, "must be a number" + got(value)))
        return 0.0
    return float(value)


def _kinds_of(suggestion: dict, i: int, name: str, line: int,
              problems: list[Problem]) -> list[tuple[str, float]]:
    """(kind, score) a suggestion detects: its kind and score, or, for a box carrying two
    kinds (``kind_scores``, the pre-highlighter's "oversimplification or deletion"), each
    kind with its own probability: such a box counts for both, as in the project's
    pre-highlight measure."""
    two = suggestion.get("kind_scores")
    if isinstance(two, dict) and two:
        return [(str(kind), _score(value, name, line, f"suggestions[{i}].kind_scores.{kind}",
                                   problems)) for kind, value in two.items()]
    return [(str(suggestion.get("kind")),
             _score(suggestion.get("score"), name, line, f"suggestions[{i}].score", problems))]


def read_detections(path: Path, kind_map: dict[str, str]) -> Detections:
    """Every line of a detections file; kinds renamed by ``kind_map``; problems name
    FILE:LINE and the field."""
    name, problems = str(path), []
    found = Detections()
    for line, row in json_lines_rows(read_text(path), name, problems):
        if not isinstance(row, dict):
            problems.append(Problem(name, line, None, "expected a JSON object" + got(row)))
            continue
        doc = row.get("document_id", row.get("id"))
        if not isinstance(doc, (str, int)) or isinstance(doc, bool):
            problems.append(Problem(name, line, "document_id", "required" + got(doc)))
            continue
        doc = str(doc)
        spans = found.spans.setdefault(doc, [])
        if "suggestions" in row:  # annotator align's output
            suggestions = row["suggestions"]
            if not isinstance(suggestions, list) or not all(isinstance(s, dict)
                                                            for s in suggestions):
                problems.append(Problem(name, line, "suggestions", "must be a list of objects"
                                        + got(suggestions)))
                continue
            for i, s in enumerate(suggestions):
                scored = _kinds_of(s, i, name, line, problems)
                for side in SIDES:
                    for j, pair in enumerate(s.get(f"{side}_spans") or []):
                        if _span(pair, side, name, line,
                                 f"suggestions[{i}].{side}_spans[{j}]", problems):
                            spans += [Detection(kind_map.get(kind, kind), side, pair[0],
                                                pair[1], score) for kind, score in scored]
            continue
        if not isinstance(row.get("spans") or [], list):
            problems.append(Problem(name, line, "spans", "must be a list" + got(row["spans"])))
            continue
        for i, s in enumerate(row.get("spans") or []):
            where = f"spans[{i}]"
            if not isinstance(s, dict) or s.get("side") not in SIDES:
                problems.append(Problem(name, line, where, "needs kind, side (source or "
                                        "target), start, end" + got(s)))
                continue
            if _span([s.get("start"), s.get("end")], s["side"], name, line, where, problems):
                kind = kind_map.get(str(s.get("kind")), str(s.get("kind")))
                spans.append(Detection(kind, s["side"], s["start"], s["end"],
                                       _score(s.get("score"), name, line, f"{where}.score",
                                              problems)))
        scores = row.get("scores") or {}
        if not isinstance(scores, dict):
            problems.append(Problem(name, line, "scores", "must map kind -> score" + got(scores)))
            continue
        for kind, value in scores.items():
            found.scores.setdefault(doc, {})[kind_map.get(kind, kind)] = _score(
                value, name, line, f"scores.{kind}", problems)
    if problems:
        raise IngestError(problems)
    return found


def checked_gold(rows: list[tuple[int, dict]], name: str) -> list[dict]:
    """The gold records (``(line, record)`` of a release's gold.jsonl) with each edit's
    type and spans checked by the one span rule against the record's texts: a hand-edited
    gold file is refused with FILE:LINE and the field, not a traceback."""
    problems: list[Problem] = []
    for line, record in rows:
        texts = {side: record.get(side) for side in SIDES}
        wrong = [side for side, text in texts.items() if not isinstance(text, str)]
        if wrong:
            problems.append(Problem(name, line, wrong[0], "a gold record carries its text"
                                    + got(texts[wrong[0]])))
            continue
        for i, e in enumerate(record["edits"]):
            spans = e.get("spans") if isinstance(e, dict) else None
            if not (isinstance(spans, dict) and isinstance(e.get("edit_type"), str)):
                problems.append(Problem(name, line, f"edits[{i}]", "must be {edit_type, "
                                        "spans: {source: [...], target: [...]}}" + got(e)))
                continue
            for side in SIDES:
                _, faults = read_spans(spans.get(side), f"edits[{i}].spans.{side}", side=side,
                                       texts=texts)
                problems.extend(f.at(name, line) for f in faults)
    if problems:
        raise IngestError(problems)
    return [record for _, record in rows]


def evaluate_detector(gold: list[dict], found: Detections, *, threshold: float = 0.5,
                      min_score: float | None = None) -> dict:
    """Span-level and document-level figures per kind (see the module docstring)."""
    documents = {r["id"]: r for r in gold}
    kinds = sorted({e["edit_type"] for r in gold for e in r["edits"]}
                   | {d.kind for spans in found.spans.values() for d in spans})
    span_rows = []
    for side in SIDES:
        exact = np.zeros((len(kinds), 3))
        partial = np.zeros((len(kinds), 3))
        for doc_id, record in documents.items():
            tokens = whitespace_tokens(record[side])
            gold_spans = [(e["edit_type"], s, t) for e in record["edits"]
                          for s, t in e["spans"][side]]
            predicted = [(d.kind, d.start, d.end) for d in found.spans.get(doc_id, [])
                         if d.side == side and (min_score is None or d.score >= min_score)]
            exact += exact_counts(gold_spans, predicted, kinds)
            partial += partial_counts(gold_spans, predicted, kinds, tokens)
        for k, kind in enumerate(kinds):
            if exact[k].sum() == 0:
                continue  # neither gold nor detector has this kind on this side
            span_rows.append({"kind": kind, "side": side,
                              "exact": _counts(exact[k]), "partial": _counts(partial[k])})
    document_rows = []
    for kind in kinds:
        labels = np.array([float(any(e["edit_type"] == kind for e in r["edits"]))
                           for r in documents.values()])
        scores = np.array([_document_score(found, doc_id, kind) for doc_id in documents])
        row = {"kind": kind, "documents": len(labels), "positive": int(labels.sum())}
        flagged = scores >= threshold
        tp = float((flagged & (labels == 1)).sum())
        row["at_threshold"] = {"threshold": threshold, **_counts(np.array(
            [tp, flagged.sum() - tp, labels.sum() - tp]))}
        if 0 < labels.sum() < len(labels):
            best = binary_scores(labels, scores)
            row["auc_roc"] = round(best.auc, 6)
            row["best_f1"] = {"f1": round(best.best_f1, 6), "precision": round(best.precision, 6),
                              "recall": round(best.recall, 6), "threshold": best.threshold,
                              "optimistic": True}
        document_rows.append(row)
    return {"spans": span_rows, "documents": document_rows,
            "unmatched": sorted(set(found.spans) - set(documents)),
            "without_detections": sorted(set(documents) - set(found.spans)
                                         - set(found.scores))}


def _document_score(found: Detections, doc_id: str, kind: str) -> float:
    given = found.scores.get(doc_id, {})
    if kind in given:
        return given[kind]
    return max((d.score for d in found.spans.get(doc_id, []) if d.kind == kind), default=0.0)


def _counts(counts: np.ndarray) -> dict:
    tp, fp, fn = (float(x) for x in counts)
    f1 = float(f1_from_counts(counts))
    return {"tp": int(tp), "fp": int(fp), "fn": int(fn),
            "precision": round(tp / (tp + fp), 6) if tp + fp else None,
            "recall": round(tp / (tp + fn), 6) if tp + fn else None,
            "f1": None if np.isnan(f1) else round(f1, 6)}
