"""Known answers for the edit-overlap measure of pre-highlights against annotators (issue #14)."""

import pytest

from annotator.agreement.prehighlight_agreement import (
    per_annotator,
    ratio_resamples,
    report_section,
    summary,
)
from annotator.core.document_folds import fold_of, folds
from annotator.core.edit_match import (
    Counts,
    Mark,
    any_loss,
    between_annotators,
    machine_against_annotators,
    match,
)
from annotator.core.overlap import spans_overlap


def d(*spans):
    return Mark("deletion", tuple(spans))


def o(*spans):
    return Mark("oversimplification", tuple(spans))


def test_one_document_by_hand():
    a = [d((0, 10)), o((20, 30)), o((60, 70))]
    b = [d((5, 8)), o((25, 26)), d((20, 30)), o((100, 110))]
    c = match(a, b)
    # A: d(0,10) meets d(5,8); o(20,30) meets o(25,26) (the same-place deletion does not
    # count: other kind); o(60,70) meets nothing -> 2 of 3.
    # B: d(5,8) yes, o(25,26) yes, d(20,30) no (only an oversimplification there), o(100,110) no.
    assert (c.a_total, c.a_matched, c.b_total, c.b_matched) == (3, 2, 4, 2)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(0.5)
    assert c.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    only_d = match(a, b, "deletion")
    assert (only_d.a_total, only_d.a_matched, only_d.b_total, only_d.b_matched) == (1, 1, 2, 1)


def test_touching_spans_do_not_overlap_and_any_span_of_an_edit_counts():
    assert match([d((0, 10))], [d((10, 20))]).a_matched == 0
    assert match([d((0, 2), (50, 60))], [d((55, 56))]).a_matched == 1


def test_thresh_categories_are_the_tool_kinds_and_empty_edits_are_left_out():
    assert Mark.of("omission", [[3, 9]]) == d((3, 9))
    assert Mark.of("concept", [(1, 2)]) == o((1, 2))
    assert Mark.of("comment", [(1, 2)]) is None
    assert Mark.of("omission", []) is None
    assert Mark.of("omission", [(4, 4)]) is None


def test_counts_are_pooled_not_averaged():
    docs = {
        "1": {"ann": [d((0, 5))], "bob": [d((0, 5))]},                   # 1/1, 1/1
        "2": {"ann": [d((0, 5)), d((10, 15)), d((20, 25))], "bob": [d((40, 45))]},  # 0/3, 0/1
    }
    c = between_annotators(docs)
    assert (c.a_total, c.a_matched, c.b_total, c.b_matched) == (4, 1, 2, 1)
    assert c.precision == 0.25 and c.recall == 0.5   # per-document means would say 0.5 / 0.5
    assert c.f1 == pytest.approx(1 / 3)
    machine = {"1": [d((1, 2))], "2": [d((41, 42)), o((0, 50))]}
    m = machine_against_annotators(docs, machine)
    # Against ann: doc1 1/1 (ann 1/1), doc2 0/2 (ann 0/3);
    # against bob: doc1 1/1, doc2 1/2 (bob 1/1).
    assert (m.a_total, m.a_matched, m.b_total, m.b_matched) == (6, 3, 6, 3)
    s = summary(docs, machine)
    assert s["all"]["ratio"] == pytest.approx(0.5 / (1 / 3), abs=1e-4)
    assert s["oversimplification"]["annotators"]["f1"] is None


def test_per_annotator_puts_machine_beside_people():
    docs = {"1": {"ann": [d((0, 5))], "bob": [d((0, 5))], "cy": [d((50, 55))]}}
    table = per_annotator(docs, {"1": [d((50, 51))]})
    assert table["cy"]["pre-highlights"]["f1"] == 1.0
    assert table["cy"]["other annotators"]["f1"] == 0.0
    assert table["ann"]["other annotators"]["recall"] == 0.5


def test_empty_sides_give_undefined_not_zero():
    assert Counts().f1 is None
    assert match([], [d((0, 1))]).precision is None
    assert match([], [d((0, 1))]).recall == 0.0


def test_folds_are_a_stable_partition():
    ids = [str(i) for i in range(200)]
    split = folds(ids, 5)
    assert sorted(i for f in split for i in f) == sorted(ids)
    assert all(25 <= len(f) <= 55 for f in split)
    assert split == folds(reversed(ids), 5)
    # sha256, not Python's salted hash: the same in every process and on every machine.
    assert fold_of("1774569", 5) == int.from_bytes(
        __import__("hashlib").sha256(b"1774569").digest()[:4], "big") % 5
    # Another split (repeated cross-validation) is another stable partition.
    other = folds(ids, 5, split=1)
    assert other != split and other == folds(reversed(ids), 5, split=1)
    assert sorted(i for f in other for i in f) == sorted(ids)


def test_report_section_from_edits_counts_only_paired_documents():
    from annotator.agreement.data import Edit, Span
    from annotator.agreement.prehighlight_agreement import annotations_from_edits

    edits = [Edit("1", "a", "ann", "deletion", spans=[Span("source", 0, 5), Span("target", 0, 3)]),
             Edit("2", "a", "bob", "deletion", spans=[Span("source", 2, 4)]),
             Edit("3", "a", "bob", "comment", spans=[]),
             Edit("4", "b", "ann", "oversimplification", spans=[Span("source", 0, 9)])]
    docs = annotations_from_edits(edits)
    assert docs["a"]["ann"] == [d((0, 5))] and docs["a"]["bob"] == [d((2, 4))]
    section = report_section(docs, {"a": [d((4, 6))], "b": [o((0, 1))]}, k=3)
    assert section["documents"] == 1                      # "b" has one annotator only
    overall = section["overall"]["all"]
    assert overall["annotators"]["f1"] == 1.0
    assert overall["pre-highlights"]["precision"] == 0.5  # meets ann's (0, 5), not bob's (2, 4)
    assert overall["ratio"] == 0.5
    assert sum(f["documents"] for f in section["folds"]) == 1
    # One paired document: every resample is that document, the interval is the point.
    assert section["ratio_interval"] == [0.5, 0.5]


def test_ratio_resamples_by_hand():
    """Document bootstrap of the ratio on two doubly annotated documents (a third, with one
    annotator, is not resampled). Machine = annotator a.
    Doc 1: a and b agree. Machine counts (A edits, matched, B edits, matched) over a and b:
    (2, 2, 2, 2); experts (1, 1, 1, 1). Doc 2: b marks the same place as another kind.
    Machine (2, 1, 2, 1); experts (1, 0, 1, 0).
    Resamples of size 2: doc 1 twice: F1 1 / 1 = 1; each once: 0.75 / 0.5 = 1.5; doc 2
    twice: the experts' F1 is 0, no ratio (NaN, as summary() gives None)."""
    import numpy as np

    docs = {"1": {"a": [d((0, 5))], "b": [d((0, 5))]},
            "2": {"a": [d((10, 15))], "b": [o((10, 15))]},
            "3": {"a": [d((0, 5))]}}
    machine = {"1": [d((0, 5))], "2": [d((10, 15))], "3": [o((0, 5))]}
    values = ratio_resamples(docs, [machine, machine, {}], resamples=400, seed=3)
    assert values.shape == (3, 400)
    defined = values[0][~np.isnan(values[0])]
    assert set(np.round(defined, 9)) == {1.0, 1.5}
    # Each once is the likeliest draw (1/2), each single document twice 1/4.
    assert 0.4 < np.mean(np.isclose(values[0], 1.5)) < 0.6
    assert 0.15 < np.mean(np.isnan(values[0])) < 0.35
    assert np.array_equal(values[0], values[1], equal_nan=True), "paired: same resamples"
    assert np.isnan(values[2]).all(), "no machine edits: precision undefined"
    # No doubly annotated document: nothing to resample, no interval (not an error).
    single = {"3": docs["3"]}
    assert np.isnan(ratio_resamples(single, [machine], resamples=50)).all()
    assert report_section(single, machine)["ratio_interval"] is None
    # The pooled point value over the resampled documents is the "each once" draw.
    assert summary({k: docs[k] for k in "12"}, machine)["all"]["ratio"] == 1.5


def test_a_box_carrying_both_kinds_matches_either_and_counts_once_pooled():
    both = Mark("deletion", ((0, 10),), ("oversimplification",))
    experts = [o((2, 4)), d((50, 60))]
    pooled = match([both], experts)
    # Pooled: one box, matched (by the oversimplification); of the experts' two edits one
    # is matched.
    assert (pooled.a_total, pooled.a_matched, pooled.b_total, pooled.b_matched) == (1, 1, 2, 1)
    # Per kind: the box counts in each kind it carries, as a mark of that kind only.
    dele = match([both], experts, "deletion")
    assert (dele.a_total, dele.a_matched, dele.b_total, dele.b_matched) == (1, 0, 1, 0)
    over = match([both], experts, "oversimplification")
    assert (over.a_total, over.a_matched, over.b_total, over.b_matched) == (1, 1, 1, 1)
    # The same box with one kind: only a deletion, so it matches nothing.
    assert match([d((0, 10))], experts).a_matched == 0
    assert both.kinds == ("deletion", "oversimplification")
    assert d((0, 10)).kinds == ("deletion",)


def test_the_kind_agnostic_figure_lets_any_loss_edit_match_any_other():
    docs = {"1": {"ann": [d((0, 5)), o((10, 20))], "bob": [o((1, 3)), o((30, 40))]}}
    strict = between_annotators(docs)
    assert (strict.a_matched, strict.b_matched) == (0, 0)
    agnostic = between_annotators(any_loss(docs))
    assert (agnostic.a_total, agnostic.a_matched, agnostic.b_total, agnostic.b_matched) == (
        2, 1, 2, 1)


def test_spans_overlap_needs_one_shared_character():
    assert spans_overlap([(0, 5)], [(4, 9)])                 # character 4 is shared
    assert not spans_overlap([(0, 5)], [(5, 9)])             # touching is not overlapping
    assert spans_overlap([(0, 2), (10, 12)], iter([(11, 20)]))  # any pair; any iterable
    assert not spans_overlap([], [(0, 9)])
