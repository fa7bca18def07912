"""Forked workers share what the parent loaded once (issue #29: align 36 abstracts faster).

The parent imports the word tokenizer and loads the model before the pool forks; the
suggestions must be exactly those of one process, on real InfoLossQA abstracts with the
real model, and nothing the parent loaded outlives the pool.
"""

from __future__ import annotations

import json

from annotator.align import pipeline, suggest_many
from annotator.align.embeddings import Embedder
from tests.helpers import INFOLOSSQA


def _pairs(n: int) -> list[dict]:
    pairs: dict[str, dict] = {}
    for path in sorted((INFOLOSSQA / "annotations").glob("annotations-*/*-annotations.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            pairs.setdefault(str(record["id"]), {"id": str(record["id"]),
                                                 "source": record["source"],
                                                 "target": record["target"]})
    return list(pairs.values())[:n]


def test_forked_workers_give_the_suggestions_of_one_process():
    pairs = _pairs(3)
    assert len(pairs) == 3
    one = [(i, [s.to_dict() for s in out])
           for i, out in suggest_many(pairs, workers=1, embedder=Embedder())]
    two = [(i, [s.to_dict() for s in out]) for i, out in suggest_many(pairs, workers=2)]
    assert two == one
    assert any(s["kind"] in ("deletion", "oversimplification") for _, out in one for s in out)
    assert pipeline._inherited == {}
