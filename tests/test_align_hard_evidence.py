"""Boxes the loss ranker keeps whatever its model says (issue #14: the demo and the
planted benchmark must not get worse): a sentence no simplified sentence covers, and a
sentence that lost a specific number, design, instrument or dose; a bare "significantly"
is not enough. Real MiniLM model for the demo abstract."""

import json
import os

import pytest

from annotator.align import suggest
from annotator.align.content_classes import Mention
from annotator.align.embeddings import Embedder
from annotator.align.loss_ranker import SentenceRow, default_ranker
from annotator.core.resources import demo_data_dir

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _row(start, **kwargs):
    ranker = default_ranker()
    return SentenceRow((start, start + 10), ranker.mean.copy(), **kwargs)


def test_hard_evidence_is_boxed_below_the_threshold():
    ranker = default_ranker()
    ranker.thresholds = {"deletion": 0.99, "oversimplification": 0.99}  # the model says no
    rows = [
        _row(0, uncovered=True, absent_words=3),
        _row(20, missing=[Mention(20, 33, "statistic", "significantly")]),
        _row(40, missing=[Mention(40, 49, "statistic", "p = 0.003")]),
        _row(60, missing=[Mention(60, 72, "design", "double-blind")]),
        _row(80, absent_words=4),
    ]
    chosen = [row.span[0] for row, _, _ in ranker.choose(rows)]
    assert sorted(chosen) == [0, 40, 60]
    assert all(0 < p < 0.99 for _, _, p in ranker.choose(rows)), "scored at its own probability"


@pytest.fixture(scope="module")
def demo():
    docs = [json.loads(line) for line in
            (demo_data_dir() / "infolossqa_demo.jsonl").read_text().splitlines() if line.strip()]
    return {d["id"]: d for d in docs}


def test_a_dropped_sentence_of_the_demo_is_boxed(demo):
    """demo-14 drops "Outcome assessors were unaware of group allocation." entirely (a
    planted deletion the ranker alone left out)."""
    doc = demo["demo-14"]
    sentence = "Outcome assessors were unaware of group allocation."
    start = doc["source"].index(sentence)
    found = suggest(doc["source"], doc["target"], detectors={"deletion", "oversimplification"},
                    embedder=Embedder())
    boxes = [s for s in found if any(a < start + len(sentence) and start < b
                                     for a, b in s.source_spans)]
    assert boxes and "similarity" in boxes[0].explanation


def test_an_item_cut_out_is_a_deletion_a_vaguer_rendering_is_not():
    """In a close rendering a box takes its kind from the token diff with the closest
    simplified sentence, shown on hard evidence alone or picked by the model: the dose cut
    out with nothing in its place is a deletion, the dose rendered as "a daily dose" stays
    an oversimplification (planted benchmark)."""
    import numpy as np

    from annotator.align.loss_ranker import sentence_rows
    from annotator.align.text import split_sentences

    source = "Participants received montelukast 2.5 mg/kg twice daily or placebo for 12 weeks."
    ranker = default_ranker()

    def kinds(target, thresholds):
        ranker.thresholds = {"deletion": thresholds, "oversimplification": thresholds}
        src, tgt = split_sentences(source), split_sentences(target)
        rows = sentence_rows(source, target, src, np.full((len(src), len(tgt)), 0.8),
                             target_sentences=tgt)
        return [kind for _, kind, _ in ranker.choose(rows)], rows[0]

    for thresholds in (0.99, 0.01):  # the model says no / the model picks it
        cut, row = kinds("People took montelukast or a dummy pill for 12 weeks.", thresholds)
        assert cut == ["deletion"]
        assert [m.text for m in row.cut_out] == [m.text for m in row.missing]
        vaguer, row = kinds("People took montelukast a daily dose or a dummy pill for 12 weeks.",
                            thresholds)
        assert vaguer == ["oversimplification"] and not row.cut_out
    # Without the simplified sentences' spans nothing is called cut out.
    src = split_sentences(source)
    assert not sentence_rows(source, "People took montelukast.", src,
                             np.full((1, 1), 0.8))[0].cut_out


def test_in_a_free_rewrite_the_model_decides_the_kind_of_every_box():
    """InfoLossQA document 1774569 (GPT-4 simplification): two sentences lost "randomised"
    with nothing in its place. The model picks the Methods sentence; the conclusion is
    shown on hard evidence alone. Both keep the model's kind (oversimplification, what the
    experts mostly call such a loss): calling the hard-evidence box a deletion, as an
    earlier rule did, cost the held-out ratio at the shipped thresholds 0.035 (docs/align.md)."""
    from annotator.align.learning import LearningDocument, document_rows
    from annotator.align.loss_ranker import close_rendering
    from tests.helpers import infolossqa_pair

    source, target = infolossqa_pair("1774569")
    rows = document_rows(LearningDocument("1774569", source, target), Embedder())
    assert not close_rendering(rows)
    ranker = default_ranker()
    chosen = {source[row.span[0]:row.span[1]]: (kind, row, p) for row, kind, p in
              ranker.choose(rows) if row.cut_out}
    methods = "Open label randomised controlled trial in NHS Primary Care"
    conclusion = "Informative randomised trials evaluating routine care"
    [(picked_kind, picked, _)] = [v for k, v in chosen.items() if k.startswith(methods)]
    [(floor_kind, floor, p)] = [v for k, v in chosen.items() if k.startswith(conclusion)]
    assert picked_kind == floor_kind == "oversimplification"
    assert [m.text for m in floor.cut_out] == ["randomised"]
    assert p < ranker.thresholds["oversimplification"], "shown on hard evidence alone"
