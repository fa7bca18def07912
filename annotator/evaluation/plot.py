"""A correlation matrix as a self-contained SVG (no network, no script): one square per
pair of axes, coloured blue (negative) to white (0) to red (positive), value printed."""

from __future__ import annotations

from html import escape

CELL = 56
MARGIN = 48


def _colour(r: float | None) -> str:
    if r is None:
        return "#e6e6e6"
    r = max(-1.0, min(1.0, r))
    if r >= 0:
        g = int(255 - 155 * r)
        return f"#ff{g:02x}{g:02x}"
    g = int(255 + 155 * r)
    return f"#{g:02x}{g:02x}ff"


def correlation_svg(correlations: dict, title: str = "Correlation between axes") -> str:
    axes = correlations["axes"]
    n = len(axes)
    size = MARGIN + n * CELL + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="corr-plot" width="{size}" '
             f'height="{size + 20}" viewBox="0 0 {size} {size + 20}" role="img" '
             f'aria-label="{escape(title)}"><title>{escape(title)}</title>',
             '<g font-family="sans-serif" font-size="12">']
    for i, a in enumerate(axes):
        x = MARGIN + i * CELL + CELL / 2
        parts.append(f'<text x="{x:.0f}" y="{MARGIN - 10}" text-anchor="middle">'
                     f'{escape(a)}</text>')
        parts.append(f'<text x="{MARGIN - 6}" y="{MARGIN + i * CELL + CELL / 2 + 4:.0f}" '
                     f'text-anchor="end">{escape(a)}</text>')
        for j, b in enumerate(axes):
            r = correlations["matrix"][a][b]
            x0, y0 = MARGIN + j * CELL, MARGIN + i * CELL
            label = "–" if r is None else f"{r:.2f}"
            parts.append(f'<rect x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" '
                         f'fill="{_colour(r)}" stroke="#fff" data-axes="{escape(a)}|{escape(b)}"/>')
            parts.append(f'<text x="{x0 + CELL / 2:.0f}" y="{y0 + CELL / 2 + 4:.0f}" '
                         f'text-anchor="middle">{label}</text>')
    parts.append(f'<text x="{MARGIN}" y="{size + 12}" fill="#555">Pearson r over '
                 f'{correlations["abstracts"]} abstracts</text></g></svg>')
    return "".join(parts)
