"""The kind of a box in a close rendering (issue #14): where the simplification renders its
source sentence by sentence, every box takes its kind from the text as docs/rules.md §3.3 defines
the kinds (an item cut out with nothing in its place, or a sentence no simplified sentence
covers, is a deletion); in a free rewrite the model's kind stays. Texts: documents of the
planted benchmark (benchmarks/eval_data/generate.py) and a real InfoLossQA pair; real
MiniLM model."""

import os

import pytest

from annotator.align import suggest
from annotator.align.embeddings import Embedder
from annotator.align.information_loss import content_losses
from annotator.align.learning import LearningDocument, document_rows
from annotator.align.loss_ranker import close_rendering

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# planted.jsonl doc021: the odds ratio of the Results sentence dropped (a planted deletion).
SOURCE = (
    "BACKGROUND: Type 2 diabetes is a common cause of poor sleep in children. METHODS: In this "
    "multicentre placebo-controlled trial, 42 children were enrolled at 4 hospitals. "
    "Participants received montelukast 9 mg once daily or placebo for 18 months. The primary "
    "outcome was change in blood sugar measured with the Short IBD Questionnaire (SIBDQ). "
    "RESULTS: Blood sugar improved more with montelukast than with placebo (OR 1.8, 95% CI "
    "1.2-2.7). Adverse events occurred in 3 of 42 of patients in the montelukast group. "
    "CONCLUSIONS: montelukast may be a useful option for children with Type 2 diabetes.")
TARGET = (
    "Type 2 diabetes often causes poor sleep in children. This multicentre placebo-controlled "
    "study included 42 children from 4 hospitals. People took montelukast 9 mg once daily or "
    "a dummy pill for 18 months. The main thing checked was change in blood sugar, using the "
    "Short IBD Questionnaire (SIBDQ). Blood sugar got better with montelukast than with the "
    "dummy pill. Side effects happened in 3 of 42 of people taking montelukast. montelukast "
    "may help children with Type 2 diabetes.")
# planted.jsonl doc178: the primary-outcome sentence dropped whole.
SOURCE_178 = (
    "BACKGROUND: Chronic kidney disease is a common cause of poor sleep in children. METHODS: "
    "In this prospective double-blind, randomized trial, 42 children were enrolled at 4 "
    "hospitals. Participants received metformin 500 mg twice daily or placebo for 24 weeks. "
    "The primary outcome was change in symptom scores measured with the Short IBD "
    "Questionnaire (SIBDQ). RESULTS: Symptom scores improved more with metformin than with "
    "placebo (mean difference 4.2 \u00b1 1.1; p < 0.001). Adverse events occurred in 12% of "
    "patients in the metformin group. CONCLUSIONS: metformin may be a useful option for "
    "children with Chronic kidney disease.")
TARGET_178 = (
    "Chronic kidney disease often causes poor sleep in children. This prospective "
    "double-blind, randomized study included 42 children from 4 hospitals. People took "
    "metformin 500 mg twice daily or a dummy pill for 24 weeks. Symptom scores got better "
    "with metformin than with the dummy pill (mean difference 4.2 \u00b1 1.1; p < 0.001). Side "
    "effects happened in 12% of people taking metformin. metformin may help children with "
    "Chronic kidney disease.")
LOSS = {"deletion", "oversimplification"}


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


def _boxes_on(source, target, phrase, embedder):
    start = source.index(phrase)
    found = suggest(source, target, detectors=LOSS, embedder=embedder)
    return [s.kind for s in found
            if any(a < start + len(phrase) and start < b for a, b in s.source_spans)]


def test_a_statistic_cut_out_beside_a_reworded_word_is_a_deletion():
    """"placebo (OR 1.8, ...)" became "the dummy pill": the shorter target side renders
    "placebo", not the odds ratio. docs/rules.md §3.3 as written calls the region shorter, hence
    vaguer; the stricter reading calls the statistic cut out."""
    sentence = (SOURCE.index("RESULTS"), SOURCE.index(" Adverse"))
    rendered = (TARGET.index("Blood sugar got"), TARGET.index(" Side"))
    as_written = content_losses(SOURCE, TARGET, sentence, rendered)
    stricter = content_losses(SOURCE, TARGET, sentence, rendered, shorter_is_vaguer=False)
    assert [c.kind for c in as_written] == ["oversimplification"]
    assert [c.kind for c in stricter] == ["deletion"]
    # Generic wording stays a vaguer rendering either way ("a daily dose" for the dose).
    dose = (SOURCE.index("Participants"), SOURCE.index(" The primary"))
    vaguer = TARGET.replace("9 mg once daily", "a daily dose")
    rendered = (vaguer.index("People took"), vaguer.index(" The main"))
    assert [c.kind for c in content_losses(SOURCE, vaguer, dose, rendered,
                                           shorter_is_vaguer=False)] == ["oversimplification"]


def test_in_a_close_rendering_the_box_takes_the_texts_kind(embedder):
    rows = document_rows(LearningDocument("doc021", SOURCE, TARGET), embedder)
    assert close_rendering(rows)
    assert _boxes_on(SOURCE, TARGET, "(OR 1.8, 95% CI 1.2-2.7)", embedder) == ["deletion"]
    # A sentence no simplified sentence covers is a deletion, whatever the model prefers.
    dropped = ("The primary outcome was change in symptom scores measured with the Short IBD "
               "Questionnaire (SIBDQ).")
    assert _boxes_on(SOURCE_178, TARGET_178, dropped, embedder) == ["deletion"]


def test_in_a_free_rewrite_the_model_keeps_its_kind(embedder):
    """InfoLossQA 1774569 (GPT-4): "randomised" lost from the Methods sentence; the model's
    pick stays an oversimplification, as the experts mostly call such a loss."""
    from tests.helpers import infolossqa_pair

    source, target = infolossqa_pair("1774569")
    rows = document_rows(LearningDocument("1774569", source, target), embedder)
    assert not close_rendering(rows)
    kinds = _boxes_on(source, target, "Open label randomised controlled trial", embedder)
    assert kinds == ["oversimplification"]
