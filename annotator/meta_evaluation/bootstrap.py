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

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

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

    def dot(a):  # the count-weighted sum of each resample (no resamples x items temporary)
        return np.einsum("ij,ij->i", counts, a) if a.ndim == 2 else counts @ a

    mean_x, mean_y = dot(x) / total, dot(y) / total
    cov = _weighted_products(counts, x, y) / total - mean_x * mean_y
    var_x = _weighted_products(counts, x, x) / total - mean_x ** 2
    var_y = _weighted_products(counts, y, y) / total - mean_y ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(var_x * var_y)
    scale = np.maximum(np.abs(mean_x), 1.0) * np.maximum(np.abs(mean_y), 1.0)
    r[(var_x <= 1e-12 * scale) | (var_y <= 1e-12 * scale)] = np.nan
    return np.clip(r, -1.0, 1.0)


def _weighted_products(counts: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sum_j counts[r, j] x[r, j] y[r, j] for every resample r (vectors broadcast)."""
    if x.ndim == 1 and y.ndim == 1:
        return counts @ (x * y)
    return np.einsum("ij,ij,ij->i", counts, np.broadcast_to(x, counts.shape),
                     np.broadcast_to(y, counts.shape))


def resample_ranks(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties averaged) of every item within each resample."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    group_start = np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    item_group = np.empty(len(values), dtype=np.intp)
    item_group[order] = np.cumsum(group_start) - 1  # tie group of each item
    starts = np.flatnonzero(group_start)
    drawn = (counts[:, order] if len(starts) == len(values)  # no ties: one item a group
             else np.add.reduceat(counts[:, order], starts, axis=1))
    mid = np.cumsum(drawn, axis=1)  # drawn at or below each group ...
    mid -= drawn / 2 - 0.5  # ... less half the group, plus one half: the average rank
    return mid[:, item_group]


def bootstrap_correlations(human: np.ndarray, metrics: dict[str, np.ndarray],
                           counts: np.ndarray,
                           processes: int = 1) -> dict[str, dict[str, np.ndarray]]:
    """{metric: {pearson, spearman, kendall_b, kendall_c: one value per resample}}, every
    metric over the same resamples (so differences between metrics are paired).

    ``processes`` > 1 shares the metrics out to forked processes (the command line: one per
    core); they inherit the resamples instead of receiving a copy. Web requests keep 1: a
    process with threads must not fork."""
    human_ranks = resample_ranks(counts, human)
    human_ties = _ties(counts, _dense_ranks(human))
    processes = min(processes, len(metrics))
    if processes > 1 and "fork" in multiprocessing.get_all_start_methods():
        _SHARED.update(counts=counts, human=human, human_ranks=human_ranks,
                       human_ties=human_ties, metrics=metrics)
        try:
            with ProcessPoolExecutor(processes,
                                     mp_context=multiprocessing.get_context("fork")) as pool:
                found = dict(pool.map(_one_metric, metrics))
        finally:
            _SHARED.clear()
        return {name: found[name] for name in metrics}
    return {name: _statistics(counts, human, human_ranks, human_ties, metric)
            for name, metric in metrics.items()}


_SHARED: dict = {}  # what forked processes read (set just before the fork, cleared after)


def _one_metric(name: str) -> tuple[str, dict[str, np.ndarray]]:
    return name, _statistics(_SHARED["counts"], _SHARED["human"], _SHARED["human_ranks"],
                             _SHARED["human_ties"], _SHARED["metrics"][name])


def _statistics(counts: np.ndarray, human: np.ndarray, human_ranks: np.ndarray,
                human_ties: tuple, metric: np.ndarray) -> dict[str, np.ndarray]:
    tau_b, tau_c = weighted_kendall(counts, human, metric, human_ties)
    return {"pearson": weighted_pearson(counts, human, metric),
            "spearman": weighted_pearson(counts, human_ranks, resample_ranks(counts, metric)),
            "kendall_b": tau_b, "kendall_c": tau_c}


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """0-based dense rank of each item (tied values share a rank)."""
    return np.unique(values, return_inverse=True)[1]


def weighted_kendall(counts: np.ndarray, human: np.ndarray, metric: np.ndarray,
                     human_ties: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b and tau-c of every resample at once.

    S = sum over pairs of drawn items of sgn(dh) sgn(dm) (symmetric in the two sides) is
    counted group by group along the side with fewer distinct values, with a Fenwick tree
    over the other side's ranks whose cells hold one weight per resample: each item adds
    w_j (weight drawn below it - weight drawn above it) among the items of lower groups
    (items in the same group are tied there: sgn = 0). tau-b = S / sqrt((N0 - T_h)(N0 - T_m))
    with N0 = n(n-1)/2 and T the pairs tied on one side (copies of one item are tied on
    both); tau-c = 2 S / (n^2 (k - 1) / k) with k the fewer distinct values of the two sides
    among the drawn items (scipy's definitions). ``human_ties``: ``_ties`` of the human
    side, when the caller has it already."""
    h_rank, m_rank = _dense_ranks(human), _dense_ranks(metric)
    outer, inner = (h_rank, m_rank) if h_rank.max() <= m_rank.max() else (m_rank, h_rank)
    s = _signed_pairs(counts, outer, inner)
    total = counts.sum(axis=1)
    n0 = total * (total - 1) / 2
    # the human side's ties are the same for every metric: computed once by the caller
    (t_h, k_h), (t_m, k_m) = human_ties or _ties(counts, h_rank), _ties(counts, m_rank)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((n0 - t_h) * (n0 - t_m))
        distinct = np.minimum(k_h, k_m)
        tau_c = 2 * s / (total ** 2 * (distinct - 1) / distinct)
    tau_b[~np.isfinite(tau_b)] = np.nan
    tau_c[~np.isfinite(tau_c)] = np.nan
    return tau_b, tau_c


def _signed_pairs(counts: np.ndarray, outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """S per resample: groups of equal ``outer`` rank in increasing order; each group's
    items query the tree (ranks of ``inner``) before any of them is added."""
    # One row of resample weights per item. Every cell of the tree holds a count of drawn
    # items (at most n), exact in float32 up to 2^24 items: half the memory traffic of
    # float64; S itself is summed in float64.
    weights = np.ascontiguousarray(counts.T, dtype=np.float32)
    size = int(inner.max()) + 1
    tree = np.zeros((size + 1, counts.shape[0]), dtype=np.float32)
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
        by_cell = np.argsort(ranks, kind="stable")
        cells, w = ranks[by_cell] + 1, w[by_cell]
        while cells.size:
            # rows of one cell summed first (np.add.at, which handles repeats, is slow)
            starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
            tree[cells[starts]] += np.add.reduceat(w, starts, axis=0)
            cells = cells + (cells & -cells)
            keep = cells <= size
            cells, w = cells[keep], w[keep]
            resort = np.argsort(cells, kind="stable")  # a step can reorder the cells
            cells, w = cells[resort], w[resort]
        seen += weights[group].sum(axis=0)
    return s


def _prefix_one(tree: np.ndarray, cells: int) -> np.ndarray:
    """Sum of the Fenwick tree's first ``cells`` cells (one value per resample)."""
    found = np.zeros(tree.shape[1], dtype=tree.dtype)
    while cells > 0:
        found += tree[cells]
        cells -= cells & -cells
    return found


def _prefix(tree: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Sum of the Fenwick tree's first ``cells[i]`` cells, for each i (one row of values
    per resample)."""
    found = np.zeros((len(cells), tree.shape[1]), dtype=tree.dtype)
    rows = np.arange(len(cells))
    while cells.size:
        keep = cells > 0
        rows, cells = rows[keep], cells[keep]
        found[rows] += tree[cells]
        cells = cells - (cells & -cells)
    return found


def _ties(counts: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pairs of drawn items tied on this side, distinct values drawn) per resample."""
    order = np.argsort(ranks, kind="stable")
    starts = np.flatnonzero(np.r_[True, ranks[order][1:] != ranks[order][:-1]])
    if len(starts) == len(ranks):  # no two items tie: only copies of one item do
        weights = counts
    else:
        weights = np.add.reduceat(counts[:, order], starts, axis=1)
    return ((weights * (weights - 1) / 2).sum(axis=1),
            np.count_nonzero(weights, axis=1).astype(float))
