"""Document bootstrap for confidence intervals (Efron & Tibshirani 1993, percentile method).

Documents are resampled with replacement, B times, with a fixed seed. Each coefficient is
written as a function of per-document statistics that add up over documents (coincidence
matrices for alpha, confusion matrices for Cohen, sum of P_i and item counts for Randolph and
Fleiss, TP/FP/FN for span F1). A resample is then a vector of document multiplicities w
(sum = D), its statistics are ``w @ per_document``, and all B resamples are one matrix
product followed by the vectorised coefficient: no Python loop over resamples.

The 95% interval is the 2.5th and 97.5th percentile of the resampled values that are
defined; resamples on which the coefficient is undefined (e.g. only one category drawn) are
counted in ``undefined_resamples`` and left out.
"""

from __future__ import annotations

from typing import Callable

import numpy as np


class Bootstrap:
    """Holds the resampling weights (B x D) for one report so every metric uses the same
    resamples (paired intervals)."""

    def __init__(self, n_documents: int, resamples: int = 1000, seed: int = 0):
        self.n_documents = n_documents
        self.resamples = max(0, int(resamples))
        rng = np.random.default_rng(seed)
        if self.resamples and n_documents:
            draws = rng.integers(0, n_documents, size=(self.resamples, n_documents))
            flat = draws + (np.arange(self.resamples) * n_documents)[:, None]
            self.weights = np.bincount(flat.ravel(), minlength=self.resamples * n_documents)
            self.weights = self.weights.reshape(self.resamples, n_documents).astype(np.float64)
        else:
            self.weights = np.zeros((0, n_documents))

    def resampled_sums(self, per_document: np.ndarray) -> np.ndarray:
        """(D, ...) per-document statistics -> (B, ...) resampled sums."""
        per_document = np.asarray(per_document, dtype=np.float64)
        flat = per_document.reshape(per_document.shape[0], -1)
        return (self.weights @ flat).reshape((self.resamples,) + per_document.shape[1:])

    def interval(self, per_document: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray],
                 level: float = 0.95) -> dict:
        """Percentile CI of ``statistic`` (vectorised over the leading axis)."""
        if self.resamples == 0 or self.n_documents < 2:
            return {"low": None, "high": None, "level": level, "resamples": self.resamples,
                    "undefined_resamples": None,
                    "explanation": "no bootstrap: fewer than two documents or 0 resamples"}
        values = np.asarray(statistic(self.resampled_sums(per_document)), dtype=np.float64)
        return summarize(values, level, self.resamples)


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
