"""benchmarks/evaluate_deletion_ceiling.py: the kinds-at-an-expert's-places measure on
hand-made annotations with known answers, and the script end to end on a slice of the
real InfoLossQA development data (real MiniLM model)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from annotator.core.edit_match import Mark, between_annotators
from tests.test_evaluate_on_infolossqa import _slice

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ceiling():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import evaluate_deletion_ceiling
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return evaluate_deletion_ceiling


def d(start, end):
    return Mark("deletion", ((start, end),))


def o(start, end):
    return Mark("oversimplification", ((start, end),))


# Expert "a" and "b" on one document: one deletion both call a deletion (0-10 / 5-12),
# one place a calls a deletion and b an oversimplification (20-30 / 22-28), one deletion
# only b marked (40-50), one oversimplification both marked (60-70 / 60-65).
GOLD = {"doc": {"a": [d(0, 10), d(20, 30), o(60, 70)],
                "b": [d(5, 12), o(22, 28), d(40, 50), o(60, 65)]}}


def test_with_the_experts_own_kinds_it_is_their_deletion_f1_both_ways_round(ceiling):
    counts = ceiling.at_expert_places(GOLD, lambda doc, expert, m: m)
    # a's deletions against b: 1 of 2 match; b's against a: 1 of 2 match.
    assert (counts.a_total, counts.a_matched, counts.b_total, counts.b_matched) == (4, 2, 4, 2)
    assert counts.f1 == pytest.approx(0.5)
    one_way = between_annotators(GOLD, "deletion")
    assert (one_way.a_matched, one_way.a_total) == (1, 2)   # the same matches, one way round


def test_every_edit_both_kinds_is_the_leniency_taken_to_its_end(ceiling):
    both = ceiling.at_expert_places(GOLD, lambda doc, expert, m: Mark(
        "deletion", m.spans, ("oversimplification",)))
    # a's 3 edits against b's 2 deletions: 0-10 and 20-30 overlap none of 40-50... 0-10
    # matches 5-12; 20-30 no deletion of b there; 60-70 none -> 1 of 3. b's 4 edits
    # against a's 2 deletions: 5-12 and 22-28 match -> 2 of 4.
    assert (both.a_total, both.a_matched, both.b_total, both.b_matched) == (7, 3, 4, 3)


def test_the_other_expert_as_a_kind_classifier(ceiling):
    tpr, tnr, counted = ceiling.expert_kind_agreement(GOLD)
    # Deletions also marked by the other: a 0-10 (b: deletion), a 20-30 (b: over),
    # b 5-12 (a: deletion) -> 2 of 3. Oversimplifications: a 60-70 (b: over), b 22-28
    # (a: deletion), b 60-65 (a: over) -> 2 of 3. b's 40-50 is marked by b alone.
    assert (tpr, tnr, counted) == (pytest.approx(2 / 3), pytest.approx(2 / 3), 6)


def test_auc_is_the_mann_whitney_statistic(ceiling):
    scores = np.array([0.9, 0.4, 0.5, 0.1, 0.4])
    positive = np.array([True, True, False, False, False])
    # pairs: 0.9 beats all three; 0.4 beats 0.1, ties 0.4, loses to 0.5 -> (3 + 1.5) / 6
    assert ceiling.auc(scores, positive) == pytest.approx(4.5 / 6)
    assert np.isnan(ceiling.auc(scores, np.zeros(5, bool)))


def test_a_perfect_kind_score_reaches_the_experts_and_simulated_scores_have_their_auc(ceiling):
    truth = ceiling.simulated_scores(GOLD, 1.0, np.random.default_rng(0))
    assert sorted(truth.values()) == [0.0] * 3 + [1.0] * 4
    f1, threshold = ceiling.by_threshold(GOLD, truth)
    # The best threshold is chosen on the scored documents themselves: here calling every
    # edit a deletion (threshold 0, P 3/7, R 3/4) beats the experts' own kinds (threshold
    # 1, F1 0.5), the leniency of the row "every edit carrying both kinds".
    assert threshold == 0.0 and f1 == pytest.approx(2 * (3 / 7) * (3 / 4) / (3 / 7 + 3 / 4))
    many = {f"doc{i}": {"x": [d(10 * j, 10 * j + 5) if j % 3 else o(10 * j, 10 * j + 5)
                              for j in range(300)]} for i in range(100)}
    rng = np.random.default_rng(0)
    for target in (0.6, 0.8, 0.95, 1.0):
        scores = ceiling.simulated_scores(many, target, rng)
        keys = list(scores)
        positive = np.array([m.kind == "deletion" for _, _, m in keys])
        assert ceiling.auc(np.array([scores[k] for k in keys]), positive) == pytest.approx(
            target, abs=0.01)


def test_the_script_on_a_slice_of_the_real_data(tmp_path):
    data = _slice(tmp_path)
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "evaluate_deletion_ceiling.py"), "--data",
         str(data), "--folds", "3", "--draws", "1", "--plot", str(tmp_path / "ceiling.png")],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    out = result.stdout
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(r"experts' own kinds: deletion P [\d.]+ R [\d.]+ F1 [\d.]+ \(ratio 1", out)
    assert re.search(r"the other expert as a kind classifier, on the \d+ edits", out)
    assert re.search(r"the loss ranker's kinds \(3-fold cross-validated probabilities\): AUC "
                     r"0\.\d\d", out), out
    rows = re.findall(r"^  (\d\.\d\d)  (\d\.\d\d)$", out, re.M)
    assert [a for a, _ in rows] == [f"{a:.2f}" for a in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85,
                                                          0.9, 0.95, 1.0)]
    # A perfect kind score is the experts' own kinds, or better where the threshold chosen
    # on the same documents finds a more lenient one.
    assert float(rows[-1][1]) >= 1.0
    assert "the deletion ratio reaches 0.8 with a kind score of AUC" in out
    picture = (tmp_path / "ceiling.png").read_bytes()
    assert picture.startswith(b"\x89PNG") and len(picture) > 10_000
