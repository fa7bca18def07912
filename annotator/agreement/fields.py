"""Agreement on one categorical field: all coefficients with bootstrap intervals.

A field is rated on *units* (a rated item, or a matched pair of edits); each unit belongs to
a document (for the document bootstrap) and has one value per rater who rated it. Values are
the schema's statistics values (``Option.stat_value``; Devaraj's -1 "gibberish" counts as 3).

Which coefficients (docs/rules.md §5):
- choice: nominal alpha (Krippendorff 2011), Randolph (2005) with k = number of options in the
  schema, Fleiss (1971), Cohen (1960) per rater pair, percent agreement, Devaraj et al.
  (2022) majority statistics, confusion matrix per rater pair;
- ordinal: the same plus ordinal and interval alpha and linearly / quadratically weighted
  Cohen (1968), distances taken on the statistics values;
- multichoice: alpha with MASI distance (Passonneau 2006) and percent agreement (identical
  sets); text: skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable

import numpy as np

from . import coefficients as co
from .alpha import (
    alpha_from_coincidence,
    coincidence_per_unit,
    delta_matrix,
    krippendorff_alpha,
    masi_alpha,
)
from .bootstrap import Bootstrap
from .errors import UndefinedAgreement
from .interpretation import band


@dataclass
class Units:
    """Rated units of one field: ``doc[u]`` is the document index, ``values[u]`` maps rater
    name -> statistics value."""

    doc: list[int]
    values: list[dict]

    def raters(self) -> list[str]:
        return sorted({r for v in self.values for r in v})


def metric(point: Callable[[], float], boot: Bootstrap | None = None, per_doc=None,
           batch: Callable | None = None, name: str = "") -> dict:
    """{"value", "ci", "explanation", "interpretation"}: null + explanation when undefined."""
    try:
        value = float(point())
        explanation = None
    except UndefinedAgreement as exc:
        value, explanation = None, str(exc)
    ci = None
    if value is not None and boot is not None and per_doc is not None and batch is not None:
        ci = boot.interval(per_doc, batch)
    out = {"value": value, "ci": ci, "explanation": explanation}
    if name:
        out["interpretation"] = band(name, value)
    return out


def _per_doc(units: Units, n_docs: int, per_unit: np.ndarray) -> np.ndarray:
    out = np.zeros((n_docs,) + per_unit.shape[1:])
    if len(units.doc):
        np.add.at(out, np.asarray(units.doc), per_unit)
    return out


def field_agreement(units: Units, field, n_docs: int, boot: Bootstrap | None) -> dict:
    """All applicable coefficients of ``field`` (a schema FieldSpec) on ``units``."""
    if field.type == "multichoice":
        return _multichoice(units)
    categories = sorted({o.stat_value for o in field.options}, key=_num_or_str) \
        if field.type == "ordinal" else list(dict.fromkeys(o.stat_value for o in field.options))
    k = len(field.options)
    raters = units.raters()
    index = {c: j for j, c in enumerate(categories)}
    counts = np.zeros((len(units.values), len(categories)))
    for u, vals in enumerate(units.values):
        for v in vals.values():
            counts[u, index[v]] += 1
    pairable = counts.sum(axis=1) >= 2
    p_i = np.where(pairable, np.nan_to_num(co.item_agreement(counts)), 0.0)
    fleiss_doc = _per_doc(units, n_docs, np.column_stack(
        [p_i, pairable.astype(float), counts * pairable[:, None]]))
    coinc_doc = _per_doc(units, n_docs, coincidence_per_unit(counts))
    data = [[vals.get(r) for vals in units.values] for r in raters]
    out = {"units": int(len(units.values)), "pairable_units": int(pairable.sum()),
           "raters": raters, "categories": categories, "k": k}
    levels = ("nominal", "ordinal", "interval") if field.type == "ordinal" else ("nominal",)
    for level in levels:
        fixed = None if level == "ordinal" else delta_matrix(level, categories)
        out[f"alpha_{level}"] = metric(
            lambda level=level: krippendorff_alpha(data, level, categories), boot, coinc_doc,
            lambda o, level=level, fixed=fixed: alpha_from_coincidence(
                o, level, categories, delta=fixed), f"alpha_{level}")
    out["randolph"] = metric(lambda: co.randolph_kappa(counts, k), boot, fleiss_doc[:, :2],
                             lambda s: co.randolph_batch(s[..., 0], s[..., 1], k), "randolph")
    out["fleiss"] = metric(lambda: co.fleiss_kappa(counts), boot, fleiss_doc,
                           lambda s: co.fleiss_batch(s[..., 0], s[..., 1], s[..., 2:]), "fleiss")
    out["percent"] = metric(lambda: co.percent_agreement(counts), boot, fleiss_doc[:, :2],
                            _ratio)
    out["cohen"] = _cohen_pairs(units, raters, categories, field.type == "ordinal", n_docs, boot)
    zero = 0 if 0 in categories else categories[0]
    items = [list(v.values()) for v in units.values]
    try:
        out["majority"] = {
            **co.majority_stats(items, zero),
            "zero_label": zero,
            "explanation": None,
        }
    except UndefinedAgreement as exc:
        out["majority"] = {"items": 0, "explanation": str(exc)}
    return out


def _cohen_pairs(units, raters, categories, ordinal, n_docs, boot) -> dict:
    """Cohen's kappa and confusion matrix for every pair of raters with shared units."""
    index = {c: j for j, c in enumerate(categories)}
    k = len(categories)
    numeric = all(isinstance(c, (int, float)) for c in categories)
    values = categories if numeric else None
    kinds = ("none", "linear", "quadratic") if ordinal else ("none",)
    pairs = {}
    for a, b in combinations(raters, 2):
        shared = [(d, v[a], v[b]) for d, v in zip(units.doc, units.values) if a in v and b in v]
        if not shared:
            continue
        per = np.zeros((n_docs, k, k))
        for d, x, y in shared:
            per[d, index[x], index[y]] += 1
        total = per.sum(axis=0)
        entry = {"items": len(shared), "confusion": total.astype(int).tolist(),
                 "rows": a, "columns": b}
        for kind in kinds:
            w = co.cohen_weights(k, kind, values)
            entry["kappa" if kind == "none" else f"kappa_{kind}"] = metric(
                lambda kind=kind: co.cohen_kappa_from_confusion(total, kind, values), boot, per,
                lambda m, w=w: co.cohen_batch(m, w), "cohen")
        pairs[f"{a}|{b}"] = entry
    return {"pairs": pairs, "explanation": None if pairs else "no two raters share a unit"}


def _multichoice(units: Units) -> dict:
    raters = units.raters()
    data = [[(frozenset(v[r]) if r in v else None) for v in units.values] for r in raters]
    items = [[frozenset(x) for x in v.values()] for v in units.values]
    pairable = [i for i in items if len(i) >= 2]
    out = {"units": len(units.values), "pairable_units": len(pairable), "raters": raters}
    out["alpha_masi"] = metric(lambda: masi_alpha(data), name="alpha_masi")

    def percent():
        if not pairable:
            raise UndefinedAgreement("no item has ratings from two or more raters")
        return float(np.mean([len(set(i)) == 1 for i in pairable]))

    out["percent"] = metric(percent)
    return out


def _ratio(s):
    with np.errstate(divide="ignore", invalid="ignore"):
        return s[..., 0] / s[..., 1]


def _num_or_str(v):
    return (0, float(v), "") if isinstance(v, (int, float)) else (1, 0.0, str(v))


__all__ = ["Units", "field_agreement", "metric"]
