"""Known answers and degenerate inputs of the agreement coefficients."""

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import interval_distance, masi_distance

from annotator.agreement import alpha as al
from annotator.agreement import coefficients as co
from annotator.agreement.errors import UndefinedAgreement

DATA = Path(__file__).parent / "data" / "agreement"
NAN = None
# Krippendorff (2011): 4 observers x 12 units with missing values.
KRIPP = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
KRIPP_EXPECTED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
# Wikipedia's Fleiss example: 10 subjects x 14 raters, counts per 5 categories.
WIKI_FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
               [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
               [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
COHEN_1960 = [[88, 14, 18], [10, 40, 10], [2, 6, 12]]


@pytest.mark.parametrize("level", list(KRIPP_EXPECTED))
def test_krippendorff_2011_example_through_package(level):
    assert round(al.krippendorff_alpha(KRIPP, level), 3) == KRIPP_EXPECTED[level]


@pytest.mark.parametrize("level", list(KRIPP_EXPECTED))
def test_coincidence_form_gives_the_same_alpha(level):
    codes, domain = al.encode(KRIPP)
    o = al.coincidence(al.unit_counts(codes, len(domain)))
    assert o.sum() == pytest.approx(40.0)  # 40 pairable values (unit 12 drops out)
    value = float(al.alpha_from_coincidence(o, level, domain))
    assert round(value, 3) == KRIPP_EXPECTED[level]
    # batched: a stack of the same matrix gives the same value twice
    batch = al.alpha_from_coincidence(np.stack([o, o]), level, domain)
    assert batch == pytest.approx([value, value])


def test_per_unit_coincidence_sums_to_total():
    codes, domain = al.encode(KRIPP)
    counts = al.unit_counts(codes, len(domain))
    assert al.coincidence_per_unit(counts).sum(axis=0) == pytest.approx(al.coincidence(counts))


def test_alpha_on_strings_and_fixed_domain():
    data = [["a", "b", "a", None], ["a", "b", "b", "c"]]
    value = al.krippendorff_alpha(data, "nominal")
    same = al.krippendorff_alpha([[0, 1, 0, None], [0, 1, 1, 2]], "nominal")
    assert value == pytest.approx(same)
    with pytest.raises(UndefinedAgreement, match="not one of the categories"):
        al.krippendorff_alpha(data, "nominal", domain=["a", "b"])


def test_alpha_interval_matches_nltk():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 4, size=(3, 60)).astype(object)
    data[0, :5] = None
    triples = [(f"r{r}", str(u), int(v)) for r in range(3) for u in range(60)
               if (v := data[r, u]) is not None]
    nltk_value = AnnotationTask(triples, distance=interval_distance).alpha()
    assert al.krippendorff_alpha(data.tolist(), "interval") == pytest.approx(nltk_value, abs=1e-9)


def test_masi_alpha_matches_nltk():
    rng = np.random.default_rng(7)
    labels = ["a", "b", "c"]
    rows = []
    for _r in range(3):
        row = []
        for _u in range(40):
            pick = [x for x in labels if rng.random() < 0.5] or ["a"]
            row.append(frozenset(pick))
        rows.append(row)
    triples = [(f"r{r}", str(u), rows[r][u]) for r in range(3) for u in range(40)]
    expected = AnnotationTask(triples, distance=masi_distance).alpha()
    assert al.masi_alpha(rows) == pytest.approx(expected, abs=1e-9)


def test_masi_distance_cases():
    assert al.masi_distance(frozenset({1, 2}), frozenset({1, 2, 3, 4})) == pytest.approx(2 / 3)
    assert al.masi_distance(frozenset(), frozenset()) == 0.0
    assert al.masi_distance(frozenset({1}), frozenset()) == 1.0
    assert al.masi_distance(frozenset({1, 2}), frozenset({2, 3})) == pytest.approx(1 - 1 / 9)


def _fleiss_counts_from_csv():
    with open(DATA / "fleiss1971.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    cats = ["depression", "personality_disorder", "schizophrenia", "neurosis", "other"]
    return co.category_counts(rows, cats)


def test_fleiss_1971_psychiatric_diagnoses():
    counts = _fleiss_counts_from_csv()
    assert counts.shape == (30, 5) and (counts.sum(axis=1) == 6).all()
    assert round(co.fleiss_kappa(counts), 3) == 0.430


def test_fleiss_wikipedia_example():
    assert round(co.fleiss_kappa(WIKI_FLEISS), 3) == 0.210


def test_randolph_known_answers():
    counts = [[6, 1, 0], [0, 7, 0]]
    assert round(co.randolph_kappa(counts, k=3), 3) == 0.786
    assert round(co.randolph_kappa([[6, 1], [0, 7]], k=2), 3) == 0.714
    # k defaults to the number of columns, so an unused category still counts
    assert round(co.randolph_kappa(counts), 3) == 0.786


def test_randolph_missing_ratings_rule():
    # item 3 has one rating only: dropped; item 2 has 3 raters, item 1 has 2
    counts = [[2, 0], [2, 1], [0, 1]]
    p_o = (1.0 + (2 * 1) / (3 * 2)) / 2
    assert co.randolph_kappa(counts, k=2) == pytest.approx((p_o - 0.5) / 0.5)
    assert co.percent_agreement(counts) == pytest.approx(p_o)


def test_cohen_1960():
    assert round(co.cohen_kappa_from_confusion(COHEN_1960), 3) == 0.492


def _naive_weighted_kappa(a, b, k, power):
    n = len(a)
    w = lambda i, j: (abs(i - j) / (k - 1)) ** power  # noqa: E731
    observed = sum(w(x, y) for x, y in zip(a, b)) / n
    pa = [a.count(i) / n for i in range(k)]
    pb = [b.count(i) / n for i in range(k)]
    expected = sum(pa[i] * pb[j] * w(i, j) for i in range(k) for j in range(k))
    return 1 - observed / expected


@pytest.mark.parametrize("weights,power", [("linear", 1), ("quadratic", 2)])
def test_weighted_cohen_against_naive(weights, power):
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, 80).tolist()
    b = [min(3, max(0, x + int(rng.integers(-1, 2)))) for x in a]
    got = co.cohen_kappa(a, b, categories=[0, 1, 2, 3], weights=weights, values=[0, 1, 2, 3])
    assert got == pytest.approx(_naive_weighted_kappa(a, b, 4, power))
    unweighted = co.cohen_kappa(a, b, categories=[0, 1, 2, 3])
    assert got != pytest.approx(unweighted)


def test_cohen_weights_use_statistics_values():
    w = co.cohen_weights(3, "linear", [0, 1, 3])
    assert w[0, 1] == pytest.approx(1 / 3) and w[0, 2] == pytest.approx(1.0)


def test_majority_label():
    assert co.majority_label([1, 1, 2]) == 1
    assert co.majority_label([2, 1, 0]) is None
    assert co.majority_label([1, 2]) is None
    assert co.majority_label([1, 1, 2, 2]) is None
    assert co.majority_label([None, 3, 3]) == 3
    assert co.majority_label([]) is None


def test_majority_stats_devaraj():
    items = [[0, 0, 0], [1, 1, 2], [1, 2, 0], [2, 2, 2], [1, 2, 2], [0, 0, 1], [5]]
    stats = co.majority_stats(items, zero=0)
    assert stats["items"] == 6  # the single rating is dropped
    assert stats["with_majority"] == pytest.approx(5 / 6)
    # majority non-zero: [1,1,2], [1,2,0], [2,2,2], [1,2,2]; specific label: 3 of them
    assert stats["nonzero_items"] == 4
    assert stats["specific_majority_among_nonzero"] == pytest.approx(3 / 4)


@pytest.mark.parametrize("fn", [co.randolph_kappa, co.fleiss_kappa, co.percent_agreement])
def test_kappas_degenerate_one_rater_and_all_missing(fn):
    with pytest.raises(UndefinedAgreement, match="two or more raters"):
        fn([[1, 0], [0, 1]])
    with pytest.raises(UndefinedAgreement, match="all ratings are missing"):
        fn([[0, 0], [0, 0]])


def test_degenerate_one_category_only():
    with pytest.raises(UndefinedAgreement, match="one category"):
        co.fleiss_kappa([[3, 0], [3, 0]])
    with pytest.raises(UndefinedAgreement, match="one category"):
        al.krippendorff_alpha([[1, 1, 1], [1, 1, 1]], "nominal")
    with pytest.raises(UndefinedAgreement, match="same category"):
        co.cohen_kappa([1, 1], [1, 1], categories=[1, 2])
    # Randolph stays defined: the chance term comes from k, not from the data
    assert co.randolph_kappa([[3, 0], [3, 0]], k=2) == pytest.approx(1.0)


def test_degenerate_alpha_messages():
    with pytest.raises(UndefinedAgreement, match="all ratings are missing"):
        al.krippendorff_alpha([[None, None], [None, None]], "nominal")
    with pytest.raises(UndefinedAgreement, match="two or more raters"):
        al.krippendorff_alpha([[1, 2, 3]], "interval")
    with pytest.raises(UndefinedAgreement, match="k = 1"):
        co.randolph_kappa([[2]], k=1)


def test_single_item():
    # one item, two raters who disagree: alpha = 0 (defined), Fleiss undefined-free
    assert al.krippendorff_alpha([[1], [2]], "nominal") == pytest.approx(0.0)
    assert co.randolph_kappa([[1, 1, 0]], k=3) == pytest.approx(-0.5)
    with pytest.raises(UndefinedAgreement):
        co.fleiss_kappa([[2, 0]])


def test_batch_functions_return_nan_not_raise():
    assert np.isnan(co.randolph_batch(0.0, 0, 3))
    assert np.isnan(co.fleiss_batch(2.0, 2, [4, 0]))
    assert np.isnan(co.cohen_batch(np.zeros((2, 2)), co.cohen_weights(2, None)))
    assert np.isnan(al.alpha_from_coincidence(np.zeros((2, 2)), "nominal", [0, 1]))


def test_percent_agreement_all_pairs():
    # 3 raters (a, a, b): 1 agreeing pair of 3
    assert co.percent_agreement([[2, 1]]) == pytest.approx(1 / 3)
    pairs = list(itertools.combinations("aab", 2))
    assert sum(x == y for x, y in pairs) / len(pairs) == pytest.approx(1 / 3)


def test_numeric_matrix_fast_path_matches_lists():
    matrix = np.array([[np.nan if v is None else v for v in row] for row in KRIPP], dtype=float)
    codes_list, domain_list = al.encode(KRIPP)
    codes_arr, domain_arr = al.encode(matrix)
    assert (codes_list == codes_arr).all() and domain_list == domain_arr
    for level, expected in KRIPP_EXPECTED.items():
        assert round(al.krippendorff_alpha(matrix, level), 3) == expected
    with pytest.raises(UndefinedAgreement, match="not one of the categories"):
        al.encode(matrix, domain=[1, 2, 3])
