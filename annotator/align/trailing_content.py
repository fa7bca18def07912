"""Trailing content: the SimpleOG overgeneration rule (docs/rules.md §3.1).

SimpleOG flags a simplification that keeps going after it has finished rendering its
source sentence: leaked model instructions ("(I chose 'rephrase' as the internal
simplification strategy)"), injected facts, repetitions. The rule, reproduced exactly:

1. word-tokenize the source sentence and the prediction with NLTK's word tokenizer
   (``NLTKWordTokenizer``; token strings are the original substrings at the token spans,
   so a straight double quote stays ``"`` instead of becoming `````/``''``);
2. align the two token lists with ``difflib.SequenceMatcher(None, source_tokens,
   prediction_tokens)`` using its default arguments (``autojunk=True``, which only changes
   anything for predictions of 200 tokens or more) and take ``get_matching_blocks()``;
3. the prediction tokens after the last non-empty matching block are the *trailing
   content*. With no matching block at all, the whole prediction trails.

Trailing length in characters = end offset of the last trailing token minus start offset
of the first trailing token, both in the original prediction string (inner whitespace
counts, surrounding whitespace does not). ``flagged`` = length >= 25: shorter tails are
kept as noise (a final word or punctuation of rephrasing). The study reports ~95%
precision of this rule (111 of 117 flagged abstracts confirmed). A document is positive
when any of its sentences is flagged (:func:`document_is_positive`).

Unmatched source token runs are *deletions* and unmatched prediction runs that are
followed by a match are *mid-text insertions*; both are expected in simplification and
are returned for the other detectors, not flagged here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Iterable

from .text import word_spans

TRAILING_MIN_CHARS = 25


@dataclass(frozen=True)
class TrailingResult:
    """Outcome of the trailing rule for one (source sentence, prediction) pair.

    Offsets are character offsets: ``trailing_span`` and ``insertions`` index the
    prediction, ``deletions`` the source sentence.
    """

    trailing_span: tuple[int, int] | None
    trailing_chars: int
    flagged: bool
    deletions: tuple[tuple[int, int], ...] = field(default=())
    insertions: tuple[tuple[int, int], ...] = field(default=())

    def as_tuple(self) -> tuple:
        return (self.trailing_span, self.trailing_chars, self.flagged,
                tuple(self.deletions), tuple(self.insertions))


def _runs(
    spans: list[tuple[int, int]], ranges: list[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """Character spans of token-index ranges [i, j) (empty ranges dropped)."""
    return tuple((spans[i][0], spans[j - 1][1]) for i, j in ranges if j > i)


def trailing_from_spans(
    source: str,
    source_spans: list[tuple[int, int]],
    prediction: str,
    prediction_spans: list[tuple[int, int]],
    min_chars: int = TRAILING_MIN_CHARS,
) -> TrailingResult:
    """The rule on pre-computed token spans (lets the batch path reuse tokenizations)."""
    a = [source[s:e] for s, e in source_spans]
    b = [prediction[s:e] for s, e in prediction_spans]
    blocks = [m for m in SequenceMatcher(None, a, b).get_matching_blocks() if m.size > 0]
    deleted: list[tuple[int, int]] = []
    inserted: list[tuple[int, int]] = []
    prev_a = prev_b = 0
    for block in blocks:
        deleted.append((prev_a, block.a))
        inserted.append((prev_b, block.b))
        prev_a, prev_b = block.a + block.size, block.b + block.size
    deleted.append((prev_a, len(a)))
    trail_start = prev_b  # first prediction token after the last matching block
    if trail_start < len(b):
        span = (prediction_spans[trail_start][0], prediction_spans[-1][1])
        chars = span[1] - span[0]
    else:
        span, chars = None, 0
    return TrailingResult(
        trailing_span=span,
        trailing_chars=chars,
        flagged=chars >= min_chars,
        deletions=_runs(source_spans, deleted),
        insertions=_runs(prediction_spans, inserted),
    )


def trailing_content(source_sentence: str, prediction: str,
                     min_chars: int = TRAILING_MIN_CHARS) -> TrailingResult:
    """Apply the SimpleOG trailing rule to one sentence pair (see module docstring)."""
    return trailing_from_spans(source_sentence, word_spans(source_sentence),
                               prediction, word_spans(prediction), min_chars)


def document_is_positive(results: Iterable[TrailingResult]) -> bool:
    """SimpleOG's OR rule: a document is positive if any of its sentences is flagged."""
    return any(r.flagged for r in results)
