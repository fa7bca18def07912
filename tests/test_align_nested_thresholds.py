"""The operating point of a refit is chosen on out-of-fold probabilities (nested
cross-validation, issue #29): every document is scored by a model fitted on the other
inner folds, never by one that saw it. Synthetic rows, known answers."""

import dataclasses

import numpy as np

from annotator.align import learning
from annotator.align.learning import (
    LearningDocument,
    learn,
    machine_marks,
    out_of_fold_models,
    training_set,
)
from annotator.align.loss_ranker import KINDS, SentenceRow, default_ranker, fit_ranker
from annotator.core.document_folds import folds
from annotator.core.edit_match import Mark


def _documents(n, sentences=6, seed=3):
    """``n`` documents whose first feature tells marked sentences from the others."""
    rng = np.random.default_rng(seed)
    ranker = default_ranker()
    docs, rows_of = [], {}
    for d in range(n):
        rows, marks = [], []
        for i in range(sentences):
            features = ranker.mean + ranker.scale * rng.normal(size=len(ranker.mean))
            marked = i % 3 == 0
            features[0] = ranker.mean[0] + (1.5 if marked else -1.5) * ranker.scale[0]
            rows.append(SentenceRow((20 * i, 20 * i + 10), features))
            if marked:
                marks.append(Mark("oversimplification", ((20 * i, 20 * i + 10),)))
        docs.append(LearningDocument(f"doc{d}", "x" * 20 * sentences, "y", {"a": marks}))
        rows_of[f"doc{d}"] = rows
    return docs, rows_of


def test_every_document_is_scored_by_a_model_fitted_without_its_inner_fold():
    docs, rows_of = _documents(8)
    models = out_of_fold_models(docs, rows_of, k=4)
    assert set(models) == {d.id for d in docs}
    for part in folds([d.id for d in docs], 4, learning.INNER_SPLIT):
        others = [d for d in docs if d.id not in part]
        rows, labels, weights = training_set(others, rows_of)
        expected = fit_ranker(rows, labels, thresholds={k: 0.5 for k in KINDS},
                              sample_weight=weights)
        for doc_id in part:
            for kind in KINDS:
                np.testing.assert_allclose(models[doc_id].weights[kind], expected.weights[kind])
    rows, labels, weights = training_set(docs, rows_of)
    full = fit_ranker(rows, labels, thresholds={k: 0.5 for k in KINDS}, sample_weight=weights)
    assert not np.allclose(models["doc0"].weights["oversimplification"],
                           full.weights["oversimplification"])


def test_no_inner_folds_with_one_document_or_one_fold():
    docs, rows_of = _documents(3)
    assert out_of_fold_models(docs[:1], rows_of) == {}
    assert out_of_fold_models(docs, rows_of, k=1) == {}
    assert len(out_of_fold_models(docs, rows_of, k=4)) == 3   # as many folds as documents


def test_machine_marks_take_each_documents_probabilities_from_its_own_model():
    docs, rows_of = _documents(2)
    ranker = dataclasses.replace(default_ranker(), cap_factor=None, second_thresholds=None)
    silent = dataclasses.replace(ranker, weights={k: np.r_[np.zeros(len(ranker.mean)), -10.0]
                                                  for k in KINDS})
    eager = dataclasses.replace(ranker, weights={k: np.r_[np.zeros(len(ranker.mean)), 10.0]
                                                 for k in KINDS})
    marks = machine_marks(silent, docs, rows_of, models_of={"doc1": eager})
    assert marks["doc0"] == []   # the ranker's own probabilities: nothing clears a threshold
    assert len(marks["doc1"]) == ranker.max_per_document   # the eager model's: every row


def test_learn_chooses_its_operating_point_on_out_of_fold_probabilities(monkeypatch):
    docs, rows_of = _documents(6)
    seen = {}
    choose = learning.choose_thresholds

    def spy(ranker, docs_, rows_of_, **kwargs):
        seen.update(kwargs.get("models_of") or {})
        return choose(ranker, docs_, rows_of_, **kwargs)

    monkeypatch.setattr(learning, "choose_thresholds", spy)
    model = learn(docs, None, rows_of=rows_of, inner_folds=4)
    assert set(seen) == {d.id for d in docs}
    assert all(0.0 < t < 1.0 for t in model.thresholds.values())
    seen.clear()
    learn(docs, None, rows_of=rows_of, inner_folds=1)
    assert seen == {}   # the refitted model's own probabilities
    learn(docs, None, rows_of=rows_of)
    assert seen == {}   # the default (learning.INNER_FOLDS, see why there)
