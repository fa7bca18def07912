"""Verbal bands for agreement coefficients.

- Landis & Koch (1977), for kappa-type coefficients: < 0 poor, 0.00-0.20 slight,
  0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 substantial, 0.81-1.00 almost perfect.
- Artstein & Poesio (2008, section 4.1.3), following Krippendorff for alpha: >= 0.8 good
  reliability; 0.667-0.8 allows tentative conclusions only; < 0.667 too low to rely on.
"""

from __future__ import annotations

LANDIS_KOCH = "Landis & Koch (1977)"
ARTSTEIN_POESIO = "Artstein & Poesio (2008)"

_LK = ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial"))


def landis_koch(value: float | None) -> str | None:
    """Landis & Koch (1977) band of a kappa value (None when undefined)."""
    if value is None:
        return None
    for upper, name in _LK:
        if value < upper or (upper > 0 and value <= upper):
            return name
    return "almost perfect"


def artstein_poesio(value: float | None) -> str | None:
    """Artstein & Poesio (2008) reading of an alpha value (None when undefined)."""
    if value is None:
        return None
    if value >= 0.8:
        return "good reliability"
    if value >= 0.667:
        return "tentative conclusions only"
    return "low reliability"


def band(metric: str, value: float | None) -> dict:
    """Band of a coefficient: alpha uses Artstein & Poesio, the others Landis & Koch."""
    if metric.startswith("alpha") or metric.startswith("sentence_alpha"):
        return {"band": artstein_poesio(value), "scale": ARTSTEIN_POESIO}
    return {"band": landis_koch(value), "scale": LANDIS_KOCH}
