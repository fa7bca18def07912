"""One edit reduced to what the pre-highlight overlap measure looks at: its kind(s) and its
spans in the original (:mod:`annotator.agreement.prehighlight_agreement`, issue #14, after
InfoLossQA, Trienes et al. 2024). Built by the pre-highlighters (``align``) from their
suggestions and by the measure from people's edits, so it sits on the floor both stand on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

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
