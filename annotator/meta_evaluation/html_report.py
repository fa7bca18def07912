"""A metric meta-evaluation as one self-contained HTML file (``annotator eval metrics
--html``): a scatterplot per metric against the human score with its least-squares line and
a bootstrap band (the TREC PLABA overview's figures), a bar chart of every correlation with
its interval, the comparisons table and what did not match. Plots are inline PNGs drawn
with matplotlib's Agg canvas; every text from the tables (metric and system names) is
escaped, in HTML and in the plots.
"""

from __future__ import annotations

from html import escape

import numpy as np
from matplotlib.figure import Figure

from annotator.agreement.html_report import _plain, _png
from annotator.meta_evaluation.bootstrap import resample_counts
from annotator.meta_evaluation.correlation import CORRELATIONS

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 max-width:64rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.92rem}
th,td{border:1px solid #ddd;padding:.25rem .55rem;text-align:left}th{background:#f4f4f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#666;font-size:.88rem}
img{max-width:100%;height:auto}.plots{display:flex;flex-wrap:wrap;gap:1rem}
.plots figure{margin:0;width:30rem;max-width:100%}
"""


def _band(human: np.ndarray, metric: np.ndarray, resamples: int, seed: int,
          ci: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x grid, the least-squares line of human on metric over it, and the percentile band
    of the lines fitted to bootstrap resamples (count-weighted fits, all at once)."""
    grid = np.linspace(metric.min(), metric.max(), 50)
    slope, intercept = np.polyfit(metric, human, 1)
    counts = resample_counts(len(metric), resamples, seed)
    total = counts.sum(axis=1)
    mean_x, mean_y = counts @ metric / total, counts @ human / total
    var_x = counts @ (metric ** 2) / total - mean_x ** 2
    cov = counts @ (metric * human) / total - mean_x * mean_y
    with np.errstate(invalid="ignore", divide="ignore"):
        slopes = cov / var_x
    lines = (mean_y - slopes * mean_x)[:, None] + slopes[:, None] * grid[None, :]
    lines = lines[np.isfinite(slopes)]
    if len(lines) == 0:
        return grid, intercept + slope * grid, grid * np.nan, grid * np.nan
    low, high = np.percentile(lines, [50 * (1 - ci), 50 * (1 + ci)], axis=0)
    return grid, intercept + slope * grid, low, high


def _scatter(name: str, human: np.ndarray, metric: np.ndarray, row: dict, resamples: int,
             seed: int, ci: float) -> str:
    fig = Figure(figsize=(4.6, 3.4))
    ax = fig.add_subplot()
    ax.scatter(metric, human, s=12, alpha=0.6, color="#3a6ea5", edgecolors="none")
    if np.ptp(metric) > 0:
        grid, line, low, high = _band(human, metric, max(resamples, 100), seed, ci)
        ax.fill_between(grid, low, high, color="#3a6ea5", alpha=0.18, linewidth=0,
                        label=f"{ci:.0%} bootstrap band")
        ax.plot(grid, line, color="#1d3f66", linewidth=1.5, label="least squares")
        ax.legend(fontsize=7, loc="best")
    r = row["pearson"]["value"]
    ax.set_title(_plain(f"{name}: Pearson r = {'n/a' if r is None else format(r, '.3f')}"),
                 fontsize=10)
    ax.set_xlabel(_plain(name), fontsize=9)
    ax.set_ylabel("human score", fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def _bars(report: dict) -> str:
    rows = report["metrics"]
    fig = Figure(figsize=(7.5, 3.2))
    ax = fig.add_subplot()
    width = 0.8 / len(CORRELATIONS)
    for k, statistic in enumerate(CORRELATIONS):
        xs = np.arange(len(rows)) + (k - (len(CORRELATIONS) - 1) / 2) * width
        values = np.array([np.nan if r[statistic]["value"] is None else r[statistic]["value"]
                           for r in rows])
        low = np.array([np.nan if r[statistic]["low"] is None else r[statistic]["low"]
                        for r in rows])
        high = np.array([np.nan if r[statistic]["high"] is None else r[statistic]["high"]
                         for r in rows])
        errors = np.vstack([np.nan_to_num(values - low), np.nan_to_num(high - values)])
        ax.bar(xs, np.nan_to_num(values), width=width, label=statistic,
               yerr=np.clip(errors, 0, None), capsize=2, error_kw={"linewidth": 0.8})
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([_plain(r["metric"]) for r in rows], fontsize=8,
                       rotation=30 if len(rows) > 6 else 0)
    ax.axhline(0, color="#888", linewidth=0.6)
    ax.set_ylabel("correlation with the human score", fontsize=9)
    ax.legend(fontsize=7, ncol=4)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def _cell(cell: dict) -> str:
    if cell["value"] is None:
        return "<td class=num>n/a</td>"
    interval = "" if cell["low"] is None else f" [{cell['low']:.3f}, {cell['high']:.3f}]"
    return f"<td class=num>{cell['value']:.3f}{interval}</td>"


def _p(value) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def render(report: dict, human: np.ndarray, metrics: dict[str, np.ndarray],
           title: str = "Metrics against human scores") -> str:
    """The report as a standalone HTML file; ``human`` and ``metrics`` are the values it
    was computed from (per item, or per system at system level)."""
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>"
            f"{report_body(report, human, metrics)}</body></html>")


def report_body(report: dict, human: np.ndarray, metrics: dict[str, np.ndarray]) -> str:
    """The report's sections, to stand in a page (every text escaped)."""
    boot = report["bootstrap"]
    parts = [f"<p class=muted>{escape(report['level'])} level, n = {report['n']} "
             f"{escape(report['units'])}; {boot['ci']:.0%} percentile bootstrap intervals over "
             f"{boot['resamples']} resamples of {escape(boot['resampled'])} (seed "
             f"{boot['seed']}).</p>",
             *(f"<p class='flash warn'>{escape(w)}</p>" for w in report.get("warnings", [])),
             "<h2>Correlations</h2>", _bars(report),
             "<table><tr><th>metric</th>"
             + "".join(f"<th>{s}</th>" for s in CORRELATIONS) + "<th>also</th></tr>"]
    for row in report["metrics"]:
        also = []
        if "binary" in row:
            b = row["binary"]
            also.append(f"AUC-ROC {b['auc_roc']:.3f}; best F1 {b['best_f1']:.3f} at &ge; "
                        f"{b['threshold']:.4g} (optimistic)")
        if "tau_like" in row and row["tau_like"]["value"] is not None:
            also.append(f"tau-like {row['tau_like']['value']:.3f} over "
                        f"{row['tau_like']['pairs']} pairs")
        parts.append(f"<tr><td>{escape(row['metric'])}</td>"
                     + "".join(_cell(row[s]) for s in CORRELATIONS)
                     + f"<td>{'; '.join(also)}</td></tr>")
    parts.append("</table><h2>Each metric against the human score</h2><div class=plots>")
    for row in report["metrics"]:
        plot = _scatter(row["metric"], human, metrics[row["metric"]], row, boot["resamples"],
                        boot["seed"], boot["ci"])
        parts.append(f"<figure>{plot}</figure>")
    parts.append("</div>")
    if report["comparisons"]:
        parts.append("<h2>Comparisons</h2><p class=muted>Two-sided p; Holm-Bonferroni adjusted "
                     "over all pairs within each test.</p><table><tr><th>a</th><th>b</th>"
                     "<th>Pearson a &minus; b</th><th>Williams p (Holm)</th>"
                     "<th>paired bootstrap p, Pearson (Holm)</th></tr>")
        for c in report["comparisons"]:
            boot_p = c["bootstrap"].get("pearson", {"p": None, "p_holm": None})
            difference = c["pearson_difference"]
            parts.append(f"<tr><td>{escape(c['a'])}</td><td>{escape(c['b'])}</td><td class=num>"
                         f"{'n/a' if difference is None else format(difference, '+.3f')}</td>"
                         f"<td class=num>{_p(c['williams']['p'])} "
                         f"({_p(c['williams']['p_holm'])})</td><td class=num>"
                         f"{_p(boot_p['p'])} ({_p(boot_p['p_holm'])})</td></tr>")
        parts.append("</table>")
    for side, label in (("human_only", "the human table only"),
                        ("metrics_only", "the metric table only")):
        keys = report["unmatched"][side]
        if keys:
            shown = ", ".join(escape("/".join(k)) for k in keys[:20])
            parts.append(f"<p class=muted>Not matched: {len(keys)} item(s) in {label} "
                         f"(left out): {shown}{' …' if len(keys) > 20 else ''}</p>")
    for note in report.get("notes", []):
        parts.append(f"<p class=muted>{escape(note)}</p>")
    return "".join(parts)
