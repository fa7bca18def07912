"""The box cap that follows a document's expected number of losses (issue #29):
``ceil(factor x sum of max(p_deletion, p_oversimplification))`` boxes at most, hard evidence
included; ``--learn`` chooses the factor with the thresholds. Known answers, no model."""

import dataclasses
import math

import numpy as np

from annotator.align.content_classes import Mention
from annotator.align.learning import CAP_GRID, LearningDocument, choose_thresholds, machine_marks
from annotator.align.loss_ranker import KINDS, LossRanker, SentenceRow, box_cap, default_ranker
from annotator.core.edit_match import (
    Mark,
    between_annotators,
    machine_against_annotators,
)


def test_box_cap_is_the_rounded_up_expected_count_and_at_least_one():
    probs = {"deletion": np.array([0.1, 0.5, 0.2]), "oversimplification": np.array([0.3, 0.1, 0.2])}
    # expected marked sentences: 0.3 + 0.5 + 0.2 = 1.0
    assert box_cap(probs, 1.0) == 1
    assert box_cap(probs, 1.5) == 2
    assert box_cap(probs, 2.5) == 3
    assert box_cap({k: np.array([0.01]) for k in KINDS}, 1.0) == 1
    assert box_cap({k: np.zeros(0) for k in KINDS}, 1.0) == 0


def _rows(n):
    ranker = default_ranker()
    return [SentenceRow((20 * i, 20 * i + 10), ranker.mean.copy(),
                        missing=[Mention(20 * i, 20 * i + 9, "statistic", "p = 0.003")])
            for i in range(n)]


def test_the_cap_bounds_every_box_hard_evidence_included():
    rows = _rows(6)   # every row lost a p-value: hard evidence, boxed whatever the model says
    free = default_ranker()
    assert free.cap_factor is None  # the shipped model: the demo keeps its recall
    assert len(free.choose(rows)) == 6
    capped = dataclasses.replace(free, cap_factor=1.0)
    expected = float(np.maximum(*(capped.probabilities(rows)[k] for k in KINDS)).sum())
    assert len(capped.choose(rows)) == max(1, math.ceil(expected)) < 6


def test_the_cap_factor_round_trips_and_old_models_have_none():
    ranker = dataclasses.replace(default_ranker(), cap_factor=1.5)
    data = ranker.to_dict()
    assert LossRanker.from_dict(data).cap_factor == 1.5
    del data["cap_factor"]
    assert LossRanker.from_dict(data).cap_factor is None


def test_learn_chooses_a_cap_when_annotators_mark_few_of_many_hard_boxes():
    """Six documents, each with six sentences that lost a p-value, of which the annotator
    marked only the first: every uncapped choice boxes six, so a cap wins on F1."""
    rows = _rows(6)
    docs = [LearningDocument(str(d), "x" * 120, "y", {"a": [Mark("oversimplification",
                                                                ((0, 10),))]})
            for d in range(6)]
    rows_of = {d.id: rows for d in docs}
    ranker = default_ranker()
    thresholds, cap, _ = choose_thresholds(ranker, docs, rows_of)
    assert cap in CAP_GRID and cap is not None
    capped = dataclasses.replace(ranker, thresholds=thresholds, cap_factor=cap)
    assert len(capped.choose(rows)) < 6


def test_learn_keeps_precision_at_least_the_annotators_when_it_can():
    """Six hard-evidence sentences per document; "a" marks the first, "b" all six. Boxing all
    six has the best F1 (0.74) but precision 7/12, below the annotators' 1.0 (a's one mark
    is b's too); one box reaches it. With the floor, learning picks the precise point."""
    rows = _rows(6)
    marks = {"a": [Mark("oversimplification", ((0, 10),))],
             "b": [Mark("oversimplification", ((20 * i, 20 * i + 10),)) for i in range(6)]}
    docs = [LearningDocument(str(d), "x" * 120, "y", marks) for d in range(4)]
    rows_of = {d.id: rows for d in docs}
    gold = {d.id: d.marks for d in docs}
    ranker = default_ranker()

    def precision(floor):
        thresholds, cap, second = choose_thresholds(ranker, docs, rows_of, precision_floor=floor)
        chosen = dataclasses.replace(ranker, thresholds=thresholds, cap_factor=cap,
                                     second_thresholds=second)
        return machine_against_annotators(gold, machine_marks(chosen, docs, rows_of)).precision

    assert between_annotators(gold).precision == 1.0
    assert precision(False) < 1.0
    assert precision(True) == 1.0


def test_boxes_are_ranked_by_the_probability_of_either_kind_not_by_the_ratio_to_a_threshold():
    """Sentence A: oversimplification 0.15 against a threshold of 0.05 (three times it);
    sentence B: deletion 0.80 against 0.50 (1.6 times). With room for one box, B is shown:
    an expert marks it far more likely, whatever each kind's threshold."""
    n = len(default_ranker().mean)
    features = [np.zeros(n), np.zeros(n)]
    features[1][0] = 1.0
    rows = [SentenceRow((0, 10), features[0]), SentenceRow((20, 30), features[1])]
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    weights = {"deletion": np.r_[logit(0.8) + 6.0, np.zeros(n - 1), -6.0],
               "oversimplification": np.r_[-6.0 - logit(0.15), np.zeros(n - 1), logit(0.15)]}
    ranker = LossRanker(np.zeros(n), np.ones(n), weights,
                        {"deletion": 0.5, "oversimplification": 0.05}, max_per_document=2)
    probs = ranker.probabilities(rows)
    assert math.isclose(probs["deletion"][1], 0.8) and math.isclose(
        probs["oversimplification"][0], 0.15)
    assert [(row.span, kind) for row, kind, _ in ranker.choose(rows)] == [
        ((20, 30), "deletion"), ((0, 10), "oversimplification")]
    one = dataclasses.replace(ranker, max_per_document=1)
    assert [(row.span, kind) for row, kind, _ in one.choose(rows)] == [((20, 30), "deletion")]
