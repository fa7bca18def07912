"""Bootstrap resamples of metric-human correlations, computed from resample counts.

A resample of n items drawn with replacement is the vector of how often each item was drawn
(``counts``, one row per resample). Pearson's r of a resample is the count-weighted Pearson
of the original values, and its Spearman's rho the count-weighted Pearson of the resample's
average ranks, which follow from the counts in the original sort order (a value's rank is
the count of drawn items below it plus half of the drawn items tied with it, plus one half).
Both are then a few matrix products for every resample at once, instead of one scipy call
per resample. Kendall's tau-b and tau-c of every resample come from one pass over the items
with a Fenwick tree whose cells hold a weight per resample. Tests check all four against
scipy on the expanded resamples.
"""

from __future__ import annotations

import numpy as np


def resample_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples`` x ``n`` counts of n draws with replacement (numpy's PCG64)."""
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    flat = (draws + (np.arange(resamples) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(np.float64)


def weighted_pearson(counts: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each resample; ``x``, ``y`` are vectors (one value per item) or
    matrices (one row per resample). NaN where a side does not vary."""
    total = counts.sum(axis=1)

    def dot(a):
        return (counts * a).sum(axis=1) if a.ndim == 2 else counts @ a

    mean_x, mean_y = dot(x) / total, dot(y) / total
    cov = dot(x * y) / total - mean_x * mean_y
    var_x = dot(x * x) / total - mean_x ** 2
    var_y = dot(y * y) / total - mean_y ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(var_x * var_y)
    scale = np.maximum(np.abs(mean_x), 1.0) * np.maximum(np.abs(mean_y), 1.0)
    r[(var_x <= 1e-12 * scale) | (var_y <= 1e-12 * scale)] = np.nan
    return np.clip(r, -1.0, 1.0)


def resample_ranks(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties averaged) of every item within each resample."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    group_start = np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    item_group = np.empty(len(values), dtype=np.intp)
    item_group[order] = np.cumsum(group_start) - 1  # tie group of each item
    drawn = np.add.reduceat(counts[:, order], np.flatnonzero(group_start), axis=1)
    mid = np.cumsum(drawn, axis=1)  # drawn at or below each group ...
    mid -= drawn / 2 - 0.5  # ... less half the group, plus one half: the average rank
    return mid[:, item_group]


def bootstrap_correlations(human: np.ndarray, metrics: dict[str, np.ndarray],
                           counts: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """{metric: {pearson, spearman, kendall_b, kendall_c: one value per resample}}, every
    metric over the same resamples (so differences between metrics are paired)."""
    found: dict[str, dict[str, np.ndarray]] = {}
    human_ranks = resample_ranks(counts, human)
    for name, metric in metrics.items():
        tau_b, tau_c = weighted_kendall(counts, human, metric)
        found[name] = {"pearson": weighted_pearson(counts, human, metric),
                       "spearman": weighted_pearson(counts, human_ranks,
                                                    resample_ranks(counts, metric)),
                       "kendall_b": tau_b, "kendall_c": tau_c}
    return found


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """0-based dense rank of each item (tied values share a rank)."""
    return np.unique(values, return_inverse=True)[1]


def weighted_kendall(counts: np.ndarray, human: np.ndarray,
                     metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b and tau-c of every resample at once.

    S = sum over pairs of drawn items of sgn(dh) sgn(dm) (symmetric in the two sides) is
    counted group by group along the side with fewer distinct values, with a Fenwick tree
    over the other side's ranks whose cells hold one weight per resample: each item adds
    w_j (weight drawn below it - weight drawn above it) among the items of lower groups
    (items in the same group are tied there: sgn = 0). tau-b = S / sqrt((N0 - T_h)(N0 - T_m))
    with N0 = n(n-1)/2 and T the pairs tied on one side (copies of one item are tied on
    both); tau-c = 2 S / (n^2 (k - 1) / k) with k the fewer distinct values of the two sides
    among the drawn items (scipy's definitions)."""
    m_rank, h_rank = _dense_ranks(metric), _dense_ranks(human)
    outer, inner = (h_rank, m_rank) if h_rank.max() <= m_rank.max() else (m_rank, h_rank)
    s = _signed_pairs(counts, outer, inner)
    total = counts.sum(axis=1)
    n0 = total * (total - 1) / 2
    t_h = _tied_pairs(counts, h_rank)
    t_m = _tied_pairs(counts, m_rank)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((n0 - t_h) * (n0 - t_m))
        distinct = np.minimum(_distinct(counts, h_rank), _distinct(counts, m_rank))
        tau_c = 2 * s / (total ** 2 * (distinct - 1) / distinct)
    tau_b[~np.isfinite(tau_b)] = np.nan
    tau_c[~np.isfinite(tau_c)] = np.nan
    return tau_b, tau_c


def _signed_pairs(counts: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """S per resample: groups of equal ``outer`` rank in increasing order; each group's
    items query the tree (ranks of ``inner``) before any of them is added."""
    weights = np.ascontiguousarray(counts.T)  # one row of resample weights per item
    size = int(inner.max()) + 1
    tree = np.zeros((size + 1, counts.shape[0]))
    seen = np.zeros(counts.shape[0])
    s = np.zeros(counts.shape[0])
    order = np.argsort(outer, kind="stable")
    bounds = np.flatnonzero(np.r_[True, outer[order][1:] != outer[order][:-1], True])
    for start, end in zip(bounds[:-1], bounds[1:]):
        if end - start == 1:  # a lone item: plain row operations cost less than masks
            j = order[start]
            rank, w = int(inner[j]), weights[j]
            s += w * (_prefix_one(tree, rank) - (seen - _prefix_one(tree, rank + 1)))
            cell = rank + 1
            while cell <= size:
                tree[cell] += w
                cell += cell & -cell
            seen += w
            continue
        group = order[start:end]
        w, ranks = weights[group], inner[group]
        below = _prefix(tree, ranks)  # inner ranks 0 .. rank-1
        above = seen - _prefix(tree, ranks + 1)  # inner ranks above rank
        s += np.einsum("gr,gr->r", w, below - above)
        cells = ranks + 1
        while cells.size:
            np.add.at(tree, cells, w)
            cells = cells + (cells & -cells)
            keep = cells <= size
            cells, w = cells[keep], w[keep]
        seen += weights[group].sum(axis=0)
    return s


def _prefix_one(tree: np.ndarray, cells: int) -> np.ndarray:
    """Sum of the Fenwick tree's first ``cells`` cells (one value per resample)."""
    found = np.zeros(tree.shape[1])
    while cells > 0:
        found += tree[cells]
        cells -= cells & -cells
    return found


def _prefix(tree: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Sum of the Fenwick tree's first ``cells[i]`` cells, for each i (one row of values
    per resample)."""
    found = np.zeros((len(cells), tree.shape[1]))
    rows = np.arange(len(cells))
    while cells.size:
        keep = cells > 0
        rows, cells = rows[keep], cells[keep]
        found[rows] += tree[cells]
        cells = cells - (cells & -cells)
    return found


def _group_weights(counts: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    order = np.argsort(ranks, kind="stable")
    starts = np.flatnonzero(np.r_[True, ranks[order][1:] != ranks[order][:-1]])
    return np.add.reduceat(counts[:, order], starts, axis=1)


def _tied_pairs(counts: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    weights = _group_weights(counts, ranks)
    return (weights * (weights - 1) / 2).sum(axis=1)


def _distinct(counts: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return (_group_weights(counts, ranks) > 0).sum(axis=1).astype(float)
