"""Monotonic sentence alignment between an original and its simplification.

In the spirit of Vecalign (Thompson & Koehn 2019), which PLABA used to pair abstract and
plain-language sentences: a dynamic programme over the sentence similarity matrix finds
the cheapest monotonic path made of 1-1, 2-1 and 1-2 alignments and skips (a sentence of
either side left unaligned). Costs:

* 1-1: ``1 - cos(x, y)``;
* 2-1 / 1-2: ``2 * (1 - cos(x1 + x2, y))`` plus ``merge_penalty`` (Vecalign scales the
  cost by the number of sentences involved, so merges must pay for themselves). The cosine
  of a merged pair
  is computed exactly from pairwise similarities, as for a mean-pooled embedding of the
  concatenation: ``(S[i,j] + S[i+1,j]) / sqrt(2 + 2 * cos(x1, x2))``; Vecalign embeds the
  concatenated text instead, which this approximates without another model call.
  A merge is only allowed when each member reaches ``merge_min_similarity`` so an
  unrelated sentence (trailing content) is left unaligned rather than glued on;
* skip: ``skip_cost`` per sentence, so a 1-1 pair is kept when its similarity exceeds
  ``1 - 2 * skip_cost`` (with the default 0.5: any positive similarity). MiniLM gives
  faithful but heavily reworded simplifications similarities of only 0.3-0.5 while
  abstract sentences share a topic, so a cheaper skip lets topic-level similarity
  pull the path off the diagonal.

The function is pure (a matrix in, index groups out), so tests run without the model.

Work bound: the full table is used up to ``MAX_FULL_CELLS`` cells; larger inputs are
restricted to a band around the diagonal (|i*m - j*n| <= w * max(n, m)) holding about that
many cells, so the cost stays linear in the text length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

MAX_FULL_CELLS = 250_000


@dataclass
class SentenceAlignment:
    """Aligned groups as (source indices, target indices), plus the unaligned leftovers."""

    groups: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    unaligned_source: list[int] = field(default_factory=list)
    unaligned_target: list[int] = field(default_factory=list)


def _adjacent(self_sim: np.ndarray | None, count: int) -> np.ndarray:
    if self_sim is None:
        return np.zeros(max(count - 1, 0))
    self_sim = np.asarray(self_sim, dtype=float)
    if self_sim.ndim == 1:
        return self_sim
    return np.array([self_sim[k, k + 1] for k in range(count - 1)])


def align_sentences(
    similarity: np.ndarray,
    *,
    source_self: np.ndarray | None = None,
    target_self: np.ndarray | None = None,
    skip_cost: float = 0.5,
    merge_penalty: float = 0.05,
    merge_min_similarity: float = 0.25,
    max_cells: int = MAX_FULL_CELLS,
) -> SentenceAlignment:
    """Align sentences given ``similarity[i, j]`` = cos(source i, target j).

    ``source_self`` / ``target_self``: similarity among sentences of the same side, either
    a full square matrix or the vector of similarities of consecutive sentences; used to
    score merges (0 assumed when omitted).
    """
    sim = np.asarray(similarity, dtype=float)
    n, m = sim.shape if sim.ndim == 2 else (0, 0)
    if n == 0 or m == 0:
        return SentenceAlignment([], list(range(n)), list(range(m)))
    adj_s = _adjacent(source_self, n)
    adj_t = _adjacent(target_self, m)
    width = None
    if n * m > max_cells:
        # Half-width in "sentences along the longer side": ~max_cells cells in total.
        width = max(3.0, max_cells / (2.0 * max(n, m)))

    def allowed(i: int, j: int) -> bool:
        return width is None or abs(i * m - j * n) <= width * max(n, m)

    inf = math.inf
    cost: dict[tuple[int, int], float] = {(0, 0): 0.0}
    back: dict[tuple[int, int], tuple[int, int, str]] = {}
    s_list = sim.tolist()

    def relax(i: int, j: int, value: float, prev: tuple[int, int], move: str) -> None:
        if i > n or j > m or not allowed(i, j):
            return
        if value < cost.get((i, j), inf):
            cost[(i, j)] = value
            back[(i, j)] = (prev[0], prev[1], move)

    for i in range(n + 1):
        if width is None:
            j_range = range(m + 1)
        else:
            centre = i * m / n
            span = width * max(n, m) / n
            j_range = range(max(0, int(centre - span) - 1), min(m, int(centre + span) + 1) + 1)
        for j in j_range:
            here = cost.get((i, j))
            if here is None:
                continue
            if i < n and j < m:
                relax(i + 1, j + 1, here + 1.0 - s_list[i][j], (i, j), "11")
                if i + 1 < n and min(s_list[i][j], s_list[i + 1][j]) >= merge_min_similarity:
                    c = (s_list[i][j] + s_list[i + 1][j]) / math.sqrt(max(2 + 2 * adj_s[i], 1e-6))
                    relax(i + 2, j + 1, here + 2 * (1.0 - c) + merge_penalty, (i, j), "21")
                if j + 1 < m and min(s_list[i][j], s_list[i][j + 1]) >= merge_min_similarity:
                    c = (s_list[i][j] + s_list[i][j + 1]) / math.sqrt(max(2 + 2 * adj_t[j], 1e-6))
                    relax(i + 1, j + 2, here + 2 * (1.0 - c) + merge_penalty, (i, j), "12")
            if i < n:
                relax(i + 1, j, here + skip_cost, (i, j), "s")
            if j < m:
                relax(i, j + 1, here + skip_cost, (i, j), "t")

    result = SentenceAlignment()
    i, j = n, m
    while (i, j) != (0, 0):
        pi, pj, move = back[(i, j)]
        if move == "s":
            result.unaligned_source.append(pi)
        elif move == "t":
            result.unaligned_target.append(pj)
        else:
            result.groups.append((tuple(range(pi, i)), tuple(range(pj, j))))
        i, j = pi, pj
    result.groups.reverse()
    result.unaligned_source.reverse()
    result.unaligned_target.reverse()
    return result
