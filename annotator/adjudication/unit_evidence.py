"""What a unit's edits show, as the automatic rules and their reasons use it (pure; no
database).

A reason a lead reads ("2 of 3 annotators marked no edit overlapping it") must be true of
the stored edits (issue 42: 46% of such rejections were false when a unit held one edit per
annotator). So every claim is computed here from the edits themselves:

- ``marked``: who has an edit in the unit, and which (one annotator may have several: the
  two halves of a split, Heineman et al. 2023's SALSA granularity);
- ``silent``: the annotators none of whose edits in the whole document touches the unit's
  evidence (a shared token on a side both have spans on);
- ``elsewhere``: the annotators outside the unit whose edits do touch it (grouped in
  another unit): they are never called silent, only, when all those edits are of other
  types, said to have marked no edit *of the unit's type* overlapping it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from annotator.adjudication.grouping import (
    EditView,
    document_tokens,
    evidence_tokens,
    union_evidence,
)
from annotator.core.overlap import shares_a_token


@dataclass
class UnitEvidence:
    everyone: list[str]  # the document's annotators, sorted
    marked: dict[str, list[EditView]]  # annotator -> their top-level edits in the unit
    silent: list[str]
    elsewhere: dict[str, list[int]]  # annotator -> ids of their edits touching the unit
    elsewhere_types: dict[str, list[str]] = field(default_factory=dict)  # their types

    def silent_on(self, types: set[str]) -> list[str]:
        """The annotators outside the unit with no edit of one of ``types`` touching it
        (the silent ones, and those whose touching edits are all of other types)."""
        return [n for n in self.everyone if n not in self.marked
                and not set(self.elsewhere_types.get(n, ())) & types]

    @property
    def n(self) -> int:
        return len(self.everyone)

    def voters(self) -> dict[str, list[str]]:
        """Edit type -> the annotators with an edit of that type in the unit."""
        out: dict[str, list[str]] = {}
        for name, edits in sorted(self.marked.items()):
            for edit_type in sorted({e.edit_type for e in edits}):
                out.setdefault(edit_type, []).append(name)
        return out

    def describe(self, names: Sequence[str] | None = None) -> str:
        """"ana (deletion), ben (substitution as 2 edits)": who marked what."""
        names = sorted(self.marked) if names is None else names
        return ", ".join(f"{name} ({_marks(self.marked[name])})" for name in names)

    def elsewhere_text(self) -> str:
        return ", ".join(f"{name}'s edit{'s' if len(ids) > 1 else ''} "
                         f"{', '.join(map(str, ids))}"
                         for name, ids in sorted(self.elsewhere.items()))


def _marks(edits: Sequence[EditView]) -> str:
    counts: dict[str, int] = {}
    for e in edits:
        counts[e.edit_type] = counts.get(e.edit_type, 0) + 1
    return ", ".join(t if c == 1 else f"{t} as {c} edits" for t, c in sorted(counts.items()))


def unit_evidence(members: Sequence[EditView], everyone: set[str] | Sequence[str],
                  document_edits: Sequence[EditView] | None, source: str,
                  target: str) -> UnitEvidence:
    """The evidence of one unit (``members``: its edits, constituents included) against the
    document's other edits (``document_edits``; None: the unit's edits are all there is)."""
    inside = {m.id for m in members}
    marked: dict[str, list[EditView]] = {}
    for m in sorted(members, key=lambda e: e.id):
        if m.parent_id not in inside:
            marked.setdefault(m.annotator, []).append(m)
    outside = [n for n in sorted(everyone) if n not in marked]
    elsewhere: dict[str, list[int]] = {}
    kinds: dict[str, set] = {}
    others = [e for e in document_edits or () if e.id not in inside and e.annotator in outside]
    if others:
        tokens = document_tokens(source, target)
        unit = union_evidence([evidence_tokens(m, tokens) for m in members])
        for e in sorted(others, key=lambda e: e.id):
            if shares_a_token(unit, evidence_tokens(e, tokens)):
                elsewhere.setdefault(e.annotator, []).append(e.id)
                kinds.setdefault(e.annotator, set()).add(e.edit_type)
    return UnitEvidence(everyone=sorted(everyone), marked=marked,
                        silent=[n for n in outside if n not in elsewhere], elsewhere=elsewhere,
                        elsewhere_types={n: sorted(t) for n, t in kinds.items()})


def names(items: Sequence[str]) -> str:
    """"ana", "ana and ben", "ana, ben and cy"."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
