"""Trailing content at document level (issue #14: "trailing content flags sentences in the
middle of a text"): ``trailing`` is only content after the last aligned text of the
simplification, or after the last words a group's target shares with its source sentence
(the SimpleOG rule); unaligned sentences between aligned ones are ``insertion``.
Real MiniLM model; a hand case and real InfoLossQA pairs."""

import os

import pytest

from annotator.align import analyse_pair, suggest
from annotator.align.embeddings import Embedder
from tests.helpers import infolossqa_pair

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SOURCE = ("Children with asthma were randomly assigned to montelukast or placebo. "
          "Lung function was measured every month for a year. "
          "Montelukast improved lung function more than placebo.")
# An explanation added between two rendered sentences (MiniLM puts it far enough from
# every source sentence that the alignment leaves it unaligned).
EXPLAINER = "Doctors check this by asking the child to blow hard into a tube."
APPENDED = ("The company that makes the medicine paid for the whole study and wrote the "
            "report.")
TARGET = ("Children with asthma got montelukast or a dummy pill by chance. "
          + "Their lung function was measured every month for a year. "
          + EXPLAINER + " "
          + "Montelukast helped lung function more than the dummy pill. "
          + APPENDED)


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


def _text(target, suggestion):
    return target[slice(*suggestion.target_spans[0])]


def test_mid_text_sentence_is_an_insertion_and_the_appended_one_trails(embedder):
    found, groups = analyse_pair(SOURCE, TARGET, detectors={"trailing"}, embedder=embedder)
    assert len(groups) == 3, "each source sentence aligns with its rendering"
    trailing = [s for s in found if s.kind == "trailing"]
    assert [_text(TARGET, s) for s in trailing] == [APPENDED]
    insertions = [s for s in found if s.kind == "insertion"]
    assert [_text(TARGET, s) for s in insertions] == [EXPLAINER]
    assert "between aligned sentences" in insertions[0].explanation
    # Without the appended sentence nothing trails at all.
    cut = TARGET[: TARGET.index(APPENDED)].rstrip()
    found = suggest(SOURCE, cut, detectors={"trailing"}, embedder=embedder)
    assert not [s for s in found if s.kind == "trailing"]
    assert [_text(cut, s) for s in found if s.kind == "insertion"] == [EXPLAINER]


def test_sentence_before_the_first_aligned_one_is_an_insertion(embedder):
    target = EXPLAINER + " " + TARGET[: TARGET.index(EXPLAINER)].rstrip()
    found = suggest(SOURCE, target, detectors={"trailing"}, embedder=embedder)
    # (merged into the first group or left unaligned, it is an insertion, never trailing)
    assert [(s.kind, _text(target, s)) for s in found] == [("insertion", EXPLAINER)]


# Real pairs where a GPT-4 simplification explains a term in a sentence of its own in the
# middle of the text; before the fix these were flagged as trailing content.
REAL = {"3483284": "It can also act as a neurotransmitter to help nerves communicate",
        "2430614": "We checked on them several times after the treatment"}


@pytest.mark.parametrize("doc_id", sorted(REAL))
def test_real_pairs_flag_trailing_content_only_after_the_last_aligned_text(doc_id, embedder):
    source, target = infolossqa_pair(doc_id)
    found, groups = analyse_pair(source, target, detectors={"trailing"}, embedder=embedder)
    last_aligned_end = max(t1 for _, (_, t1) in groups)
    for s in found:
        start, end = s.target_spans[0]
        if s.kind == "trailing" and s.method == "alignment-unaligned":
            assert start >= last_aligned_end
        if s.kind == "trailing" and s.method == "simpleog-trailing":
            (t0, t1), = [g[1] for g in groups if g[0] == tuple(s.source_spans[0])]
            # The rule's tail lies inside its own group, except for the last group, which
            # also holds what follows the last aligned text.
            assert t0 <= start and (end <= t1 or t1 == last_aligned_end)
    expected = REAL[doc_id]
    insertions = [_text(target, s) for s in found if s.kind == "insertion"]
    assert any(text.startswith(expected) for text in insertions), insertions
    assert not any(_text(target, s).startswith(expected) for s in found
                   if s.kind == "trailing")


def test_a_models_aside_in_the_middle_still_trails_its_sentence(embedder):
    """SimpleOG's rule works per sentence: a leaked instruction right after a sentence's
    simplification is that sentence's trailing content, even with aligned text after it."""
    aside = "Note: I simplified the medical terms in this sentence."
    target = TARGET.replace(EXPLAINER, aside)
    found = suggest(SOURCE, target, detectors={"trailing"}, embedder=embedder)
    trailing = {_text(target, s): s for s in found if s.kind == "trailing"}
    assert set(trailing) == {aside, APPENDED}
    assert trailing[aside].category == "leaked_instruction"
    assert "read like a model's aside" in trailing[aside].explanation
