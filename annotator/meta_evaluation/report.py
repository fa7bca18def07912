"""A metric meta-evaluation: correlations with intervals, binary scores, tau-like and the
pairwise comparison of metrics, as one JSON-ready dict and as a text table.

Item level correlates per item; system level first averages the human score and each
metric per system (the WMT system-level convention), then correlates across systems, and
its bootstrap resamples systems. Comparisons of two metrics: Williams' test on their Pearson
correlations with the human score (sharing the human variable) and a paired bootstrap test
per statistic (two-sided: twice the smaller share of resamples on either side of zero), each
family Holm-Bonferroni adjusted over all pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from annotator.meta_evaluation import correlation
from annotator.meta_evaluation.bootstrap import bootstrap_correlations, resample_counts
from annotator.meta_evaluation.tables import Joined

STATISTICS = correlation.CORRELATIONS


@dataclass(frozen=True)
class Options:
    level: str = "item"  # item | system
    resamples: int = 1000
    seed: int = 0
    ci: float = 0.95
    tau_like_threshold: float | None = None
    item_column: str | None = None  # same-item pairs for tau-like
    processes: int = 1  # the command line shares the metrics out to one process per core


def _system_means(joined: Joined) -> tuple[list[str], np.ndarray, dict[str, np.ndarray]]:
    systems = sorted(set(joined.systems or []))
    index = {s: i for i, s in enumerate(systems)}
    groups = np.array([index[s] for s in joined.systems or []])
    sizes = np.bincount(groups, minlength=len(systems))

    def mean(values):
        return np.bincount(groups, weights=values, minlength=len(systems)) / sizes

    return systems, mean(joined.human), {n: mean(v) for n, v in joined.metrics.items()}


def level_values(joined: Joined, level: str) -> tuple[list[str] | None, np.ndarray,
                                                      dict[str, np.ndarray]]:
    """(systems or None, human scores, metric scores) of the units correlated at ``level``:
    the items, or per system the means over its items."""
    if level == "system":
        if joined.systems is None:
            raise ValueError("--level system needs --system COLUMN")
        return _system_means(joined)
    return None, joined.human, joined.metrics


def _value(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 6)


def evaluate(joined: Joined, options: Options) -> dict:
    """The report of every metric against the human score at ``options.level``."""
    systems, human, metrics = level_values(joined, options.level)
    n = len(human)
    counts = resample_counts(n, options.resamples, options.seed) if (
        options.resamples and n >= 2) else None
    resampled = bootstrap_correlations(human, metrics, counts, options.processes) if (
        counts is not None) else {}
    results = []
    for name, metric in metrics.items():
        row: dict = {"metric": name, "level": options.level, "n": n}
        for statistic in STATISTICS:
            value = correlation.STATISTIC[statistic](human, metric)
            low, high = (correlation.percentile_interval(resampled[name][statistic], options.ci)
                         if counts is not None else (math.nan, math.nan))
            row[statistic] = {"value": _value(value), "low": _value(low), "high": _value(high)}
        if options.level == "item" and correlation.is_binary(human):
            scores = correlation.binary_scores(human, metric)
            row["binary"] = {"auc_roc": _value(scores.auc), "best_f1": _value(scores.best_f1),
                             "precision": _value(scores.precision),
                             "recall": _value(scores.recall),
                             "threshold": _value(scores.threshold), "optimistic": True}
        if options.level == "item" and options.tau_like_threshold is not None:
            column = joined.key_columns.index(options.item_column)
            items = np.array([key[column] for key in joined.keys])
            tau, pairs = correlation.tau_like(items, human, metric, options.tau_like_threshold)
            row["tau_like"] = {"value": _value(tau), "pairs": pairs,
                               "threshold": options.tau_like_threshold}
        results.append(row)
    unit = "system" if systems else "item"
    warnings = [f"the human score is the same for every {unit} ({human[0]:g}): no "
                "correlation is defined"] if n and np.ptp(human) == 0 else []
    warnings += [f"{name} is the same for every {unit}: no correlation is defined"
                 for name, values in metrics.items() if n and np.ptp(values) == 0]
    return {"level": options.level, "n": n, "warnings": warnings,
            "units": f"{unit}s", "metrics": results,
            "comparisons": _comparisons(human, metrics, resampled),
            "bootstrap": {"resamples": options.resamples if counts is not None else 0,
                          "seed": options.seed, "ci": options.ci,
                          "resampled": "systems" if options.level == "system" else "items"},
            "unmatched": {"human_only": [list(k) for k in joined.unmatched_human],
                          "metrics_only": [list(k) for k in joined.unmatched_metrics]},
            "matched_items": len(joined.keys), "systems": systems}


def _comparisons(human: np.ndarray, metrics: dict[str, np.ndarray],
                 resampled: dict[str, dict[str, np.ndarray]]) -> list[dict]:
    rows = []
    for a, b in combinations(metrics, 2):
        r_a = correlation.pearson(human, metrics[a])
        r_b = correlation.pearson(human, metrics[b])
        r_ab = correlation.pearson(metrics[a], metrics[b])
        t, p = correlation.williams_test(r_a, r_b, r_ab, len(human))
        row = {"a": a, "b": b, "pearson_difference": _value(r_a - r_b),
               "williams": {"t": _value(t), "p": _value(p)}, "bootstrap": {}}
        for statistic in STATISTICS if resampled else ():
            difference = resampled[a][statistic] - resampled[b][statistic]
            difference = difference[np.isfinite(difference)]
            p_boot = (min(1.0, 2 * min((difference <= 0).mean(), (difference >= 0).mean()))
                      if difference.size else math.nan)
            row["bootstrap"][statistic] = {"p": _value(p_boot)}
        rows.append(row)
    _holm(rows, lambda row: row["williams"])
    for statistic in STATISTICS if resampled else ():
        _holm(rows, lambda row, s=statistic: row["bootstrap"][s])
    return rows


def _holm(rows: list[dict], cell) -> None:
    p_values = [math.nan if cell(r)["p"] is None else cell(r)["p"] for r in rows]
    for row, adjusted in zip(rows, correlation.holm_bonferroni(p_values)):
        cell(row)["p_holm"] = _value(adjusted)


def text_table(report: dict) -> str:
    """One line per metric: each correlation with its interval; then the comparisons."""
    def shown(cell):
        if cell["value"] is None:
            return "n/a"
        if cell["low"] is None:
            return f"{cell['value']:.3f}"
        return f"{cell['value']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}]"

    ci = report["bootstrap"]
    lines = [f"{report['level']} level, n = {report['n']} {report['units']}"
             + (f"; {ci['ci']:.0%} bootstrap intervals over {ci['resamples']} resamples of "
                f"{ci['resampled']} (seed {ci['seed']})" if ci["resamples"] else "")]
    width = max([len("metric")] + [len(r["metric"]) for r in report["metrics"]])
    lines.append(f"{'metric':<{width}}  " + "  ".join(f"{s:<24}" for s in STATISTICS))
    for row in report["metrics"]:
        cells = "  ".join(f"{shown(row[s]):<24}" for s in STATISTICS)
        extra = ""
        if "binary" in row:
            b = row["binary"]
            extra += (f"  AUC-ROC {b['auc_roc']:.3f}; best F1 {b['best_f1']:.3f} at >= "
                      f"{b['threshold']:.4g} (P {b['precision']:.3f}, R {b['recall']:.3f}; "
                      "optimistic: threshold chosen on these items)")
        if "tau_like" in row:
            t = row["tau_like"]
            extra += (f"  tau-like {'n/a' if t['value'] is None else format(t['value'], '.3f')}"
                      f" over {t['pairs']} pairs (|human diff| > {t['threshold']:g})")
        lines.append(f"{row['metric']:<{width}}  {cells}{extra}")
    if report["comparisons"]:
        lines.append("comparisons (p two-sided, Holm-adjusted over all pairs):")
        for c in report["comparisons"]:
            w = c["williams"]
            boot = c["bootstrap"].get("pearson")
            difference = c["pearson_difference"]
            lines.append(
                f"  {c['a']} vs {c['b']}: Pearson difference "
                f"{'n/a' if difference is None else format(difference, '+.3f')}"
                f"; Williams p {_p(w['p'])} (Holm {_p(w['p_holm'])})"
                + (f"; paired bootstrap p {_p(boot['p'])} (Holm {_p(boot['p_holm'])})"
                   if boot else ""))
    lines += [f"warning: {w}" for w in report.get("warnings", [])]
    unmatched = report["unmatched"]
    for side, label in (("human_only", "human table only"), ("metrics_only",
                                                               "metric table only")):
        if unmatched[side]:
            first = ", ".join("/".join(k) for k in unmatched[side][:5])
            lines.append(f"not matched: {len(unmatched[side])} item(s) in the {label} "
                         f"(first: {first}); they are left out")
    return "\n".join(lines)


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
