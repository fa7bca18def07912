"""Boxes carrying both loss kinds (issue #29): a box also carries the other kind where that
kind's probability reaches its second-kind threshold; which boxes are shown never depends
on it; ``--learn`` chooses the second-kind thresholds on each kind's own F1. Known answers,
no model."""

import dataclasses

from annotator.align.content_classes import Mention
from annotator.align.learning import NEVER, LearningDocument, choose_thresholds, machine_marks
from annotator.align.loss_ranker import KINDS, LossRanker, SentenceRow, default_ranker
from annotator.core.edit_match import Mark


def _rows(n):
    ranker = default_ranker()
    return [SentenceRow((20 * i, 20 * i + 10), ranker.mean.copy(),
                        missing=[Mention(20 * i, 20 * i + 9, "statistic", "p = 0.003")])
            for i in range(n)]


def test_a_second_kind_is_carried_from_its_own_threshold_and_never_changes_the_boxes():
    rows = _rows(3)
    single = default_ranker()
    probs = single.probabilities(rows)
    both = dataclasses.replace(single, second_thresholds={k: float(probs[k][0]) - 1e-6
                                                          for k in KINDS})
    none = dataclasses.replace(single, second_thresholds={k: float(probs[k][0]) + 1e-6
                                                          for k in KINDS})
    assert single.choose(rows) == both.choose(rows) == none.choose(rows)
    assert all(b.kind_scores is None and b.kinds == (b.kind,) for b in single.boxes(rows))
    assert all(b.kind_scores is None for b in none.boxes(rows))
    for box in both.boxes(rows):
        other = KINDS[1 - KINDS.index(box.kind)]
        assert box.kinds == (box.kind, other)
        assert box.kind_scores[box.kind] == box.probability
        assert 0 < box.kind_scores[other] < 1


def test_second_thresholds_round_trip_and_old_models_have_none():
    ranker = dataclasses.replace(default_ranker(),
                                 second_thresholds={"deletion": 0.15, "oversimplification": 0.4})
    data = ranker.to_dict()
    assert LossRanker.from_dict(data).second_thresholds == {"deletion": 0.15,
                                                            "oversimplification": 0.4}
    del data["second_thresholds"]
    assert LossRanker.from_dict(data).second_thresholds is None


def _documents(kind_of_mark):
    rows = _rows(1)
    docs = [LearningDocument(str(d), "x" * 40, "y", {"a": [Mark(kind_of_mark(d), ((0, 10),))]})
            for d in range(6)]
    return docs, {d.id: rows for d in docs}


def test_learn_puts_the_other_kind_on_boxes_when_annotators_mark_both_kinds_there():
    """Half the annotators mark the boxed sentence as a deletion, half as an
    oversimplification: whatever the primary kind, carrying the other one matches more."""
    docs, rows_of = _documents(lambda d: KINDS[d % 2])
    _, _, second = choose_thresholds(default_ranker(), docs, rows_of)
    assert second is not None and any(v < NEVER for v in second.values())
    marks = machine_marks(dataclasses.replace(default_ranker(), second_thresholds=second),
                          docs, rows_of)
    assert all(m.kinds == (m.kind, KINDS[1 - KINDS.index(m.kind)]) for v in marks.values()
               for m in v)


def test_learn_keeps_boxes_single_kind_when_annotators_use_one_kind_only():
    docs, rows_of = _documents(lambda d: "oversimplification")
    ranker = default_ranker()
    thresholds, cap, second = choose_thresholds(ranker, docs, rows_of)
    trial = dataclasses.replace(ranker, thresholds=thresholds, cap_factor=cap,
                                second_thresholds=second)
    marks = machine_marks(trial, docs, rows_of)
    assert all(m.kinds == ("oversimplification",) for v in marks.values() for m in v)
    assert choose_thresholds(ranker, docs, rows_of, two_kinds=False)[2] is None
