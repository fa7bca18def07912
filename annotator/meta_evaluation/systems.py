"""Systems ranked by their mean human score, with bootstrap intervals and statistical ties
(the system table of the TREC PLABA overview; pure).

Paired (an item column says which outputs answer the same input, e.g. the abstract): the
bootstrap resamples items, and a system's mean in a resample is the count-weighted mean over
the items it has. Unpaired: each system's scores are resampled on their own. Two systems
differ when the two-sided bootstrap p of their mean difference (twice the smaller share of
resamples on either side of zero), Holm-Bonferroni adjusted over all pairs, is below
``alpha``; a system's rank range runs from 1 + the systems significantly better to the count
of systems not significantly worse (the WMT convention for clusters of tied systems).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from annotator.core.problems import IngestError, Problem
from annotator.meta_evaluation.bootstrap import resample_counts
from annotator.meta_evaluation.correlation import holm_bonferroni, percentile_interval
from annotator.meta_evaluation.tables import Table, human_scores, keyed, number, require_columns


def _paired_means(items: list[str], systems: list[str], scores: np.ndarray, names: list[str],
                  resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    item_index = {i: k for k, i in enumerate(sorted(set(items)))}
    matrix = np.zeros((len(item_index), len(names)))
    present = np.zeros_like(matrix)
    system_index = {s: k for k, s in enumerate(names)}
    for item, system, score in zip(items, systems, scores):
        matrix[item_index[item], system_index[system]] += score
        present[item_index[item], system_index[system]] += 1
    counts = resample_counts(len(item_index), resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        return matrix.sum(0) / present.sum(0), (counts @ matrix) / (counts @ present)


def _unpaired_means(systems: list[str], scores: np.ndarray, names: list[str], resamples: int,
                    seed: int) -> tuple[np.ndarray, np.ndarray]:
    chosen = np.array(systems)
    point, resampled = [], []
    for k, name in enumerate(names):
        own = scores[chosen == name]
        counts = resample_counts(len(own), resamples, seed + k)
        point.append(own.mean())
        resampled.append(counts @ own / len(own))
    return np.array(point), np.stack(resampled, axis=1)


def rank_systems(systems: list[str], scores: np.ndarray, *, items: list[str] | None = None,
                 resamples: int = 1000, seed: int = 0, ci: float = 0.95,
                 alpha: float = 0.05) -> dict:
    """Every system's mean, interval, rank range and ties, best first."""
    names = sorted(set(systems))
    if items is not None:
        point, resampled = _paired_means(items, systems, scores, names, resamples, seed)
    else:
        point, resampled = _unpaired_means(systems, scores, names, resamples, seed)
    pairs = list(combinations(range(len(names)), 2))
    p_values = []
    for a, b in pairs:
        difference = resampled[:, a] - resampled[:, b]
        difference = difference[np.isfinite(difference)]
        p_values.append(min(1.0, 2 * min((difference <= 0).mean(), (difference >= 0).mean()))
                        if difference.size else math.nan)
    adjusted = holm_bonferroni(p_values)
    differs = {}
    for (a, b), p in zip(pairs, adjusted):
        differs[(a, b)] = differs[(b, a)] = (not math.isnan(p)) and p < alpha
    rows = []
    for k, name in enumerate(names):
        better = sum(1 for j in range(len(names)) if j != k and differs[(k, j)]
                     and point[j] > point[k])
        worse = sum(1 for j in range(len(names)) if j != k and differs[(k, j)]
                    and point[j] < point[k])
        low, high = percentile_interval(resampled[:, k], ci)
        rows.append({"system": name, "n": int(sum(1 for s in systems if s == name)),
                     "mean": round(float(point[k]), 6), "low": round(low, 6),
                     "high": round(high, 6), "rank_range": [better + 1, len(names) - worse],
                     "tied_with": [names[j] for j in range(len(names))
                                   if j != k and not differs[(k, j)]]})
    rows.sort(key=lambda r: -r["mean"])
    return {"systems": rows, "paired": items is not None, "alpha": alpha,
            "comparisons": [{"a": names[a], "b": names[b],
                             "difference": round(float(point[a] - point[b]), 6),
                             "p": None if math.isnan(p) else round(p, 6),
                             "p_holm": None if math.isnan(q) else round(q, 6)}
                            for (a, b), p, q in zip(pairs, p_values, adjusted)],
            "bootstrap": {"resamples": resamples, "seed": seed, "ci": ci,
                          "resampled": "items" if items is not None else "each system's rows"}}


def system_scores(table: Table, human: str, system: str, *, item: str | None = None,
                  on: list[str] | None = None, rater: str | None = None,
                  z_normalise: bool = False) -> tuple[list[str], np.ndarray, list[str] | None]:
    """(system of each rated unit, its human score, its item or None) from a table: one
    row per unit, or with ``rater`` one row per unit and rater (units keyed by ``on``,
    averaged after an optional per-rater standardisation)."""
    problems: list[Problem] = []
    require_columns(table, [human, system, *([item] if item else []), *(on or []),
                            *([rater] if rater else [])], problems)
    if rater and not on:
        problems.append(Problem(table.name, None, rater, "--rater needs --on (the columns "
                                "that name one rated unit)"))
    if problems:
        raise IngestError(problems)
    if rater:
        scores = human_scores(table, on or [], human, rater, z_normalise, problems)
        first = keyed(table, on or [], [], also=())  # a unit's rows agree on system and item
        rows = [(first[key][1], value) for key, value in scores.items()]
    else:
        rows = [(row, number(table, line, row, human, problems)) for line, row in table.rows]
    if problems:
        raise IngestError(problems)
    return ([str(row.get(system)) for row, _ in rows], np.array([v for _, v in rows], float),
            [str(row.get(item)) for row, _ in rows] if item else None)
