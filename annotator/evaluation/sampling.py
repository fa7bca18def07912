"""The stratified sample of QA items to rate (pure).

For each model, n items are drawn so that each abstract section keeps the share it has
among that model's (valid) QA items: the quota of a section is n * share, rounded by the
largest-remainder method (ties: larger section first, then section name), capped at what
the section holds; items within a section are drawn with ``random.Random(seed)`` after
sorting by id, so the same data and seed always give the same sample.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Candidate:
    id: int
    model: str
    section: str


def quotas(counts: dict[str, int], n: int) -> dict[str, int]:
    """Largest-remainder allocation of n over sections proportionally to ``counts``."""
    total = sum(counts.values())
    n = min(n, total)
    if total == 0 or n == 0:
        return {s: 0 for s in counts}
    exact = {s: n * c / total for s, c in counts.items()}
    quota = {s: int(exact[s]) for s in counts}
    order = sorted(counts, key=lambda s: (-(exact[s] - quota[s]), -counts[s], s))
    for s in order[: n - sum(quota.values())]:
        quota[s] += 1
    return quota


def stratified_sample(items: Sequence[Candidate], per_model: int, seed: int = 0) -> list[int]:
    """Ids of the sampled items, sorted."""
    rng = random.Random(seed)
    chosen: list[int] = []
    by_model: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for item in sorted(items, key=lambda i: i.id):
        by_model[item.model][item.section].append(item.id)
    for model in sorted(by_model):
        sections = by_model[model]
        quota = quotas({s: len(ids) for s, ids in sections.items()}, per_model)
        for section in sorted(sections):
            chosen += rng.sample(sections[section], quota[section])
    return sorted(chosen)
