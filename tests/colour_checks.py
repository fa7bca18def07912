"""Colour arithmetic for the look tests (issue 43, item 5): parsing the browser's computed
colours, WCAG 2.1 contrast, and how far apart two colours stay for a deuteranope.

- Contrast ratio: WCAG 2.1, (L1 + 0.05) / (L2 + 0.05) with L the relative luminance of
  linearised sRGB (0.2126 R + 0.7152 G + 0.0722 B); 3:1 is the minimum for the parts of a
  user interface (success criterion 1.4.11).
- Deuteranopia: Machado, Oliveira & Fernandes (2009), severity 1.0, a 3x3 matrix on
  linear RGB; the distance is CIE76 delta E in CIELAB (D65), where about 2.3 is a just
  noticeable difference and above 20 reads as clearly different colours.
"""

from __future__ import annotations

import math
import re

MACHADO_DEUTERANOPIA = ((0.367322, 0.860646, -0.227968),
                        (0.280085, 0.672501, 0.047413),
                        (-0.011820, 0.042940, 0.968881))


def parse(colour: str) -> tuple[float, float, float]:
    """'#f0ad4e', 'rgb(240, 173, 78)' or 'rgba(…, a)' (over white) -> sRGB in 0..255."""
    colour = colour.strip()
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    numbers = [float(x) for x in re.findall(r"[\d.]+", colour)]
    r, g, b = numbers[:3]
    alpha = numbers[3] if len(numbers) > 3 else 1.0
    return tuple(alpha * c + (1 - alpha) * 255 for c in (r, g, b))


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055)


def luminance(rgb) -> float:
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def deuteranope(rgb) -> tuple[float, float, float]:
    linear = [_linear(c) for c in rgb]
    return tuple(_gamma(sum(m * c for m, c in zip(row, linear)))
                 for row in MACHADO_DEUTERANOPIA)


def _lab(rgb) -> tuple[float, float, float]:
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a, b) -> float:
    return math.dist(_lab(a), _lab(b))


def deuteranope_distance(a, b) -> float:
    """CIE76 delta E between two colours as a deuteranope sees them."""
    return delta_e(deuteranope(a), deuteranope(b))
