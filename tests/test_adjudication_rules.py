"""Pure adjudication rules: grouping edits into candidate units, majority and tie rules."""

from __future__ import annotations

import pytest

from annotator.adjudication.grouping import EditView, group_edits, link_strength
from annotator.adjudication.labels import disagreement, merged_fields, resolve_labels
from annotator.core.overlap import token_set_overlap
from tests.adjudication_fixtures import SOURCE, TARGET


def view(edit_id, annotator, phrase, question, side="source", edit_type="deletion"):
    text = SOURCE if side == "source" else TARGET
    start = text.index(phrase)
    return EditView(edit_id, annotator, edit_type, ((side, start, start + len(phrase)),),
                    {"question": question, "answer": "x"})


@pytest.fixture(scope="module")
def embed():
    """The real MiniLM model (loaded once per process): similarity must be real here."""
    from annotator.align.embeddings import default_embedder

    return default_embedder().encode


def groups(units):
    return [u.edit_ids for u in units]


def test_overlapping_evidence_groups_edits_of_different_annotators():
    edits = [view(1, "ana", "2.5 mg/kg i.v. daily", "How much?"),
             view(2, "ben", "2.5 mg/kg i.v.", "What dose?"),
             view(3, "ben", "double-blind", "Design?")]
    units = group_edits(edits, SOURCE, TARGET)
    assert groups(units) == [[1, 2], [3]]
    assert units[0].iou == pytest.approx(3 / 4) and units[0].matched
    assert not units[1].matched and units[1].annotators == ["ben"]


def test_low_overlap_alone_does_not_group_without_similarity():
    edits = [view(1, "ana", "2.5 mg/kg i.v. daily", "What dose?"),
             view(2, "ben", "daily for 12 weeks", "What dose?")]  # 1 of 4 tokens shared
    assert groups(group_edits(edits, SOURCE, TARGET)) == [[1], [2]]


def test_nested_edits_of_one_type_are_one_change_at_two_granularities():
    # Issue 42: a wide edit and a narrow one inside it are one unit (no embedded questions
    # to tell them apart); of different types, nesting alone is not enough.
    edits = [view(1, "ana", "2.5 mg/kg i.v. daily for 12 weeks", "What dose?"),
             view(2, "ben", "2.5 mg/kg", "What dose?")]
    units = group_edits(edits, SOURCE, TARGET)
    assert groups(units) == [[1, 2]] and units[0].granularity
    assert units[0].iou == pytest.approx(2 / 7)
    other = [edits[0], view(2, "ben", "2.5 mg/kg", "What dose?", edit_type="insertion")]
    assert groups(group_edits(other, SOURCE, TARGET)) == [[1], [2]]


def test_an_edit_split_in_two_by_another_annotator_is_one_unit():
    # ana marks "2.5 mg/kg i.v. daily" once; ben marks it as "2.5 mg/kg" and "i.v. daily":
    # one unit holding both of ben's halves.
    edits = [view(1, "ana", "2.5 mg/kg i.v. daily", "q"), view(2, "ben", "2.5 mg/kg", "q"),
             view(3, "ben", "i.v. daily", "q"), view(4, "ben", "double-blind", "q")]
    units = group_edits(edits, SOURCE, TARGET)
    assert groups(units) == [[1, 2, 3], [4]]
    assert units[0].annotators == ["ana", "ben"] and units[0].iou == 1.0
    assert units[0].granularity and not units[1].matched


def test_edits_of_one_annotator_share_a_unit_only_through_another_annotator():
    # Before issue 42 a unit held one edit per annotator and ana's second edit of the same
    # words stood alone; now both of ana's edits are in ben's unit. Her own two nested
    # edits elsewhere, which nobody else marked, stay two units.
    edits = [view(1, "ana", "2.5 mg/kg i.v. daily", "q"), view(2, "ana", "2.5 mg/kg i.v.", "q"),
             view(3, "ben", "2.5 mg/kg i.v. daily", "q"), view(4, "ana", "double-blind", "q"),
             view(5, "ana", "was double-blind", "q")]
    assert groups(group_edits(edits, SOURCE, TARGET)) == [[1, 2, 3], [4], [5]]


def test_partial_overlap_plus_similar_question_groups(embed):
    same = [view(1, "ana", "2.5 mg/kg i.v. daily for 12 weeks", "How much of the drug did "
                 "patients get?"), view(2, "ben", "2.5 mg/kg", "What dose did patients receive?")]
    other = [same[0], view(2, "ben", "2.5 mg/kg", "How was the study designed?")]
    assert groups(group_edits(same, SOURCE, TARGET, embed)) == [[1, 2]]
    assert group_edits(same, SOURCE, TARGET, embed)[0].similarity > 0.6
    assert groups(group_edits(other, SOURCE, TARGET, embed)) == [[1], [2]]


def test_near_identical_questions_group_without_overlap(embed):
    edits = [view(1, "ana", "12 weeks", "What dose did patients receive?"),
             view(2, "ben", "2.5 mg/kg", "What dose did the patients receive?"),
             view(3, "cy", "double-blind", "Was the change significant?")]
    assert groups(group_edits(edits, SOURCE, TARGET, embed)) == [[1, 2], [3]]


def test_evidence_on_different_sides_does_not_overlap():
    edits = [view(1, "ana", "fair", "q", side="target", edit_type="oversimplification"),
             view(2, "ben", "double-blind", "q")]
    assert groups(group_edits(edits, SOURCE, TARGET)) == [[1], [2]]


def test_link_strength_thresholds():
    assert link_strength(0.5, None) == 0.5
    assert link_strength(0.3, None) is None
    assert link_strength(0.3, 0.7) == pytest.approx(1.0)
    assert link_strength(0.0, 0.7) is None
    assert link_strength(0.0, 0.9) == pytest.approx(0.9)
    iou, cover = token_set_overlap({"source": frozenset({1, 2})}, {"source": frozenset({2, 3})})
    assert (iou, cover) == (pytest.approx(1 / 3), pytest.approx(1 / 2))


# Devaraj et al. (2022): majority label; all different = no final label.
@pytest.mark.parametrize("values,status,value", [
    ([1, 1, 2], "majority", 1),
    ([2, 1, 0], "all_different", None),
    ([0, 0, 0], "unanimous", 0),
    ([1, 2], "tie", None),
    ([1, 1, 2, 2], "tie", None),
    ([-1, -1, 2], "majority", -1),
    ([1, None, 1], "unanimous", 1),
    ([None, None], "missing", None),
])
def test_majority_and_tie_rules(values, status, value):
    outcome = resolve_labels(values)
    assert (outcome.status, outcome.value) == (status, value)
    assert outcome.resolved == (status in ("majority", "unanimous"))


def test_tie_broken_by_a_third_label():
    assert resolve_labels([1, 2, 2]).value == 2
    assert not resolve_labels([1, 2, 0]).resolved  # a third different label breaks nothing


def test_multichoice_values_compare_as_sets():
    assert resolve_labels([["a", "b"], ["b", "a"], ["c"]]).value == ["a", "b"]


def test_disagreement_is_the_share_of_disagreeing_pairs():
    assert disagreement([1, 1, 1]) == 0.0
    assert disagreement([1, 2]) == 1.0
    assert disagreement([1, 1, 2]) == pytest.approx(2 / 3)


def test_merged_fields_majority_for_categories_text_must_match():
    merged = merged_fields([{"severity": 2, "question": "A?"}, {"severity": 2, "question": "B?"},
                            {"severity": 1, "question": "A?"}],
                           {"severity": "ordinal", "question": "text"})
    assert merged["severity"] == {"status": "majority", "value": 2}
    assert merged["question"]["status"] == "differs"
