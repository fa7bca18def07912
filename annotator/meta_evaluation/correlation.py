"""How well an automatic metric agrees with human judgments (pure: numpy, scipy, sklearn).

The statistics the simplification and MT meta-evaluation literature publishes:

- Pearson's r, Spearman's rho, Kendall's tau-b and tau-c (``scipy.stats``), as in the TREC
  PLABA overview (Pearson per abstract), Devaraj et al. 2022 (Spearman against error
  severity) and PlainQAFact (Kendall's tau and Pearson);
- the WMT "tau-like" Kendall over same-item pairs whose human scores differ by more than a
  threshold (Ma et al. 2018/2019, WMT Metrics Shared Task, DARR): concordant minus discordant
  over their sum, a metric tie counting as discordant;
- AUC-ROC and the best-F1 operating point (``sklearn.metrics``) when the human label is
  binary (SimpleOG's detector scores, PlainQAFact's factual/non-factual labels); the best-F1
  threshold is chosen on the same data it is scored on, so it is flagged as optimistic;
- Williams' test for two dependent correlations that share the human variable (Williams
  1959; Steiger 1980, eq. 7; used by WMT since Graham & Baldwin 2014);
- Holm-Bonferroni step-down adjustment of a family of p-values (Holm 1979).

Bootstrap intervals resample items (or systems): every statistic of one resample is computed
on the same drawn indices, so the paired differences between metrics are paired.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CORRELATIONS = ("pearson", "spearman", "kendall_b", "kendall_c")


def pearson(human: np.ndarray, metric: np.ndarray) -> float:
    if not _varies(human, metric):
        return math.nan
    return _finite(_stats().pearsonr(human, metric).statistic)


def spearman(human: np.ndarray, metric: np.ndarray) -> float:
    if not _varies(human, metric):
        return math.nan
    return _finite(_stats().spearmanr(human, metric).statistic)


def kendall_b(human: np.ndarray, metric: np.ndarray) -> float:
    if not _varies(human, metric):
        return math.nan
    return _finite(_stats().kendalltau(human, metric, variant="b").statistic)


def kendall_c(human: np.ndarray, metric: np.ndarray) -> float:
    if not _varies(human, metric):
        return math.nan
    return _finite(_stats().kendalltau(human, metric, variant="c").statistic)


STATISTIC = {"pearson": pearson, "spearman": spearman, "kendall_b": kendall_b,
             "kendall_c": kendall_c}


def _stats():
    """``scipy.stats``, imported on first use: the web app loads this module (the releases'
    metric page) but computes a correlation only when a lead asks, and scipy costs ~1 s of
    every server's start-up (tests/test_cli_startup.py)."""
    # Late: start-up time (docstring).
    from scipy import stats

    return stats


def _varies(*columns: np.ndarray) -> bool:
    """A correlation needs at least two items and some spread on both sides."""
    return all(len(c) >= 2 and np.ptp(c) > 0 for c in columns)


def _finite(value: float) -> float:
    return float(value) if np.isfinite(value) else math.nan


def tau_like(items: np.ndarray, human: np.ndarray, metric: np.ndarray,
             threshold: float) -> tuple[float, int]:
    """WMT's Kendall tau-like over pairs of rows of the same item (e.g. two systems' outputs
    for one source sentence) whose human scores differ by more than ``threshold``:
    (Concordant - Discordant) / (Concordant + Discordant), a metric tie discordant
    (WMT20's convention). Returns (tau, number of pairs); NaN when no pair qualifies."""
    concordant = discordant = 0
    order = np.argsort(items, kind="stable")
    items, human, metric = items[order], human[order], metric[order]
    bounds = np.flatnonzero(np.r_[True, items[1:] != items[:-1], True])
    for start, end in zip(bounds[:-1], bounds[1:]):
        if end - start < 2:
            continue
        h, m = human[start:end], metric[start:end]
        dh = h[:, None] - h[None, :]
        dm = m[:, None] - m[None, :]
        upper = np.triu(np.ones(dh.shape, dtype=bool), k=1) & (np.abs(dh) > threshold)
        agree = np.sign(dh[upper]) == np.sign(dm[upper])
        concordant += int(agree.sum())
        discordant += int((~agree).sum())
    pairs = concordant + discordant
    return ((concordant - discordant) / pairs if pairs else math.nan), pairs


@dataclass(frozen=True)
class BinaryScores:
    """A metric judged as a detector of the positive human label."""

    auc: float
    best_f1: float
    precision: float
    recall: float
    threshold: float
    optimistic: bool = True  # the threshold was chosen on the data it is scored on


def is_binary(human: np.ndarray) -> bool:
    values = set(np.unique(human).tolist())
    return values == {0.0, 1.0}


def binary_scores(human: np.ndarray, metric: np.ndarray) -> BinaryScores:
    """AUC-ROC (``sklearn.metrics.roc_auc_score``) and the threshold of best F1 over the
    precision-recall curve (``precision_recall_curve``): a metric value >= threshold is
    called positive."""
    # scikit-learn loads late: only binary human scores need it (it costs ~1 s to import)
    from sklearn.metrics import precision_recall_curve, roc_auc_score

    labels = human.astype(int)
    precision, recall, thresholds = precision_recall_curve(labels, metric)
    precision, recall = precision[:-1], recall[:-1]  # the last point has no threshold
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0)
    best = int(np.argmax(f1))
    return BinaryScores(auc=float(roc_auc_score(labels, metric)), best_f1=float(f1[best]),
                        precision=float(precision[best]), recall=float(recall[best]),
                        threshold=float(thresholds[best]))


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' t for H0: rho12 = rho13, where variable 1 (the human score) is shared and
    r23 is the correlation between the two metrics (Steiger 1980, eq. 7):

        K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23
        t = (r12 - r13) sqrt((n - 1)(1 + r23) /
                             (2 K (n - 1)/(n - 3) + (r12 + r13)^2 / 4 (1 - r23)^3))

    with n - 3 degrees of freedom. Returns (t, two-sided p)."""
    if n <= 3:
        return math.nan, math.nan
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if denominator <= 0:
        return math.nan, math.nan
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23) / denominator)
    return t, float(2 * _stats().t.sf(abs(t), n - 3))


def holm_bonferroni(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order: sorted ascending, the i-th
    (1-based) of m becomes max over j <= i of min(1, (m - j + 1) p_(j)). NaN stays NaN and
    does not count towards m."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(indexed)
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def percentile_interval(values: np.ndarray, ci: float) -> tuple[float, float]:
    """The (1 - ci)/2 and (1 + ci)/2 percentiles of the finite resampled values."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(finite, [50 * (1 - ci), 50 * (1 + ci)])
    return float(low), float(high)
