"""The HTML report's section on SALSA token-level agreement (Heineman et al. 2023)."""

from __future__ import annotations

from .html_cells import _e, _metric_cells, _table
from .names import SIDE_NAMES


def token_section(report) -> str:
    """SALSA token-level agreement per edit type and subtype, one table per side."""
    out = []
    for side, entry in report.get("tokens", {}).items():
        out.append(f"<h3>Tokens of the {_e(SIDE_NAMES.get(side, side))} ({_e(side)} side)</h3>")
        if "types" not in entry:
            out.append(f"<p class='muted'>{_e(entry.get('explanation'))}</p>")
            continue
        out.append(f"<p class='muted'>{entry['tokens']} tokens of {entry['documents']} "
                   "document(s) with two or more annotators.</p>")
        rows = []
        for group in ("types", "subtypes"):
            for label, stats in entry[group].items():
                marked = ", ".join(f"{a} {n}" for a, n in stats["labelled_tokens"].items())
                rows.append(f"<tr><td>{_e(label)}</td>{_metric_cells(stats['fleiss'])}"
                            f"{_metric_cells(stats['alpha_nominal'])}"
                            f"<td class='muted'>{_e(marked)}</td></tr>")
        overall = entry.get("overall", {})
        if "fleiss" in overall:
            rows.append(f"<tr><td>all types (combined label)</td>"
                        f"{_metric_cells(overall['fleiss'])}"
                        f"{_metric_cells(overall['alpha_nominal'])}<td></td></tr>")
        out.append(_table(["edit type / subtype", "Fleiss' kappa", "95% CI", "band",
                           "nominal alpha", "95% CI", "band", "tokens labelled per annotator"],
                          rows))
    out.append("<p class='muted'>Each token is labelled, per annotator, by whether edits of the "
               "type (or subtype: the value of the type's first choice field) cover it "
               "(Heineman et al. 2023, SALSA).</p>")
    return "".join(out)
