"""PlainFact sentence typing (pure): Cohen's kappa per field between two annotators, the
disputed items, and the alignment suggestion for each simplified sentence.

Relation values are sets of original sentence numbers (or 'external'); for kappa each set
is one nominal label (its sorted, comma-joined form), so {1, 2} and {2} disagree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from annotator.agreement.coefficients import cohen_kappa
from annotator.agreement.errors import UndefinedAgreement

FIELDS = ("type", "role", "relation")


@dataclass(frozen=True)
class TypeRating:
    document: str
    sentence: int
    rater: str
    field: str
    value: object


def label(value) -> str | None:
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list):
        return ",".join(str(v) for v in sorted(value, key=lambda v: (isinstance(v, str), v)))
    return str(value)


def relation_problem(value) -> str | None:
    """Why a relation value contradicts itself, or None: "external" says the sentence comes
    from outside the original, so it cannot also name original sentences (PlainFact)."""
    if isinstance(value, list) and "external" in value and len(value) > 1:
        numbers = ", ".join(str(v) for v in value if v != "external")
        return (f"'external' cannot go with original sentence numbers ({numbers}): "
                "choose either external or the sentences")
    return None


def rating_problem(field: str, value) -> str | None:
    """The PlainFact mode's rule on a rating value (``annotate.modes`` applies it): the
    ``relation`` field may not mix "external" with sentence numbers."""
    return relation_problem(value) if field == "relation" else None


def kappas(ratings: Sequence[TypeRating], fields: Sequence[str] = FIELDS) -> dict:
    """{field: {kappa, units, raters}} over the sentences both annotators labelled (with more
    than two annotators: the two who labelled the most shared sentences)."""
    out = {}
    for f in fields:
        cells: dict[tuple, dict[str, str]] = defaultdict(dict)
        for r in ratings:
            if r.field == f and label(r.value) is not None:
                cells[(r.document, r.sentence)][r.rater] = label(r.value)
        raters = sorted({x for c in cells.values() for x in c})
        best = None
        for i, a in enumerate(raters):
            for b in raters[i + 1:]:
                shared = [k for k in sorted(cells) if a in cells[k] and b in cells[k]]
                if best is None or len(shared) > len(best[2]):
                    best = (a, b, shared)
        if not best or not best[2]:
            # Same keys as a computed entry ("percent" too): the results page reads each.
            out[f] = {"kappa": None, "percent": None, "units": 0, "raters": raters,
                      "explanation": "no two annotators labelled the same sentence"}
            continue
        a, b, shared = best
        try:
            k = cohen_kappa([cells[s][a] for s in shared], [cells[s][b] for s in shared])
        except (UndefinedAgreement, ZeroDivisionError) as exc:
            out[f] = {"kappa": None, "percent": None, "units": len(shared), "raters": [a, b],
                      "explanation": str(exc)}
            continue
        agree = sum(cells[s][a] == cells[s][b] for s in shared) / len(shared)
        out[f] = {"kappa": k, "percent": agree, "units": len(shared), "raters": [a, b]}
    return out


def suggested_relation(alignment: list | None, target_index: int) -> list:
    """Original sentence numbers (1-based) aligned to simplified sentence ``target_index``
    (0-based) by the alignment engine; ['external'] when it is aligned to none."""
    numbers = set()
    for group in alignment or []:
        sources, targets = group
        if target_index in targets:
            numbers.update(s + 1 for s in sources)
    return sorted(numbers) if numbers else ["external"]
