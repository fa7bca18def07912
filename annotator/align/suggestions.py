"""The Suggestion record every pre-highlighter returns (docs/rules.md §3).

A suggestion carries its kind (the UI colours by it), character spans on each side, a
score in [0, 1], the method that produced it and a one-line explanation shown as a
tooltip. An oversimplification whose target span was chosen as the rendering of its source
phrase also carries that rendering's own score, ``target_score``: the cosine similarity of
the two (MiniLM; :func:`.phrase_rendering.rendering`), so a weak rendering can be told from
a confident box. A deletion / oversimplification box where both kinds are likely carries
both (issue #29): ``kind`` is the primary one (what accepting it creates) and
``kind_scores`` the probability of each ({kind: p}); None for a single-kind suggestion.
Annotators accept or dismiss it, which is how per-kind precision is measured.

``suggest`` and ``suggest_many`` live in :mod:`annotator.align.pipeline` and are
re-exported here and from :mod:`annotator.align`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.core.vocabulary import SUGGESTION_KINDS as KINDS  # in display order

OVERGENERATION_CATEGORIES = ("leaked_instruction", "ungrounded_injection", "repetitive", "other")


@dataclass
class Suggestion:
    kind: str
    source_spans: list[tuple[int, int]] = field(default_factory=list)
    target_spans: list[tuple[int, int]] = field(default_factory=list)
    score: float = 0.0
    method: str = ""
    explanation: str = ""
    category: str | None = None
    target_score: float | None = None
    kind_scores: dict[str, float] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every kind the suggestion carries, the primary one first."""
        return (self.kind, *(k for k in self.kind_scores or () if k != self.kind))

    def to_dict(self) -> dict:
        """JSON-ready dict with a stable key order."""
        return {
            "kind": self.kind,
            "source_spans": [[int(s), int(e)] for s, e in self.source_spans],
            "target_spans": [[int(s), int(e)] for s, e in self.target_spans],
            "score": round(float(self.score), 4),
            "target_score": (None if self.target_score is None
                             else round(float(self.target_score), 4)),
            "method": self.method,
            "explanation": self.explanation,
            "category": self.category,
            "kind_scores": (None if not self.kind_scores else
                            {k: round(float(v), 4) for k, v in self.kind_scores.items()}),
        }

    def sort_key(self) -> tuple:
        first_t = self.target_spans[0] if self.target_spans else (-1, -1)
        first_s = self.source_spans[0] if self.source_spans else (-1, -1)
        return (KINDS.index(self.kind) if self.kind in KINDS else len(KINDS),
                first_s, first_t, self.method)

