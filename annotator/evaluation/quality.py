"""QA-quality statistics (pure): agreement per criterion and results per model.

Input is a list of :class:`QARating` (one rater's value of one criterion for one QA item)
and the options the schema offers per criterion. Agreement is Randolph's free-marginal
kappa with k = the number of options the schema offers for that criterion (docs/rules.md §5);
results count every rater's rating (two per item), as shares of each option and, after
binarising (:mod:`criteria`), the share of good ratings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from annotator.agreement.coefficients import category_counts, percent_agreement, randolph_kappa
from annotator.agreement.errors import UndefinedAgreement
from annotator.evaluation.criteria import is_good


@dataclass(frozen=True)
class QARating:
    item: int
    model: str
    section: str
    rater: str
    criterion: str
    value: object


def agreement(ratings: Sequence[QARating], options: dict[str, list]) -> dict:
    """{criterion: {kappa, percent, items, k}}; kappa None (with a reason) when undefined."""
    out = {}
    for criterion, values in options.items():
        by_item: dict[int, list] = defaultdict(list)
        for r in ratings:
            if r.criterion == criterion and r.value is not None:
                by_item[r.item].append(r.value)
        items = [by_item[i] for i in sorted(by_item)]
        entry = {"k": len(values), "items": sum(1 for v in items if len(v) >= 2)}
        try:
            counts = category_counts(items, values)
            entry["kappa"] = randolph_kappa(counts, k=len(values))
            entry["percent"] = percent_agreement(counts)
        except UndefinedAgreement as exc:
            entry.update(kappa=None, percent=None, explanation=str(exc))
        out[criterion] = entry
    return out


def _table(ratings: Sequence[QARating], options: dict[str, list]) -> dict:
    table = {}
    for criterion, values in options.items():
        chosen = [r.value for r in ratings if r.criterion == criterion and r.value is not None]
        n = len(chosen)
        binary = [g for g in (is_good(criterion, v) for v in chosen) if g is not None]
        table[criterion] = {
            "n": n,
            "shares": {str(v): (chosen.count(v) / n if n else None) for v in values},
            "good": (sum(binary) / len(binary)) if binary else None,
            "good_n": len(binary),
        }
    return table


def results(ratings: Sequence[QARating], options: dict[str, list]) -> dict:
    """Per model (and 'all'): per criterion the option shares and the good share; the same
    per model and abstract section."""
    models = sorted({r.model for r in ratings})
    by_model = {m: _table([r for r in ratings if r.model == m], options) for m in models}
    by_model["all"] = _table(ratings, options)
    by_section: dict[str, dict] = {}
    for m in models:
        mine = [r for r in ratings if r.model == m]
        by_section[m] = {s: _table([r for r in mine if r.section == s], options)
                         for s in sorted({r.section for r in mine})}
    items = {m: len({r.item for r in ratings if r.model == m}) for m in models}
    return {"models": models, "items_per_model": items, "by_model": by_model,
            "by_section": by_section}
