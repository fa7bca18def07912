"""Evaluation statistics on hand-built data; the hand computation is in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.evaluation import plaba, plainfact, quality, recall, sampling
from annotator.evaluation.criteria import is_good, is_negative
from annotator.evaluation.plot import correlation_svg
from annotator.evaluation.sections import section_at


def qa_ratings():
    R = quality.QARating
    return [
        # item 1 (m1, methods), item 2 (m1, results), item 3 (m2, methods); raters a, b
        R(1, "m1", "methods", "a", "givenness", "good"),
        R(1, "m1", "methods", "b", "givenness", "good"),
        R(2, "m1", "results", "a", "givenness", "good"),
        R(2, "m1", "results", "b", "givenness", "bad"),
        R(3, "m2", "methods", "a", "givenness", "bad"),
        R(3, "m2", "methods", "b", "givenness", "bad"),
        R(1, "m1", "methods", "a", "localization", "good"),
        R(1, "m1", "methods", "b", "localization", "good"),
        R(2, "m1", "results", "a", "localization", "na"),
        R(2, "m1", "results", "b", "localization", "na"),
        R(3, "m2", "methods", "a", "localization", "unrelated"),
        R(3, "m2", "methods", "b", "localization", "missing"),
    ]


OPTIONS = {"givenness": ["good", "bad"], "localization": ["good", "unrelated", "missing", "na"]}


def test_randolph_kappa_per_criterion_uses_k_from_the_schema():
    result = quality.agreement(qa_ratings(), OPTIONS)
    # givenness: P_i = 1, 0, 1 -> P_o = 2/3; k = 2 -> (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert result["givenness"]["kappa"] == pytest.approx(1 / 3)
    assert result["givenness"]["percent"] == pytest.approx(2 / 3)
    # localization: P_o = 2/3 again, but k = 4 -> (2/3 - 1/4) / (3/4) = 5/9
    assert result["localization"]["kappa"] == pytest.approx(5 / 9)
    assert result["localization"]["items"] == 3 and result["localization"]["k"] == 4


def test_results_per_model_shares_and_good_after_binarising():
    r = quality.results(qa_ratings(), OPTIONS)
    m1, m2, everyone = r["by_model"]["m1"], r["by_model"]["m2"], r["by_model"]["all"]
    # m1 givenness: good, good, good, bad -> good 3/4, bad 1/4
    assert m1["givenness"]["shares"] == {"good": 0.75, "bad": 0.25}
    assert m1["givenness"]["good"] == 0.75 and m2["givenness"]["good"] == 0.0
    assert everyone["givenness"]["good"] == pytest.approx(3 / 6)
    # m1 localization: good, good, na, na -> shares 1/2 good, 1/2 n.a.; n.a. leaves the
    # denominator of the good share: 2 / 2 = 1
    assert m1["localization"]["shares"]["na"] == 0.5
    assert m1["localization"]["good"] == 1.0 and m1["localization"]["good_n"] == 2
    assert m2["localization"]["good"] == 0.0
    # by section: m1 methods (item 1) givenness 2/2 good, results (item 2) 1/2
    assert r["by_section"]["m1"]["methods"]["givenness"]["good"] == 1.0
    assert r["by_section"]["m1"]["results"]["givenness"]["good"] == 0.5
    assert r["items_per_model"] == {"m1": 2, "m2": 1}


def test_negative_ratings_need_a_rationale_and_na_is_not_negative():
    assert is_negative("givenness", "bad") and not is_negative("givenness", "good")
    assert not is_negative("localization", "na") and is_negative("localization", "missing")
    assert is_negative("answerable_simplification", "fully")
    assert is_good("jargon", "explained_text") is True and is_good("localization", "na") is None


def test_quotas_keep_section_shares_by_largest_remainder():
    # 6 / 3 / 1 items, n = 5: exact 3.0 / 1.5 / 0.5 -> floors 3 / 1 / 0, one left over;
    # remainders tie at 0.5: the larger section (results) gets it
    assert sampling.quotas({"methods": 6, "results": 3, "background": 1}, 5) == {
        "methods": 3, "results": 2, "background": 0}
    assert sampling.quotas({"a": 2}, 10) == {"a": 2}


def test_stratified_sample_is_per_model_and_reproducible():
    items = [sampling.Candidate(i, "m1" if i < 20 else "m2", "methods" if i % 3 else "results")
             for i in range(30)]
    first = sampling.stratified_sample(items, 6, seed=7)
    assert first == sampling.stratified_sample(items, 6, seed=7)
    assert first != sampling.stratified_sample(items, 6, seed=8)
    by_model = [sum(1 for i in first if (i < 20) == (m == "m1")) for m in ("m1", "m2")]
    assert by_model == [6, 6]
    # m1 holds 13 'methods' and 7 'results' items: quotas 6*13/20 = 3.9 -> 4, 2.1 -> 2
    assert sum(1 for i in first if i < 20 and i % 3 == 0) == 2


def test_sections_of_a_structured_abstract():
    text = "BACKGROUND: Why.\nMETHODS: How.\nRESULTS: What."
    assert section_at(text, text.index("How")) == "methods"
    assert section_at(text, text.index("What")) == "results"
    assert section_at("No headings here.", 3) == "none" and section_at(text, None) == "none"


class FixedEmbedder:
    VECTORS = {"a": [1.0, 0.0], "b": [0.8, 0.6], "c": [0.0, 1.0], "d": [1.0, 0.0]}

    def encode(self, texts):
        return np.array([self.VECTORS[t] for t in texts])


def test_mining_keeps_pairs_within_a_document_above_the_threshold():
    refs = [recall.QAText(1, "d1", "a")]
    preds = [recall.QAText(10, "d1", "b"), recall.QAText(11, "d1", "c"),
             recall.QAText(12, "d2", "d")]  # d2: other document, never paired with ref 1
    pairs = recall.mine_pairs(refs, preds, FixedEmbedder(), 0.65)
    # cos(a, b) = 0.8 > 0.65 -> candidate; cos(a, c) = 0
    assert [(r, p, round(s, 6), c) for r, p, s, c in pairs] == [(1, 10, 0.8, True),
                                                               (1, 11, 0.0, False)]
    assert recall.saved_share(100, 7) == pytest.approx(0.93)  # the published 93%


def test_recall_aggregation_per_reference_and_per_model():
    labels = {(1, 10): "fully", (1, 11): "partially", (2, 11): "partially", (2, 10): "not"}
    result = recall.aggregate([1, 2, 3], labels, {10: "A", 11: "B"})
    # ref 1: a full recall exists -> fully; ref 2: best is partial; ref 3: no pair -> not
    assert result["per_reference"] == {1: "fully", 2: "partially", 3: "not"}
    assert result["overall"]["fully"] == pytest.approx(1 / 3)
    # model A alone: ref 1 fully, refs 2 and 3 not; model B: refs 1 and 2 partially
    assert result["per_model"]["A"]["not"] == pytest.approx(2 / 3)
    assert result["per_model"]["B"]["partially"] == pytest.approx(2 / 3)
    assert recall.consensus(["fully", "not"]) == "not"  # tie -> the conservative label
    assert recall.consensus(["fully", "fully", "partially"]) == "fully"


def test_threshold_table_and_calibration_bins():
    rated = [(0.9, "fully"), (0.7, "partially"), (0.6, "not"), (0.3, "not")]
    rows = {r["threshold"]: r for r in recall.threshold_table(rated, (0.65, 0.8))}
    # T = 0.65 keeps 0.9 and 0.7: half the pairs, both recalled ones
    assert rows[0.65]["saved"] == 0.5 and rows[0.65]["recalled_kept"] == 1.0
    assert rows[0.8]["kept"] == 0.25 and rows[0.8]["recalled_kept"] == 0.5
    pairs = [(i, i / 10) for i in range(11)]  # similarities 0.0 .. 1.0
    sample = recall.calibration_sample(pairs, bins=2, per_bin=2, seed=1)
    assert [s["bin"] for s in sample] == [0, 0, 1, 1]
    assert all(s["similarity"] < 0.5 for s in sample[:2])
    assert all(s["similarity"] >= 0.5 for s in sample[2:])


def plaba_ratings():
    A = plaba.AxisRating
    return [
        A("d1", "A", 0, "r1", "SIM", 1), A("d1", "A", 0, "r2", "SIM", 1),
        A("d1", "A", 1, "r1", "SIM", 0), A("d1", "A", 1, "r2", "SIM", -1),
        A("d2", "B", 0, "r1", "SIM", -1), A("d2", "B", 0, "r2", "SIM", -1),
        *[A("d1", "A", s, r, "ACC", 1) for s in (0, 1) for r in ("r1", "r2")],
        *[A("d2", "B", 0, r, "ACC", 0) for r in ("r1", "r2")],
    ]


def test_plaba_scores_map_means_to_0_100_and_fin_is_their_mean():
    s = plaba.scores(plaba_ratings(), ["SIM", "ACC"])
    # system A SIM: (1 + 1 + 0 - 1) / 4 = 0.25 -> (0.25 + 1) * 50 = 62.5; ACC 1 -> 100
    assert s["A"]["SIM"] == 62.5 and s["A"]["ACC"] == 100.0
    assert s["A"]["FIN"] == pytest.approx(81.25)
    # system B: SIM -1 -> 0, ACC 0 -> 50, FIN 25
    assert (s["B"]["SIM"], s["B"]["ACC"], s["B"]["FIN"]) == (0.0, 50.0, 25.0)
    # all: SIM (1 + 1 + 0 - 1 - 1 - 1) / 6 = -1/6 -> 41.67
    assert s["all"]["SIM"] == pytest.approx(125 / 3)


def test_plaba_alpha_at_sentence_and_abstract_level():
    a = plaba.agreement(plaba_ratings(), ["SIM"])["SIM"]
    # sentence level, interval: units [1, 1], [0, -1], [-1, -1]; n = 6 values.
    # D_o = (1/6) * (2 ordered pairs * 1) = 1/3; D_e = 58 / (6 * 5) (ordered squared
    # differences: 1s-0: 2, 1s--1s: 24, 0--1s: 3, doubled) -> alpha = 1 - 10/58 = 48/58
    assert a["sentence"]["interval"]["value"] == pytest.approx(48 / 58)
    # abstract level: d1 = [0.5, 0], d2 = [-1, -1]: D_o = 2 * 0.25 / 4 = 0.125,
    # D_e = 2 * (0.25 + 2 * 2.25 + 2 * 1) / 12 = 1.125 -> alpha = 8/9
    assert a["abstract"]["interval"]["value"] == pytest.approx(8 / 9)
    assert a["sentence"]["ordinal"]["value"] is not None
    assert a["system"]["interval"]["units"] == 2


def test_axis_correlations_across_abstracts_and_their_plot():
    A = plaba.AxisRating
    ratings = []
    for doc, v in (("d1", 1), ("d2", 0), ("d3", -1)):
        ratings += [A(doc, "S", 0, "r1", "SIM", v), A(doc, "S", 0, "r1", "ACC", v),
                    A(doc, "S", 0, "r1", "BRV", -v), A(doc, "S", 0, "r1", "COM", 0)]
    c = plaba.correlations(ratings, ["SIM", "ACC", "BRV", "COM"])
    assert c["matrix"]["SIM"]["ACC"] == pytest.approx(1.0)
    assert c["matrix"]["SIM"]["BRV"] == pytest.approx(-1.0)
    assert c["matrix"]["SIM"]["COM"] is None  # COM is constant
    svg = correlation_svg(c)
    assert svg.startswith("<svg") and svg.count("<rect") == 16
    assert "-1.00" in svg and "over 3 abstracts" in svg and "<script" not in svg


def test_plainfact_cohen_kappa_per_field():
    T = plainfact.TypeRating
    types = [("s", "s"), ("s", "e"), ("e", "e"), ("e", "e")]
    relations = [([1], [1]), ([1, 2], [2, 1]), (["external"], ["external"]), ([3], [2])]
    ratings = []
    for i, ((ta, tb), (ra, rb)) in enumerate(zip(types, relations)):
        ratings += [T("d", i, "a", "type", ta), T("d", i, "b", "type", tb),
                    T("d", i, "a", "relation", ra), T("d", i, "b", "relation", rb)]
    k = plainfact.kappas(ratings, ["type", "relation"])
    # type: P_o = 3/4; marginals a (1/2, 1/2), b (1/4, 3/4) -> P_e = 1/2 -> kappa 1/2
    assert k["type"]["kappa"] == pytest.approx(0.5) and k["type"]["units"] == 4
    # relation as set labels: {1,2} == {2,1}; P_o = 3/4; P_e = 3 * 1/16 -> 0.5625 / 0.8125
    assert k["relation"]["kappa"] == pytest.approx(0.5625 / 0.8125)


def test_alignment_suggestion_for_a_simplified_sentence():
    alignment = [[[0], [0]], [[1, 2], [1]]]
    assert plainfact.suggested_relation(alignment, 1) == [2, 3]
    assert plainfact.suggested_relation(alignment, 2) == ["external"]
    assert plainfact.suggested_relation(None, 0) == ["external"]
