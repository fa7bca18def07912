"""Sentence alignment (pure, on matrices) and each detector on positive/negative cases."""

import numpy as np

from annotator.align.content_classes import find_content
from annotator.align.information_loss import content_losses, whole_sentence_deletions
from annotator.align.overgeneration import leaked_instructions, repetitions, semantic_outliers
from annotator.align.sentence_alignment import align_sentences
from annotator.align.text import split_sentences


def test_alignment_one_to_one_diagonal():
    sim = np.array([[0.8, 0.1, 0.0], [0.1, 0.7, 0.2], [0.0, 0.2, 0.9]])
    result = align_sentences(sim)
    assert result.groups == [((0,), (0,)), ((1,), (1,)), ((2,), (2,))]
    assert result.unaligned_source == [] and result.unaligned_target == []


def test_alignment_split_and_merge():
    # source 1 was split into targets 1 and 2; sources 3 and 4 were merged into target 3.
    sim = np.array([
        [0.9, 0.1, 0.1, 0.0],
        [0.1, 0.6, 0.6, 0.1],
        [0.0, 0.1, 0.1, 0.6],
        [0.0, 0.1, 0.1, 0.6],
    ])
    result = align_sentences(sim, source_self=np.array([0.1, 0.1, 0.3]),
                             target_self=np.array([0.1, 0.3, 0.1]))
    assert result.groups == [((0,), (0,)), ((1,), (1, 2)), ((2, 3), (3,))]


def test_alignment_leaves_unrelated_target_unaligned():
    sim = np.array([[0.8, 0.1, 0.0], [0.1, 0.7, 0.05]])
    result = align_sentences(sim)
    assert result.groups == [((0,), (0,)), ((1,), (1,))]
    assert result.unaligned_target == [2]


def test_alignment_skips_deleted_source_sentence_and_empty():
    sim = np.array([[0.8, 0.1], [-0.1, -0.05], [0.1, 0.7]])
    result = align_sentences(sim)
    assert result.unaligned_source == [1]
    empty = align_sentences(np.zeros((0, 3)))
    assert empty.groups == [] and empty.unaligned_target == [0, 1, 2]


def test_alignment_is_banded_on_long_inputs():
    n = 2000
    sim = np.eye(n) * 0.8
    result = align_sentences(sim, max_cells=50_000)
    assert len(result.groups) == n


def test_content_classes():
    text = ("In this prospective double-blinded, randomized trial, 120 adults received 2.5 mg/kg "
            "i.v. for 12 weeks; 25(OH)D <30 ng/ml (OR 1.8, 95% CI 1.2-2.7; p = 0.003) on the "
            "Short IBD Questionnaire (SIBDQ). METHODS: none.")
    found = {(m.content_class, m.text) for m in find_content(text)}
    for expected in [("design", "prospective"), ("design", "double-blinded"),
                     ("dosage", "2.5 mg/kg"), ("dosage", "i.v."), ("duration", "12 weeks"),
                     ("number", "25(OH)D"), ("statistic", "(OR 1.8, 95% CI 1.2-2.7; p = 0.003)"),
                     ("instrument", "Short IBD Questionnaire (SIBDQ)")]:
        assert expected in found
    assert not any(t == "METHODS" for _, t in found)
    assert find_content("the children felt better afterwards") == []


def test_leaked_instruction_lexicon():
    target = ("Kids got the medicine. Here is the simplified version: kids felt better. "
              "(I chose 'rephrase' as the internal simplification strategy)")
    found = leaked_instructions(target, split_sentences(target))
    texts = [target[s:e] for f in found for s, e in f.target_spans]
    assert "(I chose 'rephrase' as the internal simplification strategy)" in texts
    assert any(t.startswith("Here is the simplified version:") for t in texts)
    assert all(f.category == "leaked_instruction" for f in found)
    clean = "The patients chose a strategy with their doctors. Notes were taken."
    assert leaked_instructions(clean, split_sentences(clean)) == []


def test_repetition_sentence_and_ngram():
    target = ("The drug helped children breathe better at night. It was safe. "
              "The drug helped children breathe better at night.")
    found = repetitions("Source text.", target, split_sentences(target))
    assert [target[s:e] for f in found for s, e in f.target_spans] == [
        "The drug helped children breathe better at night."]
    assert found[0].target_spans[0][0] > 20  # the later copy is marked
    ngram = ("we saw that the new drug lowers blood pressure in adults and then we saw that "
             "the new drug lowers blood pressure again")
    assert any(
        f.method == "repeated-ngram" for f in repetitions("x", ngram, split_sentences(ngram))
    )
    licensed = ("the new drug lowers blood pressure in adults and the new drug lowers blood "
                "pressure in adults")
    assert repetitions(licensed, licensed, split_sentences(licensed)) == []


def test_semantic_outliers_threshold():
    sim = np.array([[0.9, 0.1], [0.2, 0.05]])
    found = semantic_outliers(sim, [(0, 5), (6, 10)], threshold=0.7)
    assert [f.target_spans for f in found] == [[(6, 10)]]
    assert abs(found[0].score - 0.9) < 1e-9
    assert semantic_outliers(sim, [(0, 5), (6, 10)], threshold=0.99) == []


def test_whole_sentence_deletion():
    sim = np.array([[0.9, 0.1], [0.2, 0.3], [0.1, 0.8]])
    found = whole_sentence_deletions(sim, [(0, 1), (2, 3), (4, 5)], threshold=0.45)
    assert [f.source_spans for f in found] == [[(2, 3)]]


def test_content_deletion_and_oversimplification():
    source = "Patients received 2.5 mg/kg of the drug for 12 weeks in a double-blind trial."
    target = "Patients received the drug for some time in a study."
    found = content_losses(source, target, (0, len(source)), (0, len(target)))
    kinds = {(f.kind, source[f.source_spans[0][0]:f.source_spans[0][1]]) for f in found}
    assert ("deletion", "2.5 mg/kg") in kinds
    assert ("oversimplification", "12 weeks") in kinds
    over = [f for f in found if f.kind == "oversimplification"]
    assert any(target[slice(*f.target_spans[0])] == "some time" for f in over)
    # Content that moved elsewhere in the simplification is not lost.
    moved = (
        "Patients received the drug in a double-blind trial. The dose was 2.5 mg/kg for 12 weeks."
    )
    assert content_losses(source, moved, (0, len(source)), (0, 51)) == []
