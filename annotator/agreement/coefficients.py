"""Chance-corrected agreement on categorical ratings: Randolph, Fleiss, Cohen, percent,
and Devaraj-style majority statistics.

Every function takes plain counts or value lists. Scalar functions raise
:class:`UndefinedAgreement` with the reason when the coefficient has no value; the ``*_batch``
forms take summed per-document statistics with a leading bootstrap axis and return NaN there.

Per-item observed agreement (Fleiss 1971): for an item with n_i ratings and n_ij of them in
category j, P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1)), the proportion of agreeing
ordered rater pairs. Items with fewer than two ratings have no rater pair and are dropped;
items may have different numbers of raters (each P_i uses its own n_i).
"""

from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence

import numpy as np

from .errors import UndefinedAgreement


def category_counts(items: Sequence[Sequence[object]], categories: Sequence[object]) -> np.ndarray:
    """Ratings per item (None = missing) -> counts n_ij (items x categories)."""
    index = {c: j for j, c in enumerate(categories)}
    counts = np.zeros((len(items), len(categories)), dtype=np.float64)
    for i, values in enumerate(items):
        for v in values:
            if v is None:
                continue
            if v not in index:
                raise UndefinedAgreement(
                    f"value {v!r} is not one of the categories {list(categories)}"
                )
            counts[i, index[v]] += 1
    return counts


def item_agreement(counts: np.ndarray) -> np.ndarray:
    """P_i per item (Fleiss 1971); NaN for items with fewer than two ratings."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (counts * (counts - 1)).sum(axis=1) / (n * (n - 1))
    return np.where(n >= 2, p, np.nan)


def _pairable(counts) -> np.ndarray:
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    if counts.size == 0 or counts.sum() == 0:
        raise UndefinedAgreement("all ratings are missing")
    kept = counts[counts.sum(axis=1) >= 2]
    if kept.shape[0] == 0:
        raise UndefinedAgreement("no item has ratings from two or more raters (one rater only?)")
    return kept


def percent_agreement(counts) -> float:
    """Observed agreement P_o = mean_i P_i (Fleiss 1971); for two raters the share of
    items on which they agree. Items with fewer than two ratings are dropped."""
    return float(np.mean(item_agreement(_pairable(counts))))


def randolph_kappa(counts, k: int | None = None) -> float:
    """Randolph's (2005) free-marginal multirater kappa.

    kappa_free = (P_o - 1/k) / (1 - 1/k), with P_o = mean_i P_i as in Fleiss (1971) and k the
    number of categories *offered* by the schema (default: the number of columns of
    ``counts``), not only those observed. Items with fewer than two ratings are dropped; the
    remaining items may have different numbers of raters.
    """
    k = np.shape(counts)[-1] if k is None else int(k)
    if k < 2:
        raise UndefinedAgreement(f"k = {k}: Randolph's kappa needs at least two categories")
    kept = _pairable(counts)
    return float(randolph_batch(item_agreement(kept).sum(), kept.shape[0], k))


def randolph_batch(sum_p, n_items, k: int):
    """Randolph's kappa from summed P_i and item counts (any shape); NaN where n_items = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = np.asarray(sum_p, dtype=np.float64) / n_items
    return (p_o - 1.0 / k) / (1.0 - 1.0 / k)


def fleiss_kappa(counts) -> float:
    """Fleiss' (1971) kappa: (P_bar - P_e) / (1 - P_e), P_e = sum_j p_j^2, p_j = share of all
    ratings in category j. Generalised to items with different numbers of raters (p_j pools
    all ratings; P_i uses its own n_i); items with fewer than two ratings are dropped."""
    kept = _pairable(counts)
    if np.count_nonzero(kept.sum(axis=0)) < 2:
        raise UndefinedAgreement(
            "only one category was used: expected agreement is 1, kappa undefined"
        )
    return float(fleiss_batch(item_agreement(kept).sum(), kept.shape[0], kept.sum(axis=0)))


def fleiss_batch(sum_p, n_items, category_totals):
    """Fleiss' kappa from summed P_i, item counts and category totals (..., k)."""
    totals = np.asarray(category_totals, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_j = totals / totals.sum(axis=-1, keepdims=True)
        p_e = (p_j**2).sum(axis=-1)
        p_bar = np.asarray(sum_p, dtype=np.float64) / n_items
        result = (p_bar - p_e) / (1.0 - p_e)
    return np.where(p_e < 1.0 - 1e-12, result, np.nan)


def confusion_matrix(a: Sequence[object], b: Sequence[object], categories: Sequence[object]):
    """Counts of (rater a value, rater b value) over items both rated (rows = a)."""
    index = {c: j for j, c in enumerate(categories)}
    m = np.zeros((len(categories), len(categories)), dtype=np.float64)
    for x, y in zip(a, b):
        if x is not None and y is not None:
            m[index[x], index[y]] += 1
    return m


def cohen_weights(k: int, weights: str | None, values: Sequence[float] | None = None) -> np.ndarray:
    """Disagreement weights w_ij (Cohen 1968): unweighted 1 - [i == j]; linear
    |x_i - x_j| / (max - min); quadratic the square of that. ``values`` are the numeric
    category values (default 0..k-1), so the weights follow the scale's statistics values."""
    if weights is None or weights == "none":
        return 1.0 - np.eye(k)
    x = np.arange(k, dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    span = x.max() - x.min() if k > 1 else 1.0
    d = np.abs(x[:, None] - x[None, :]) / (span or 1.0)
    if weights == "linear":
        return d
    if weights == "quadratic":
        return d**2
    raise ValueError(f"unknown weights {weights!r}; expected none, linear or quadratic")


def cohen_kappa_from_confusion(matrix, weights: str | None = None, values=None) -> float:
    """Cohen's kappa (Cohen 1960; weighted: Cohen 1968) from a k x k confusion matrix.

    kappa_w = 1 - sum w_ij o_ij / sum w_ij e_ij, e_ij = row_i * col_j / N; with the
    unweighted w this equals (P_o - P_e) / (1 - P_e).
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.sum() == 0:
        raise UndefinedAgreement("the two raters share no rated item")
    value = cohen_batch(m, cohen_weights(m.shape[0], weights, values))
    if np.isnan(value):
        raise UndefinedAgreement(
            "both raters used one and the same category only: expected disagreement is 0, "
            "kappa undefined"
        )
    return float(value)


def cohen_kappa(
    a, b, categories: Sequence[object] | None = None, weights=None, values=None
) -> float:
    """Cohen's kappa between two raters' value lists (None = missing; pairs with a missing
    value are dropped)."""
    if categories is None:
        categories = sorted({v for v in (*a, *b) if v is not None}, key=str)
    if len(a) != len(b):
        raise ValueError("the two raters must rate the same items")
    return cohen_kappa_from_confusion(confusion_matrix(a, b, categories), weights, values)


def cohen_batch(matrix, w: np.ndarray):
    """Weighted kappa for confusion matrices (..., k, k); NaN where undefined."""
    m = np.asarray(matrix, dtype=np.float64)
    n = m.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = m.sum(axis=-1)[..., :, None] * m.sum(axis=-2)[..., None, :] / n[..., None, None]
        observed = (w * m).sum(axis=(-2, -1))
        expected = (w * e).sum(axis=(-2, -1))
        result = 1.0 - observed / expected
    return np.where((n > 0) & (expected > 1e-12), result, np.nan)


def majority_label(values: Sequence[Hashable]):
    """The value given by more than half of the (non-missing) ratings, else None.

    {1, 1, 2} -> 1; {2, 1, 0} -> None; a tie such as {1, 2} or {1, 1, 2, 2} -> None.
    Devaraj et al. (2022): an item where every annotator differs has no final label.
    """
    present = [v for v in values if v is not None]
    if not present:
        return None
    value, count = Counter(present).most_common(1)[0]
    return value if count * 2 > len(present) else None


def majority_stats(items: Sequence[Sequence[Hashable]], zero: Hashable) -> dict:
    """Devaraj et al. (2022) majority statistics over items with >= 2 ratings.

    - ``with_majority``: share of items that have a majority label;
    - ``nonzero_items``: items where a majority says "not ``zero``" (ratings binarised as
      value != zero, then :func:`majority_label`);
    - ``specific_majority_among_nonzero``: among those, the share that also have a majority
      on one specific label;
    - ``no_final_label``: share of items without a majority label.
    """
    rated = [[v for v in item if v is not None] for item in items]
    rated = [item for item in rated if len(item) >= 2]
    if not rated:
        raise UndefinedAgreement("no item has ratings from two or more raters")
    majorities = [majority_label(item) for item in rated]
    nonzero = [i for i, item in enumerate(rated) if majority_label([v != zero for v in item])]
    specific = sum(1 for i in nonzero if majorities[i] is not None)
    with_majority = sum(m is not None for m in majorities) / len(rated)
    return {
        "items": len(rated),
        "with_majority": with_majority,
        "no_final_label": 1.0 - with_majority,
        "nonzero_items": len(nonzero),
        "specific_majority_among_nonzero": specific / len(nonzero) if nonzero else None,
    }
