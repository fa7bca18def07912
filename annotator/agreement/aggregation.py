"""Ratings aggregated at sentence, document and system level (PLABA, Attal et al. 2023;
TREC 2024 PLABA track).

For each ordinal rating field, on the statistics values:
- ``sentence``: the rated items as they are (the field's own level; for a document-level
  field this level does not exist);
- ``document``: per (document, annotator) the mean over the document's items;
- ``system``: per (system, annotator) the mean over the documents whose ``meta["system"]``
  names that system.
At each level: number of units, the mean per annotator, the overall mean, the mean mapped
linearly from the scale's [min, max] to [0, 100] (as PLABA reports -1..1 axes), and interval
alpha (Krippendorff 2011) between annotators on the aggregated values, with a document
bootstrap CI for the sentence and document levels.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from .alpha import alpha_from_coincidence, coincidence_per_unit, delta_matrix, krippendorff_alpha
from .bootstrap import Bootstrap
from .data import Document
from .fields import Units, metric


def _to_0_100(x: float | None, lo: float, hi: float) -> float | None:
    if x is None or hi == lo:
        return None
    return (x - lo) / (hi - lo) * 100.0


def _level(cells: list[dict], doc_of: list[int] | None, n_docs: int, boot, lo, hi) -> dict:
    raters = sorted({r for c in cells for r in c})
    data = [[c.get(r) for c in cells] for r in raters]
    flat = [v for c in cells for v in c.values()]
    mean = float(np.mean(flat)) if flat else None
    out = {
        "units": len(cells),
        "mean": mean,
        "mean_0_100": _to_0_100(mean, lo, hi),
        "mean_by_annotator": {r: float(np.mean([c[r] for c in cells if r in c])) for r in raters},
    }
    per_doc = batch = None
    if doc_of is not None and boot is not None and cells:
        domain = sorted({v for v in flat})
        index = {v: i for i, v in enumerate(domain)}
        counts = np.zeros((len(cells), len(domain)))
        for u, c in enumerate(cells):
            for v in c.values():
                counts[u, index[v]] += 1
        per_doc = np.zeros((n_docs, len(domain), len(domain)))
        np.add.at(per_doc, np.asarray(doc_of), coincidence_per_unit(counts))
        delta = delta_matrix("interval", domain)
        batch = lambda o: alpha_from_coincidence(o, delta=delta)  # noqa: E731
    out["alpha_interval"] = metric(lambda: krippendorff_alpha(data, "interval"), boot, per_doc,
                                   batch, "alpha_interval")
    return out


def aggregate(units: Units, documents: Sequence[Document], field, boot: Bootstrap | None,
              item_level: bool) -> dict:
    """Sentence / document / system aggregation of one ordinal field's units."""
    stat = [float(o.stat_value) for o in field.options]
    lo, hi = min(stat), max(stat)
    n_docs = len(documents)
    result = {}
    if item_level:
        result["sentence"] = _level(units.values, units.doc, n_docs, boot, lo, hi)
    else:
        result["sentence"] = {"explanation": f"the field is rated at {field.level} level"}
    per_doc: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for d, cell in zip(units.doc, units.values):
        for r, v in cell.items():
            per_doc[d][r].append(float(v))
    doc_ids = sorted(per_doc)
    doc_cells = [{r: float(np.mean(v)) for r, v in per_doc[d].items()} for d in doc_ids]
    result["document"] = _level(doc_cells, doc_ids, n_docs, boot, lo, hi)
    systems: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for d, cell in zip(doc_ids, doc_cells):
        system = (documents[d].meta or {}).get("system")
        if system is not None:
            for r, v in cell.items():
                systems[str(system)][r].append(v)
    if systems:
        names = sorted(systems)
        sys_cells = [{r: float(np.mean(v)) for r, v in systems[s].items()} for s in names]
        level = _level(sys_cells, None, n_docs, None, lo, hi)
        level["per_system"] = {
            s: {"mean": float(np.mean(list(c.values()))),
                "mean_0_100": _to_0_100(float(np.mean(list(c.values()))), lo, hi)}
            for s, c in zip(names, sys_cells)}
        result["system"] = level
    else:
        result["system"] = {"explanation": "no document has meta['system']"}
    return result
