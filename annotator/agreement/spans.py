"""Span agreement between annotators: exact and partial (token-IoU) F1 per label and macro.

Definitions follow Trienes et al. (2024, InfoLossQA) and docs/rules.md §5. For one pair of
annotators on one document, one side and one label, the first annotator (by name) is "gold",
the other "predicted":

- exact: a span matches when document, label, start and end are equal. TP = number of
  matching spans (multiset intersection), FP = predicted - TP, FN = gold - TP; symmetric.
- partial: character spans become ranges of whitespace-token indices (a token belongs to a
  span when their character ranges overlap; the tokens, token IoU and F1 formulas are
  :mod:`annotator.core.overlap`'s). A predicted span matches a gold span when
  token IoU = |A & B| / |A | B| >= threshold (default 0.5). TP = gold spans with a match,
  FP = predicted spans without a match, FN = gold spans without a match.
- F1 = 2 TP / (2 TP + FP + FN) (= 2PR/(P+R) with P = TP/(TP+FP), R = TP/(TP+FN)), computed
  from TP/FP/FN summed over documents (and over annotator pairs when a document has more
  than two annotators); macro F1 = mean of the per-label F1 values that are defined.

Multi-span edits: every span of an edit counts as one span of the edit's label (default);
``first_span_only=True`` keeps only the first span of each edit on each side, which is what
the published InfoLossQA figures used.
"""

from __future__ import annotations

from itertools import combinations
from typing import Iterable, Sequence

import numpy as np

from annotator.core.overlap import token_iou, token_range, whitespace_tokens

from .data import Document, Edit

LabeledSpan = tuple[str, int, int]  # (label, start, end)


def exact_counts(gold: Sequence[LabeledSpan], pred: Sequence[LabeledSpan], labels) -> np.ndarray:
    """TP, FP, FN per label (labels x 3) for exact matching."""
    out = np.zeros((len(labels), 3), dtype=np.float64)
    for j, label in enumerate(labels):
        g = sorted((s, e) for lab, s, e in gold if lab == label)
        p = sorted((s, e) for lab, s, e in pred if lab == label)
        remaining = list(p)
        tp = 0
        for span in g:
            if span in remaining:
                remaining.remove(span)
                tp += 1
        out[j] = (tp, len(p) - tp, len(g) - tp)
    return out


def partial_counts(gold, pred, labels, tokens: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """TP, FP, FN per label (labels x 3) for token-IoU matching (not one-to-one)."""
    out = np.zeros((len(labels), 3), dtype=np.float64)
    for j, label in enumerate(labels):
        g = [token_range(tokens, s, e) for lab, s, e in gold if lab == label]
        p = [token_range(tokens, s, e) for lab, s, e in pred if lab == label]
        hit = np.array([[token_iou(a, b) >= threshold - 1e-12 for b in p] for a in g],
                       dtype=bool).reshape(len(g), len(p))
        tp = int(hit.any(axis=1).sum())
        fp = int((~hit.any(axis=0)).sum())
        out[j] = (tp, fp, len(g) - tp)
    return out


def edit_spans(
    edits: Iterable[Edit], side: str, first_span_only: bool = False
) -> list[LabeledSpan]:
    """(label, start, end) of the spans on ``side`` of ``edits`` (see module rule)."""
    out = []
    for e in edits:
        spans = [s for s in e.spans if s.side == side]
        if first_span_only:
            spans = spans[:1]
        out.extend((e.edit_type, s.start, s.end) for s in spans)
    return out


def span_statistics(documents: Sequence[Document], edits: Sequence[Edit],
                    annotators: dict[str, list[str]], side: str, labels: Sequence[str],
                    threshold: float = 0.5, first_span_only: bool = False) -> dict:
    """Per-document TP/FP/FN arrays (documents x labels x 3) for exact and partial matching,
    summed over the annotator pairs of each document, plus the pairs seen."""
    by_doc_ann: dict[tuple[str, str], list[Edit]] = {}
    for e in edits:
        by_doc_ann.setdefault((e.document_id, e.annotator), []).append(e)
    exact = np.zeros((len(documents), len(labels), 3))
    partial = np.zeros_like(exact)
    pairs: dict[str, int] = {}
    for d, doc in enumerate(documents):
        text = doc.source if side == "source" else doc.target
        tokens = whitespace_tokens(text)
        for a, b in combinations(annotators.get(doc.id, []), 2):
            gold = edit_spans(by_doc_ann.get((doc.id, a), []), side, first_span_only)
            pred = edit_spans(by_doc_ann.get((doc.id, b), []), side, first_span_only)
            exact[d] += exact_counts(gold, pred, labels)
            partial[d] += partial_counts(gold, pred, labels, tokens, threshold)
            key = f"{a}|{b}"
            pairs[key] = pairs.get(key, 0) + 1
    return {"exact": exact, "partial": partial, "pairs": pairs}
