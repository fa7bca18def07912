"""Document bootstrap for confidence intervals (Efron & Tibshirani 1993, percentile method).

The resampled unit is the document, and only the documents that *carry the comparison*: a
coefficient compares annotators on the documents where two or more of them gave something
comparable, and a document that adds nothing to the coefficient's statistics (a singly
annotated document, one without rated items of the field) is no sample of it. Drawing from
every document of the project, as an earlier version did, gave one doubly annotated document
a 95% interval of -0.875 to -0.5 built from resamples that mostly did not contain it.

So for each coefficient the m carrying documents (those whose per-document statistics are
not all zero) are resampled with replacement, B times, with a fixed seed; with m < 2 there
is no interval and the reason says so. Each coefficient is written as a function of
per-document statistics that add up over documents (coincidence matrices for alpha,
confusion matrices for Cohen, sum of P_i and item counts for Randolph and Fleiss, TP/FP/FN
for span F1). A resample is a vector of multiplicities w over the carrying documents
(sum = m), its statistics are ``w @ per_document``, and all B resamples are one matrix
product followed by the vectorised coefficient: no Python loop over resamples. Metrics that
share the same carrying documents share the same resamples (paired intervals).

The 95% interval is the 2.5th and 97.5th percentile of the resampled values that are
defined; resamples on which the coefficient is undefined (e.g. only one category drawn) are
counted in ``undefined_resamples`` and left out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

DEFAULT_RESAMPLES = 1000


def multiplicities(n_units: int, resamples: int, seed: int) -> np.ndarray:
    """(B, n) matrix: how often each of n units is drawn in each of B resamples of size n."""
    if not resamples or not n_units:
        return np.zeros((0, n_units))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(resamples, n_units))
    flat = draws + (np.arange(resamples) * n_units)[:, None]
    counts = np.bincount(flat.ravel(), minlength=resamples * n_units)
    return counts.reshape(resamples, n_units).astype(np.float64)


def carrying_documents(per_document: np.ndarray) -> np.ndarray:
    """Indices of the documents whose statistics for a coefficient are not all zero."""
    per_document = np.asarray(per_document, dtype=np.float64)
    flat = per_document.reshape(per_document.shape[0], -1)
    return np.flatnonzero(np.any(flat != 0, axis=1))


class Bootstrap:
    """Resampling settings of one report: B resamples and the seed. Weights are drawn per
    set of carrying documents and cached, so metrics over the same documents are paired."""

    def __init__(self, n_documents: int, resamples: int = DEFAULT_RESAMPLES, seed: int = 0):
        self.n_documents = n_documents
        self.resamples = max(0, int(resamples))
        self.seed = seed
        self._weights: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def weights(self) -> np.ndarray:
        """(B, D) weights over every document (the resampling when all carry the comparison)."""
        return self.weights_for(np.arange(self.n_documents))

    def weights_for(self, documents: np.ndarray) -> np.ndarray:
        key = tuple(int(i) for i in documents)
        if key not in self._weights:
            self._weights[key] = multiplicities(len(key), self.resamples, self.seed)
        return self._weights[key]

    def resampled_sums(self, per_document: np.ndarray,
                       documents: np.ndarray | None = None) -> np.ndarray:
        """(D, ...) per-document statistics -> (B, ...) sums over resamples of ``documents``
        (default: every document)."""
        per_document = np.asarray(per_document, dtype=np.float64)
        if documents is None:
            documents = np.arange(per_document.shape[0])
        flat = per_document[documents].reshape(len(documents), -1)
        sums = self.weights_for(documents) @ flat
        return sums.reshape((self.resamples,) + per_document.shape[1:])

    def interval(self, per_document: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray],
                 level: float = 0.95) -> dict:
        """Percentile CI of ``statistic`` (vectorised over the leading axis), resampling the
        documents that carry the comparison."""
        carrying = carrying_documents(per_document)
        base = {"low": None, "high": None, "level": level, "resamples": self.resamples,
                "documents": len(carrying), "undefined_resamples": None}
        if self.resamples == 0:
            return {**base, "explanation": "no bootstrap: 0 resamples requested"}
        if len(carrying) < 2:
            return {**base, "explanation": f"no interval: {len(carrying)} document(s) carry "
                    "this comparison; a document bootstrap needs at least two"}
        values = np.asarray(statistic(self.resampled_sums(per_document, carrying)),
                            dtype=np.float64)
        return {**summarize(values, level, self.resamples), "documents": len(carrying)}


def summarize(values: np.ndarray, level: float, resamples: int) -> dict:
    defined = values[~np.isnan(values)]
    out = {"level": level, "resamples": resamples,
           "undefined_resamples": int(values.size - defined.size)}
    if defined.size == 0:
        out.update(low=None, high=None,
                   explanation="the coefficient is undefined on every resample")
        return out
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    out.update(low=float(low), high=float(high))
    return out
