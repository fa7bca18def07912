"""Pre-highlights as an annotator: one edit-overlap measure for machine and people alike.

The measure (issue #14, after InfoLossQA, Trienes et al. 2024): an edit of one side
*matches* when an edit of the same kind from the other side overlaps it in the original
(any of its evidence spans overlaps any of the other's by at least one character).

A pre-highlight may carry two kinds (issue #29: one box "deletion or oversimplification"
where both are likely). It matches an edit of any kind it carries; in the pooled figure it
counts once, in a per-kind figure it counts in each kind it carries (as a mark of that kind
only). People's edits carry one kind, so the figures between annotators are unchanged.

- precision of A against B = A's edits that match some edit of B / A's edits;
- recall of A against B = B's edits that match some edit of A / B's edits;
- F1 = 2PR / (P + R), with the four counts pooled over documents (and over annotator
  pairs) before dividing, never averaged per document.

Annotators compared with each other: on every document, each unordered pair once, the
annotator whose name sorts first is "A". Pre-highlights against annotators: the
suggestions are A, each annotator in turn is B. Kinds are normalised so that Thresh's
InfoLossQA labels count as the tool's kinds (omission = deletion, fuzzy concept =
oversimplification).

Cross-validation over documents: :func:`.document_folds.folds` splits document ids into K
folds by a hash of the id (stable across runs and machines), so anything tuned on the other
folds is scored only on documents it never saw. :func:`ratio_resamples` gives the document
bootstrap of the ratio (percentile method, :mod:`.bootstrap`), paired across machines.

Pure: plain data in, plain numbers out (no Flask, no SQLAlchemy).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

import numpy as np

from annotator.agreement.bootstrap import multiplicities, summarize
from annotator.agreement.document_folds import folds
from annotator.core.marks import KIND_ALIASES, LOSS_KINDS, Mark, Span  # noqa: F401  (re-exported)


@dataclass
class Counts:
    """Pooled counts: A's edits (and how many matched), B's edits (and how many matched)."""

    a_total: int = 0
    a_matched: int = 0
    b_total: int = 0
    b_matched: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.a_total + other.a_total, self.a_matched + other.a_matched,
                      self.b_total + other.b_total, self.b_matched + other.b_matched)

    @property
    def precision(self) -> float | None:
        return self.a_matched / self.a_total if self.a_total else None

    @property
    def recall(self) -> float | None:
        return self.b_matched / self.b_total if self.b_total else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def to_dict(self) -> dict:
        rounded = lambda v: None if v is None else round(v, 4)  # noqa: E731
        return {"precision": rounded(self.precision), "recall": rounded(self.recall),
                "f1": rounded(self.f1), "a_edits": self.a_total, "b_edits": self.b_total}


def spans_overlap(a: Iterable[Sequence[int]], b: Iterable[Sequence[int]]) -> bool:
    """Does any span of ``a`` share at least one character with any span of ``b``?"""
    b = list(b)
    return any(x[0] < y[1] and y[0] < x[1] for x in a for y in b)


def _overlap(a: Mark, b: Mark) -> bool:
    if a.also or b.also:
        same = bool(set(a.kinds) & set(b.kinds))
    else:
        same = a.kind == b.kind
    return same and spans_overlap(a.spans, b.spans)


def match(a: Sequence[Mark], b: Sequence[Mark], kind: str | None = None) -> Counts:
    """Counts for one document: A's marks against B's (optionally one kind only: a mark
    carrying that kind among others counts as a mark of that kind)."""
    if kind is not None:
        a = [m.as_kind(kind) for m in a if kind in m.kinds]
        b = [m.as_kind(kind) for m in b if kind in m.kinds]
    return Counts(len(a), sum(any(_overlap(x, y) for y in b) for x in a),
                  len(b), sum(any(_overlap(y, x) for x in a) for y in b))


Annotations = Mapping[str, Mapping[str, Sequence[Mark]]]  # document -> annotator -> marks


def _documents(docs: Annotations, only: Iterable[str] | None):
    """The documents of ``docs``, or those of them named in ``only``."""
    keep = None if only is None else set(only)
    return [(d, by) for d, by in docs.items() if keep is None or d in keep]


def between_annotators(docs: Annotations, kind: str | None = None,
                       only: Iterable[str] | None = None) -> Counts:
    """Annotators against each other: every unordered pair on every document, pooled."""
    total = Counts()
    for _doc_id, by_annotator in _documents(docs, only):
        for a, b in combinations(sorted(by_annotator), 2):
            total += match(by_annotator[a], by_annotator[b], kind)
    return total


def any_loss(docs: Annotations) -> dict[str, dict[str, list[Mark]]]:
    """The same annotations with every mark carrying every loss kind: scored with
    :func:`between_annotators`, the kind-agnostic figure (an edit matches any loss edit of
    the other side), the ceiling of what a box carrying both kinds can gain from its kinds."""
    return {d: {name: [Mark(LOSS_KINDS[0], m.spans, LOSS_KINDS[1:]) for m in marks]
                for name, marks in by.items()} for d, by in docs.items()}


def machine_against_annotators(docs: Annotations, machine: Mapping[str, Sequence[Mark]],
                               kind: str | None = None,
                               only: Iterable[str] | None = None) -> Counts:
    """Pre-highlights (A) against each annotator of the document in turn (B), pooled."""
    total = Counts()
    for doc_id, by_annotator in _documents(docs, only):
        for name in sorted(by_annotator):
            total += match(machine.get(doc_id, ()), by_annotator[name], kind)
    return total


def per_annotator(docs: Annotations, machine: Mapping[str, Sequence[Mark]]) -> dict:
    """F1 of the pre-highlights with each annotator, beside that annotator's F1 with the
    others (both pooled over the documents the annotator marked)."""
    names = sorted({n for by in docs.values() for n in by})
    out = {}
    for name in names:
        with_machine, with_people = Counts(), Counts()
        for doc_id, by_annotator in docs.items():
            if name not in by_annotator:
                continue
            with_machine += match(machine.get(doc_id, ()), by_annotator[name])
            for other in sorted(by_annotator):
                if other != name:
                    with_people += match(by_annotator[other], by_annotator[name])
        out[name] = {"pre-highlights": with_machine.to_dict(),
                     "other annotators": with_people.to_dict()}
    return out


def summary(docs: Annotations, machine: Mapping[str, Sequence[Mark]],
            only: Iterable[str] | None = None) -> dict:
    """Per kind and overall: annotators with each other, pre-highlights with annotators,
    and the ratio of the two F1 values (how close the machine comes to a second person)."""
    only = None if only is None else list(only)
    out = {}
    for kind in (*LOSS_KINDS, None):
        people = between_annotators(docs, kind, only)
        mach = machine_against_annotators(docs, machine, kind, only)
        ratio = (mach.f1 / people.f1) if mach.f1 is not None and people.f1 else None
        out[kind or "all"] = {"annotators": people.to_dict(), "pre-highlights": mach.to_dict(),
                              "ratio": None if ratio is None else round(ratio, 4)}
    return out


def ratio_resamples(docs: Annotations, machines: Sequence[Mapping[str, Sequence[Mark]]],
                    kind: str | None = None, resamples: int = 1000,
                    seed: int = 0) -> np.ndarray:
    """Document bootstrap of the ratio (machine F1 / annotators' F1) for each of
    ``machines``: a (len(machines), resamples) array, NaN where a resample leaves a figure
    undefined. Documents with two or more annotators are resampled with replacement; every
    machine is scored on the same resamples, so differences between rows are paired."""
    ids = sorted(d for d, by in docs.items() if len(by) >= 2)
    if not ids or not resamples:  # nothing to resample: no figure is defined
        return np.full((len(machines), max(0, resamples)), np.nan)
    one = {d: {d: docs[d]} for d in ids}
    people = np.array([_four(between_annotators(one[d], kind)) for d in ids], dtype=float)
    weights = multiplicities(len(ids), resamples, seed)
    people_f1 = _f1(weights @ people)
    out = []
    for machine in machines:
        counts = np.array([_four(machine_against_annotators(one[d], machine, kind)) for d in ids],
                          dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            # As in summary(): no ratio where the annotators' F1 is 0 or undefined.
            out.append(np.where(people_f1 > 0, _f1(weights @ counts) / people_f1, np.nan))
    return np.array(out).reshape(len(machines), -1)


def ratio_interval(values: np.ndarray, level: float = 0.95) -> list[float] | None:
    """[low, high] percentile interval of ratio resamples (:func:`.bootstrap.summarize`),
    None when no resample defines the ratio."""
    found = summarize(values, level, values.size)
    return None if found["low"] is None else [round(found["low"], 4), round(found["high"], 4)]


def _four(c: Counts) -> tuple[int, int, int, int]:
    return c.a_total, c.a_matched, c.b_total, c.b_matched


def _f1(counts: np.ndarray) -> np.ndarray:
    """Pooled F1 of rows of (A edits, A matched, B edits, B matched); NaN if undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts[:, 1] / counts[:, 0]
        r = counts[:, 3] / counts[:, 2]
        return np.where(p + r > 0, 2 * p * r / (p + r), np.where(np.isnan(p + r), np.nan, 0.0))


def annotations_from_edits(edits: Iterable) -> dict[str, dict[str, list[Mark]]]:
    """document -> annotator -> marks, from edits shaped like :class:`agreement.data.Edit`
    (``document_id``, ``annotator``, ``edit_type``, ``spans`` with side/start/end)."""
    out: dict[str, dict[str, list[Mark]]] = {}
    for edit in edits:
        by = out.setdefault(str(edit.document_id), {})
        marks = by.setdefault(str(edit.annotator), [])
        mark = Mark.of(edit.edit_type, [(s.start, s.end) for s in edit.spans if s.side == "source"])
        if mark is not None:
            marks.append(mark)
    return out


def report_section(docs: Annotations, machine: Mapping[str, Sequence[Mark]], k: int = 5) -> dict:
    """The agreement report's "pre-highlights as an annotator".

    Only documents with two or more annotators count (the people's figure needs a pair).
    ``folds``: the same figures on each of ``k`` folds of documents (stable by id), so the
    spread over documents shows next to the pooled value; ``ratio_interval``: the 95%
    document-bootstrap interval of the overall ratio (:func:`ratio_resamples`).
    """
    paired = {d: by for d, by in docs.items() if len(by) >= 2}
    section = {"measure": "edit matches when a same-kind edit of the other side overlaps it "
                          "in the original (a pre-highlight carrying two kinds: an edit of "
                          "either); pooled precision, recall, F1",
               "documents": len(paired),
               "overall": summary(paired, machine),
               "per_annotator": per_annotator(paired, machine),
               "ratio_interval": ratio_interval(ratio_resamples(paired, [machine])[0]),
               "folds": []}
    for ids in folds(paired, k):
        if ids:
            part = summary(paired, machine, only=ids)["all"]
            section["folds"].append({"documents": len(ids),
                                     "pre-highlights_f1": part["pre-highlights"]["f1"],
                                     "annotators_f1": part["annotators"]["f1"],
                                     "ratio": part["ratio"]})
    return section
