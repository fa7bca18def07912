"""Krippendorff's alpha: the package wrapper and a coincidence-matrix form for bootstrapping.

Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":

    alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck

with o_ck the coincidence matrix (each unit u with m_u >= 2 pairable values adds, for every
ordered pair of values from different raters, 1 / (m_u - 1)), n_c its marginals, n = sum n_c,
and d_ck the difference function of the level of measurement:

- nominal  d = 0 if c == k else 1
- ordinal  d = (sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2     (ranks, uses the marginals)
- interval d = (c - k) ** 2
- ratio    d = ((c - k) / (c + k)) ** 2                         (0 when c + k == 0)
- MASI     d = 1 - J * M for sets (Passonneau 2006; J = Jaccard, M = 1, 2/3, 1/3, 0 for
  identity, subset, overlap, disjoint); d(empty, empty) = 0.

Units with fewer than two ratings are not pairable and drop out. The point estimates in
reports come from the ``krippendorff`` package (:func:`krippendorff_alpha`); the coincidence
form (:func:`alpha_from_coincidence`) gives the same numbers and takes a batch of summed
coincidence matrices, which makes the document bootstrap a matrix product.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import krippendorff
import numpy as np

from .errors import UndefinedAgreement

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def encode(data: Sequence[Sequence[object]], domain: Sequence[object] | None = None):
    """Rows = raters, columns = units; None/NaN/"" = missing -> (codes with -1, domain).

    A numeric numpy array (NaN = missing) takes a vectorised path."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "fiu":
        return _encode_numeric(np.asarray(data, dtype=np.float64), domain)
    cells = [[_missing_to_none(v) for v in row] for row in data]
    if domain is None:
        seen = {v for row in cells for v in row if v is not None}
        domain = sorted(seen, key=_sort_key)
    index = {v: i for i, v in enumerate(domain)}
    codes = np.full((len(cells), len(cells[0]) if cells else 0), -1, dtype=np.int64)
    for r, row in enumerate(cells):
        for u, v in enumerate(row):
            if v is not None:
                if v not in index:
                    raise UndefinedAgreement(
                        f"value {v!r} is not one of the categories {list(domain)}"
                    )
                codes[r, u] = index[v]
    return codes, list(domain)


def _encode_numeric(data: np.ndarray, domain):
    data = np.atleast_2d(data)
    present = ~np.isnan(data)
    values = np.unique(data[present]) if domain is None else np.asarray(domain, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    pos = np.searchsorted(
        values[order], np.where(present, data, values[order][0] if len(values) else 0)
    )
    pos = np.minimum(pos, max(len(values) - 1, 0))
    ok = present & (len(values) > 0)
    if len(values):
        ok &= values[order][pos] == np.where(present, data, np.nan)
    if np.any(present & ~ok):
        bad = data[present & ~ok][0]
        raise UndefinedAgreement(f"value {bad!r} is not one of the categories {values.tolist()}")
    codes = np.where(ok, order[pos] if len(values) else -1, -1).astype(np.int64)
    out_domain = [int(v) if float(v).is_integer() else float(v) for v in values] \
        if domain is None else list(domain)
    return codes, out_domain


def unit_counts(codes: np.ndarray, n_values: int) -> np.ndarray:
    """codes (raters x units, -1 missing) -> value counts per unit (units x values)."""
    counts = np.zeros((codes.shape[1], n_values), dtype=np.float64)
    for row in codes:
        ok = row >= 0
        np.add.at(counts, (np.nonzero(ok)[0], row[ok]), 1.0)
    return counts


def coincidence_per_unit(counts: np.ndarray) -> np.ndarray:
    """Per-unit coincidence matrices (units x V x V); units with m_u < 2 give zeros."""
    m = counts.sum(axis=1)
    w = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    outer = counts[:, :, None] * counts[:, None, :]
    idx = np.arange(counts.shape[1])
    outer[:, idx, idx] -= counts
    return outer * w[:, None, None]


def coincidence(counts: np.ndarray) -> np.ndarray:
    """Coincidence matrix o_ck summed over units (Krippendorff 2011, section B)."""
    m = counts.sum(axis=1)
    w = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    o = (counts * w[:, None]).T @ counts
    o[np.diag_indices_from(o)] -= (counts * w[:, None]).sum(axis=0)
    return o


def delta_matrix(level: str, values: Sequence[float] | None = None, n_c=None) -> np.ndarray:
    """Difference function d_ck for nominal/interval/ratio (fixed) or ordinal (needs n_c).

    For ordinal, ``n_c`` may carry leading batch dimensions (..., V); the result is
    (..., V, V).
    """
    if level == "nominal":
        size = len(values) if values is not None else np.shape(n_c)[-1]
        return 1.0 - np.eye(size)
    if level == "ordinal":
        n_c = np.asarray(n_c, dtype=np.float64)
        cum = np.concatenate([np.zeros(n_c.shape[:-1] + (1,)), np.cumsum(n_c, -1)], -1)
        lo = np.minimum.outer(np.arange(n_c.shape[-1]), np.arange(n_c.shape[-1]))
        hi = np.maximum.outer(np.arange(n_c.shape[-1]), np.arange(n_c.shape[-1]))
        between = cum[..., hi + 1] - cum[..., lo]
        half = (n_c[..., :, None] + n_c[..., None, :]) / 2.0
        return (between - half) ** 2
    v = np.asarray(values, dtype=np.float64)
    diff = v[:, None] - v[None, :]
    if level == "interval":
        return diff**2
    if level == "ratio":
        total = v[:, None] + v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total == 0, 0.0, (diff / np.where(total == 0, 1, total)) ** 2)
    raise ValueError(f"unknown level {level!r}; expected one of {ALPHA_LEVELS}")


def alpha_from_coincidence(o: np.ndarray, level: str = "nominal", values=None, delta=None):
    """alpha from (batched) coincidence matrices (..., V, V); NaN where undefined."""
    o = np.asarray(o, dtype=np.float64)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    if delta is None:
        delta = delta_matrix(level, values, n_c if level == "ordinal" else None)
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        result = 1.0 - (n - 1.0) * observed / expected
    return np.where((expected > 0) & (n > 1), result, np.nan)


def check_alpha_defined(counts: np.ndarray, delta: np.ndarray | None = None) -> None:
    """Raise :class:`UndefinedAgreement` with the reason when alpha has no value."""
    m = counts.sum(axis=1)
    pairable = counts[m >= 2]
    if pairable.shape[0] == 0:
        if counts.sum() == 0:
            raise UndefinedAgreement("all ratings are missing")
        raise UndefinedAgreement("no unit has ratings from two or more raters (one rater only?)")
    used = np.nonzero(pairable.sum(axis=0))[0]
    if len(used) < 2:
        raise UndefinedAgreement(
            "every pairable rating has the same value (one category only): expected "
            "disagreement is 0, so alpha is undefined"
        )
    if delta is not None and not np.any(delta[np.ix_(used, used)] > 0):
        raise UndefinedAgreement("all observed values are at distance 0: alpha is undefined")


def krippendorff_alpha(
    data, level: str = "nominal", domain: Sequence[object] | None = None
) -> float:
    """Krippendorff's alpha (Krippendorff 2011) through the ``krippendorff`` package.

    ``data``: rows = raters, columns = units, None/NaN/"" = missing. Nominal values may be any
    hashable; the other levels need numbers. ``domain`` fixes the categories (and, for ordinal,
    their order). Raises :class:`UndefinedAgreement` for degenerate data.
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {ALPHA_LEVELS}")
    codes, domain = encode(data, domain)
    check_alpha_defined(unit_counts(codes, len(domain)))
    if level == "nominal":
        matrix = np.where(codes >= 0, codes, np.nan).astype(np.float64)
        value_domain = list(range(len(domain)))
    else:
        values = np.asarray(domain, dtype=np.float64)
        order = np.argsort(values, kind="stable")
        values = values[order]
        matrix = np.where(codes >= 0, np.asarray(domain, dtype=np.float64)[np.maximum(codes, 0)],
                          np.nan)
        value_domain = values.tolist()
    return float(krippendorff.alpha(reliability_data=matrix, value_domain=value_domain,
                                    level_of_measurement=level))


def masi_distance(a: frozenset, b: frozenset) -> float:
    """MASI distance (Passonneau 2006): 1 - |a&b|/|a|b| * M; d(empty, empty) = 0."""
    if not a and not b:
        return 0.0
    inter, union = len(a & b), len(a | b)
    if a == b:
        m = 1.0
    elif inter == min(len(a), len(b)):
        m = 2 / 3
    elif inter > 0:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - inter / union * m


def masi_delta(sets: Sequence[frozenset]) -> np.ndarray:
    """Pairwise MASI distances between the distinct label sets observed."""
    return np.array([[masi_distance(a, b) for b in sets] for a in sets],
                    dtype=np.float64).reshape(len(sets), len(sets))


def masi_alpha(data: Sequence[Sequence[frozenset | None]]) -> float:
    """Krippendorff's alpha with MASI distance over set-valued ratings (Passonneau 2006)."""
    codes, domain = encode(data)
    counts = unit_counts(codes, len(domain))
    delta = masi_delta(domain)
    check_alpha_defined(counts, delta)
    return float(alpha_from_coincidence(coincidence(counts), delta=delta))


def _missing_to_none(v):
    if v is None or (isinstance(v, float) and np.isnan(v)) or (isinstance(v, str) and v == ""):
        return None
    return v


def _sort_key(v: Hashable):
    if isinstance(v, frozenset):
        return (2, sorted(map(str, v)))
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(v))
