"""Table cells of the HTML agreement report: escaped text, numbers, metric cells, readable
metric names. Every piece of text is escaped with :func:`html.escape` (annotator names,
labels and headings come from users and model output)."""

from __future__ import annotations

from html import escape

from .names import COEFFICIENTS


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _num(value, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return _e(value)


def _metric_cells(m: dict | None) -> str:
    """value, CI and band cells of a metric dict."""
    if not m:
        return "<td>n/a</td><td></td><td></td>"
    if m.get("value") is None:
        return (f'<td class="num" title="{_e(m.get("explanation"))}">n/a</td>'
                f'<td colspan="2" class="muted">{_e(m.get("explanation"))}</td>')
    ci = m.get("ci") or {}
    ci_text = (f"{ci['low']:.3f} – {ci['high']:.3f}" if ci.get("low") is not None else "")
    interp = m.get("interpretation") or {}
    band = interp.get("band") or ""
    css = f"band-{band.split()[0]}" if band else ""
    return (f'<td class="num">{m["value"]:.3f}</td><td class="num">{_e(ci_text)}</td>'
            f'<td class="{_e(css)}">{_e(band)}</td>')


def _table(head: list[str], rows: list[str]) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _named(title, key: str = "", about: str = "") -> str:
    """A readable metric name, what it measures, and the raw key of the JSON (muted)."""
    extra = f"<br><span class='muted'>{_e(about)}</span>" if about else ""
    raw = f"<br><code class='muted'>{_e(key)}</code>" if key else ""
    return f"<td>{_e(title)}{extra}{raw}</td>"


def _coefficient(name: str) -> str:
    title, about = COEFFICIENTS.get(name, (name, ""))
    return _named(title, name, about)


def _prehighlighters(report) -> str:
    """Accepted / dismissed suggestions per kind: the precision annotators saw. Every
    annotator holding a document reviews its suggestions, so accepted + dismissed + not
    acted on add up to the reviews, not to the suggestions (issue 43)."""
    keys = ("suggestions", "reviews", "accepted", "dismissed", "open")
    rows = [f"<tr data-kind='{_e(kind)}'><td>{_e(kind)}</td>"
            + "".join(f"<td>{e[k]}</td>" for k in keys)
            + f"<td>{_num(e['precision'])}</td></tr>"
            for kind, e in report["prehighlighters"].items()]
    return _table(["kind", "suggestions", "reviews (suggestion × annotator holding it)",
                   "accepted", "dismissed", "not acted on", "precision"], rows)
