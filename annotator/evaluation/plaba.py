"""PLABA quality axes (pure): scores, agreement at three levels, axis correlations.

Each output sentence gets -1/0/1 per axis from each rater (TREC 2024: SIM, ACC, COM, BRV;
2023: SEN, TRM, TAC, FLU, COM, FTH). A score is the mean of the ratings mapped linearly
from [-1, 1] to [0, 100] (score = (mean + 1) * 50); FIN is the mean of the axis scores.
Agreement is Krippendorff's alpha (ordinal and interval) between raters at sentence level
(units: sentences), abstract level (units: abstracts, a rater's value = the mean of their
sentence ratings) and system level (units: systems, a rater's value = the mean of their
abstract means). Axis correlations: Pearson's r between axes over abstracts, each abstract
scored by the mean of all its ratings on that axis.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from annotator.agreement.alpha import krippendorff_alpha
from annotator.agreement.errors import UndefinedAgreement


@dataclass(frozen=True)
class AxisRating:
    document: str
    system: str
    sentence: int
    rater: str
    axis: str
    value: float


def to_0_100(mean: float | None) -> float | None:
    return None if mean is None else (mean + 1.0) * 50.0


def _mean(values) -> float | None:
    values = list(values)
    return float(np.mean(values)) if values else None


def scores(ratings: Sequence[AxisRating], axes: Sequence[str]) -> dict:
    """{system or 'all': {axis: score 0-100, 'FIN': mean of the axis scores, 'n': ratings}}."""
    systems = sorted({r.system for r in ratings})
    out = {}
    for name in [*systems, "all"]:
        mine = [r for r in ratings if name == "all" or r.system == name]
        row = {a: to_0_100(_mean(r.value for r in mine if r.axis == a)) for a in axes}
        present = [v for v in row.values() if v is not None]
        row["FIN"] = float(np.mean(present)) if len(present) == len(axes) else None
        row["n"] = len(mine)
        out[name] = row
    return out


def _alpha(cells: list[dict[str, float]], level: str) -> dict:
    raters = sorted({r for c in cells for r in c})
    data = [[c.get(r, np.nan) for c in cells] for r in raters]
    try:
        return {"value": krippendorff_alpha(data, level), "units": len(cells)}
    except (UndefinedAgreement, ValueError, ZeroDivisionError) as exc:
        return {"value": None, "units": len(cells), "explanation": str(exc)}


def level_cells(ratings: Sequence[AxisRating], axis: str) -> dict[str, list[dict]]:
    """The rater -> value cells of each unit at sentence, abstract and system level."""
    sentence: dict[tuple, dict[str, float]] = defaultdict(dict)
    system_of = {}
    for r in ratings:
        if r.axis == axis:
            sentence[(r.document, r.sentence)][r.rater] = float(r.value)
            system_of[r.document] = r.system
    per_doc: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for (doc, _), cell in sentence.items():
        for rater, v in cell.items():
            per_doc[doc][rater].append(v)
    abstract = {d: {r: float(np.mean(v)) for r, v in c.items()} for d, c in per_doc.items()}
    per_sys: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for doc, cell in abstract.items():
        for rater, v in cell.items():
            per_sys[system_of[doc]][rater].append(v)
    return {
        "sentence": [sentence[k] for k in sorted(sentence)],
        "abstract": [abstract[d] for d in sorted(abstract)],
        "system": [{r: float(np.mean(v)) for r, v in per_sys[s].items()} for s in sorted(per_sys)],
    }


def agreement(ratings: Sequence[AxisRating], axes: Sequence[str]) -> dict:
    """{axis: {level: {ordinal: {value, units}, interval: {...}}}}."""
    out = {}
    for axis in axes:
        cells = level_cells(ratings, axis)
        out[axis] = {level: {kind: _alpha(c, kind) for kind in ("ordinal", "interval")}
                     for level, c in cells.items()}
    return out


def abstract_means(ratings: Sequence[AxisRating], axes: Sequence[str]) -> dict[str, dict]:
    docs = sorted({r.document for r in ratings})
    return {d: {a: _mean(r.value for r in ratings if r.document == d and r.axis == a)
                for a in axes} for d in docs}


def correlations(ratings: Sequence[AxisRating], axes: Sequence[str]) -> dict:
    """Pearson's r between every two axes over abstracts (None when an axis is constant or
    fewer than three abstracts have both)."""
    means = abstract_means(ratings, axes)
    matrix = {}
    for a in axes:
        row = {}
        for b in axes:
            pairs = [(m[a], m[b]) for m in means.values() if m[a] is not None
                     and m[b] is not None]
            x = np.array([p[0] for p in pairs])
            y = np.array([p[1] for p in pairs])
            if len(pairs) < 3 or x.std() == 0 or y.std() == 0:
                row[b] = None
            else:
                row[b] = float(np.corrcoef(x, y)[0, 1])
        matrix[a] = row
    return {"axes": list(axes), "abstracts": len(means), "matrix": matrix}
