"""The pre-highlight measure's edit match, once: an edit of one side *matches* when an edit
of the same kind from the other side overlaps it in the original (any of its evidence spans
shares at least one character with any of the other's, :func:`.overlap.spans_overlap`).

Issue #14, after InfoLossQA (Trienes et al. 2024); the figures built on it (per annotator,
folds, bootstrap, the report section) are in ``agreement/prehighlight_agreement.py``, whose
docstring states the whole measure. Here so that align's ``--learn`` (which chooses
thresholds on it) and agreement count with the same rule without align importing agreement.

- precision of A against B = A's edits that match some edit of B / A's edits;
- recall of A against B = B's edits that match some edit of A / B's edits;
- F1 = 2PR / (P + R), the counts pooled over documents (and annotator pairs) first.

Pure: plain data in, plain numbers out (no Flask, no SQLAlchemy).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from annotator.core.overlap import f1_of, spans_overlap
from annotator.core.vocabulary import EDIT_TYPE_OF_INFOLOSSQA_CATEGORY

Span = tuple[int, int]

LOSS_KINDS = ("deletion", "oversimplification")
# Thresh / InfoLossQA category names (and the kinds themselves) -> the tool's suggestion kinds.
KIND_ALIASES = {**EDIT_TYPE_OF_INFOLOSSQA_CATEGORY, "fuzzy concept": "oversimplification",
                **{kind: kind for kind in LOSS_KINDS}}


@dataclass(frozen=True)
class Mark:
    """One edit reduced to what the measure looks at: its kind and its spans in the original.

    ``also``: further kinds a pre-highlight carries beside its primary ``kind`` (empty for
    people's edits and single-kind boxes)."""

    kind: str
    spans: tuple[Span, ...]
    also: tuple[str, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every kind the mark carries, the primary one first."""
        return (self.kind, *self.also)

    def as_kind(self, kind: str) -> "Mark":
        """The mark as a single-kind mark of ``kind`` (one of its kinds)."""
        return self if not self.also and self.kind == kind else Mark(kind, self.spans)

    @classmethod
    def of(cls, kind: str, spans: Iterable[Sequence[int]],
           also: Iterable[str] = ()) -> "Mark | None":
        """A mark with the kind(s) normalised; None for kinds outside the measure or no
        spans (``also``: further kinds it carries; those outside the measure are left out)."""
        normal = KIND_ALIASES.get(kind)
        clean = tuple((int(s), int(e)) for s, e in spans if int(e) > int(s))
        if normal is None or not clean:
            return None
        more = tuple(dict.fromkeys(KIND_ALIASES[k] for k in also
                                   if k in KIND_ALIASES and KIND_ALIASES[k] != normal))
        return cls(normal, clean, more)


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
        return f1_of(self.precision, self.recall)

    def to_dict(self) -> dict:
        rounded = lambda v: None if v is None else round(v, 4)  # noqa: E731
        return {"precision": rounded(self.precision), "recall": rounded(self.recall),
                "f1": rounded(self.f1), "a_edits": self.a_total, "b_edits": self.b_total}


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
