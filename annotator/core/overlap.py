"""Span overlap and F1, once: every measure of "how much do two spans overlap" the tool uses,
each named for what it counts, and the F1 formulas built on them.

The measures are really different and each has its own users:

- :func:`token_iou`: token IoU of two whitespace-token ranges, the partial match of span
  F1 (DESIGN.md "span F1: exact + partial (token-IoU >= 0.5)"; Trienes et al. 2024,
  InfoLossQA; docs/rules.md §5), used by ``agreement/spans.py`` and the detector tables
  of ``meta_evaluation``;
- :func:`token_set_overlap`: token IoU and overlap coefficient of two evidences given as
  token-index sets per side, used by adjudication grouping (``adjudication/grouping.py``);
  :func:`shares_a_token` (any shared token) says who touched a unit
  (``adjudication/unit_evidence.py``); :func:`overlap_degree` (none / partial / complete
  token sets) groups question pairs in the agreement report's descriptives;
- :func:`shared_characters`: the number of characters two span lists share, summed over
  span pairs, used to pair up edits for answer agreement (``agreement/units.py``);
- :func:`spans_overlap`: do two span lists share at least one character, the edit match of
  the pre-highlight measure (issue #14; ``core/edit_match.py``), whether a span falls in a
  sentence (sentence-level alpha, DESIGN.md; align's ``--learn`` labels and sentence
  groups) and align's own span tests.

Tokens are the whitespace-separated tokens of a text (:func:`whitespace_tokens`); a token
belongs to a span when their character ranges overlap (:func:`token_range`).

Pure: plain data in, plain numbers out (no Flask, no SQLAlchemy).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

import numpy as np

_TOKEN = re.compile(r"\S+")


def whitespace_tokens(text: str) -> np.ndarray:
    """Character ranges (n x 2) of the whitespace-separated tokens of ``text``."""
    spans = [m.span() for m in _TOKEN.finditer(text)]
    return np.array(spans, dtype=np.int64).reshape(-1, 2)


def token_range(tokens: np.ndarray, start: int, end: int) -> tuple[int, int]:
    """Half-open range [lo, hi) of the tokens overlapping characters [start, end)."""
    if len(tokens) == 0 or end <= start:
        return (0, 0)
    lo = int(np.searchsorted(tokens[:, 1], start, side="right"))
    hi = int(np.searchsorted(tokens[:, 0], end, side="left"))
    return (lo, max(lo, hi))


def token_iou(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Token IoU |A & B| / |A | B| of two token index ranges; 0 when either is empty
    (span F1's partial match, DESIGN.md)."""
    la, lb = a[1] - a[0], b[1] - b[0]
    if la <= 0 or lb <= 0:
        return 0.0
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    return inter / (la + lb - inter)


def token_set_overlap(a: Mapping[str, frozenset], b: Mapping[str, frozenset]
                      ) -> tuple[float, float]:
    """(token IoU, overlap coefficient) of two evidences (side -> token indices) over the
    sides both have: |A & B| / |A | B| and |A & B| / min(|A|, |B|), counts summed over
    those sides (adjudication grouping, docs/adjudication.md)."""
    shared = [s for s in a if s in b]
    inter = sum(len(a[s] & b[s]) for s in shared)
    if not inter:
        return 0.0, 0.0
    union = sum(len(a[s] | b[s]) for s in shared)
    smaller = min(sum(len(a[s]) for s in shared), sum(len(b[s]) for s in shared))
    return inter / union, inter / smaller


def shares_a_token(a: Mapping[str, frozenset], b: Mapping[str, frozenset]) -> bool:
    """Do two evidences (side -> token indices) share a token on some side? (who touched an
    adjudication unit, adjudication/unit_evidence.py)."""
    return any(a[s] & b[s] for s in a if s in b)


def overlap_degree(a: set, b: set) -> str:
    """"none", "partial" or "complete": how two evidences' token sets overlap (DESIGN.md,
    "question similarity as a function of evidence overlap", agreement/descriptives.py)."""
    if not a & b:
        return "none"
    return "complete" if a == b else "partial"


def shared_characters(a: Iterable[Sequence[int]], b: Iterable[Sequence[int]]) -> int:
    """Characters the spans of ``a`` share with those of ``b``, summed over every pair
    (how closely two edits' evidence agrees, agreement/units.py)."""
    b = list(b)
    return sum(max(0, min(x[1], y[1]) - max(x[0], y[0])) for x in a for y in b)


def spans_overlap(a: Iterable[Sequence[int]], b: Iterable[Sequence[int]]) -> bool:
    """Does any span of ``a`` share at least one character with any span of ``b``?
    (touching, ``[0, 5)`` and ``[5, 9)``, is not overlapping)."""
    b = list(b)
    return any(x[0] < y[1] and y[0] < x[1] for x in a for y in b)


def f1_from_counts(counts: np.ndarray) -> np.ndarray:
    """F1 = 2TP / (2TP + FP + FN) over the last axis (TP, FP, FN); NaN when 0/0
    (= 2PR/(P+R); span F1, docs/rules.md §5)."""
    c = np.asarray(counts, dtype=np.float64)
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    denom = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), np.nan)


def macro_f1(per_label: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the defined (non-NaN) per-label F1 values."""
    per_label = np.asarray(per_label, dtype=np.float64)
    defined = ~np.isnan(per_label)
    total = np.where(defined, per_label, 0.0).sum(axis=-1)
    n = defined.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def f1_of(precision: float | None, recall: float | None) -> float | None:
    """F1 = 2PR / (P + R); 0 when both are 0, None when either is undefined (the
    pre-highlight measure, whose precision and recall count different sides' edits)."""
    if precision is None or recall is None:
        return None
    total = precision + recall
    return 0.0 if total == 0 else 2 * precision * recall / total
