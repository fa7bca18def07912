"""Judging metrics against human scores (`annotator eval metrics`): the statistics against
scipy and scikit-learn on generated data, hand-worked cases for what those libraries lack
(Williams' test, WMT tau-like, Holm-Bonferroni), the bootstrap's fast paths against scipy on
the expanded resamples, the tables' join and errors, and the command end to end."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats
from sklearn.metrics import roc_auc_score

from annotator.cli import main
from annotator.meta_evaluation import correlation
from annotator.meta_evaluation.bootstrap import (
    bootstrap_correlations,
    resample_counts,
    weighted_kendall,
)
from annotator.meta_evaluation.tables import human_scores, join, read_table


def _data(n=80, seed=3, ties=True):
    rng = np.random.default_rng(seed)
    human = rng.integers(-1, 2, n).astype(float) if ties else rng.normal(size=n)
    metric = np.round(human + rng.normal(0, 1.5, n), 1 if ties else 6)
    return human, metric


@pytest.mark.parametrize("ties", [True, False])
def test_correlations_equal_scipy(ties):
    human, metric = _data(ties=ties)
    assert correlation.pearson(human, metric) == pytest.approx(
        stats.pearsonr(human, metric).statistic, abs=1e-12)
    assert correlation.spearman(human, metric) == pytest.approx(
        stats.spearmanr(human, metric).statistic, abs=1e-12)
    assert correlation.kendall_b(human, metric) == pytest.approx(
        stats.kendalltau(human, metric).statistic, abs=1e-12)
    assert correlation.kendall_c(human, metric) == pytest.approx(
        stats.kendalltau(human, metric, variant="c").statistic, abs=1e-12)


def test_a_constant_side_has_no_correlation():
    assert math.isnan(correlation.pearson(np.ones(5), np.arange(5.0)))
    assert math.isnan(correlation.kendall_b(np.arange(5.0), np.ones(5)))


def test_every_resample_equals_scipy_on_the_expanded_resample():
    human, metric = _data(n=60)
    counts = resample_counts(60, 25, seed=7)
    assert (counts.sum(axis=1) == 60).all()
    found = bootstrap_correlations(human, {"m": metric}, counts)["m"]
    for r in range(25):
        i = np.repeat(np.arange(60), counts[r].astype(int))
        h, m = human[i], metric[i]
        assert found["pearson"][r] == pytest.approx(stats.pearsonr(h, m).statistic, abs=1e-9)
        assert found["spearman"][r] == pytest.approx(stats.spearmanr(h, m).statistic, abs=1e-9)
        assert found["kendall_b"][r] == pytest.approx(stats.kendalltau(h, m).statistic,
                                                      abs=1e-9)
        assert found["kendall_c"][r] == pytest.approx(
            stats.kendalltau(h, m, variant="c").statistic, abs=1e-9)


@pytest.mark.parametrize("shape", ["human-discrete", "metric-discrete", "both-continuous"])
def test_kendall_of_every_resample_whichever_side_has_fewer_values(shape):
    """S is counted along the side with fewer distinct values: each way round, and with
    no ties at all, the resamples' tau-b and tau-c equal scipy's."""
    rng = np.random.default_rng(11)
    discrete = rng.integers(0, 4, 70).astype(float)
    continuous = discrete + rng.normal(0, 1, 70)
    human, metric = {"human-discrete": (discrete, continuous),
                     "metric-discrete": (continuous, discrete),
                     "both-continuous": (continuous, continuous + rng.normal(0, 1, 70))}[shape]
    counts = resample_counts(70, 12, seed=2)
    tau_b, tau_c = weighted_kendall(counts, human, metric)
    for r, row in enumerate(counts):
        i = np.repeat(np.arange(70), row.astype(int))
        assert tau_b[r] == pytest.approx(stats.kendalltau(human[i], metric[i]).statistic)
        assert tau_c[r] == pytest.approx(stats.kendalltau(human[i], metric[i],
                                                          variant="c").statistic)


def test_weighted_kendall_with_weights_is_kendall_of_the_repeated_items():
    human = np.array([1.0, 2.0, 2.0, 3.0, 5.0])
    metric = np.array([0.3, 0.1, 0.4, 0.4, 0.9])
    counts = np.array([[1.0, 2.0, 0.0, 1.0, 1.0], [0.0, 0.0, 3.0, 1.0, 1.0]])
    tau_b, tau_c = weighted_kendall(counts, human, metric)
    for r, row in enumerate(counts):
        i = np.repeat(np.arange(5), row.astype(int))
        assert tau_b[r] == pytest.approx(stats.kendalltau(human[i], metric[i]).statistic)
        assert tau_c[r] == pytest.approx(stats.kendalltau(human[i], metric[i],
                                                          variant="c").statistic)


def test_williams_test_hand_worked():
    # r12 = .5, r13 = .3, r23 = .4, n = 50:
    # K = 1 - .25 - .09 - .16 + 2(.5)(.3)(.4) = .62
    # t = .2 sqrt(49 (1.4) / (2 (.62) 49/47 + (.8^2 / 4)(.6^3))) = .2 sqrt(68.6 / 1.327336)
    t, p = correlation.williams_test(0.5, 0.3, 0.4, 50)
    assert t == pytest.approx(0.2 * math.sqrt(68.6 / (2 * 0.62 * 49 / 47 + 0.16 * 0.216)))
    assert t == pytest.approx(1.4378, abs=1e-4)
    assert p == pytest.approx(2 * stats.t.sf(t, 47))
    assert correlation.williams_test(0.4, 0.4, 0.2, 30)[0] == 0  # equal correlations
    assert math.isnan(correlation.williams_test(0.5, 0.3, 0.4, 3)[0])


def test_holm_bonferroni_hand_worked():
    # sorted 0.005 (x4 = .02), 0.01 (x3 = .03), 0.03 (x2 = .06), 0.04 (x1, kept at .06)
    adjusted = correlation.holm_bonferroni([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert correlation.holm_bonferroni([0.4, 0.5]) == pytest.approx([0.8, 0.8])
    both = correlation.holm_bonferroni([0.01, math.nan])
    assert both[0] == pytest.approx(0.01) and math.isnan(both[1])


def test_tau_like_hand_worked():
    # item x: A, B, C with human 10, 50, 80 and metric .1, .3, .2; threshold 25:
    # (A, B) concordant, (A, C) concordant, (B, C) discordant; item y's pair differs by 10
    # (not counted); item z's metric tie counts as discordant.
    items = np.array(["x", "x", "x", "y", "y", "z", "z"])
    human = np.array([10, 50, 80, 50, 60, 0, 100], dtype=float)
    metric = np.array([0.1, 0.3, 0.2, 0.9, 0.1, 0.5, 0.5])
    assert correlation.tau_like(items[:5], human[:5], metric[:5], 25) == (
        pytest.approx(1 / 3), 3)
    assert correlation.tau_like(items, human, metric, 25) == (0.0, 4)
    assert math.isnan(correlation.tau_like(items[:5], human[:5], metric[:5], 100)[0])


def test_binary_scores_against_scikit_learn_and_by_hand():
    human = np.array([0, 0, 1, 1, 0, 1], dtype=float)
    metric = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    scores = correlation.binary_scores(human, metric)
    assert scores.auc == pytest.approx(roc_auc_score(human, metric))
    # at >= 0.35: 3 flagged (0.35, 0.8, 0.9 positive; 0.4 negative -> 4 flagged, 3 right)
    # gives P .75 R 1 F1 .857; at >= 0.8: P 1, R 2/3, F1 .8: the best is 0.35.
    assert scores.threshold == pytest.approx(0.35) and scores.best_f1 == pytest.approx(6 / 7)
    assert scores.optimistic and correlation.is_binary(human)
    assert not correlation.is_binary(np.array([0.0, 1.0, 2.0]))


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_raters_are_z_normalised_then_averaged(tmp_path):
    # r1 gives 1, 2, 3 (mean 2, population sd sqrt(2/3)); r2 gives 10, 10, 40 (mean 20,
    # sd sqrt(200)); item a = ((1-2)/sqrt(2/3) + (10-20)/sqrt(200)) / 2
    table = read_table(_write(tmp_path / "h.csv", "id,rater,score\na,r1,1\nb,r1,2\nc,r1,3\n"
                                                  "a,r2,10\nb,r2,10\nc,r2,40\n"))
    problems = []
    z = human_scores(table, ["id"], "score", "rater", True, problems)
    assert not problems
    assert z[("a",)] == pytest.approx(((1 - 2) / math.sqrt(2 / 3)
                                       + (10 - 20) / math.sqrt(200)) / 2)
    plain = human_scores(table, ["id"], "score", "rater", False, problems)
    assert plain[("c",)] == pytest.approx(21.5)


def test_join_lists_unmatched_items_and_keeps_the_metric_order(tmp_path):
    human = read_table(_write(tmp_path / "h.jsonl", '{"id": "a", "s": 1}\n{"id": "b", "s": 2}\n'
                                                    '{"id": "z", "s": 3}\n'))
    metrics = read_table(_write(tmp_path / "m.csv", "id,bleu,name\nb,0.2,x\na,0.1,y\nq,0.5,z\n"))
    joined = join(human, metrics, ["id"], "s")
    assert joined.keys == [("b",), ("a",)] and list(joined.metrics) == ["bleu"]
    assert joined.human.tolist() == [2.0, 1.0] and joined.metrics["bleu"].tolist() == [0.2, 0.1]
    assert joined.unmatched_human == [("z",)] and joined.unmatched_metrics == [("q",)]


def run(*args):
    result = CliRunner().invoke(main, ["eval", "metrics", *map(str, args)])
    return result.exit_code, result.output


@pytest.mark.parametrize("human, metrics, expected", [
    ("id,s\na,1\nb,2\n", "id,bleu\na,0.1\na,0.3\n", "m.csv:3: field 'id': duplicate key ('a',) "
                                                    "(first at line 2)"),
    ("id,s\na,1\nb,x\n", "id,bleu\na,0.1\nb,0.3\n", "h.csv:3: field 's': not a number (got "),
    ("id,s\na,1\nb,2\n", "id,bleu\na,0.1\nb,\n", "m.csv:3: field 'bleu': a number is required"),
    ("id,s\na,1\nb,2\n", "key,bleu\na,0.1\nb,0.3\n", "m.csv:1: field 'id': missing column"),
    ("id,s\na,1\nb,2\n", "id,bleu\na,0.1\nb,inf\n", "m.csv:3: field 'bleu': not a finite"),
])
def test_a_bad_table_is_refused_naming_file_line_and_field(tmp_path, human, metrics, expected):
    code, out = run(_write(tmp_path / "h.csv", human), _write(tmp_path / "m.csv", metrics),
                    "--on", "id", "--human", "s", "--metrics", "bleu")
    assert code == 2 and expected in out, out


def test_the_command_reports_every_statistic_with_intervals_and_comparisons(tmp_path):
    rng = np.random.default_rng(0)
    human_rows, metric_rows = ["sent,sys,rater,score,refset"], ["sent,sys,good,noise,refset"]
    for sent in range(20):
        for sys in ("A", "B", "C"):
            truth = rng.normal() + (1 if sys == "A" else 0)
            for rater in ("r1", "r2"):
                human_rows.append(f"{sent},{sys},{rater},{truth + rng.normal(0, .3):.4f},1")
            for refset in ("1", "2"):
                metric_rows.append(f"{sent},{sys},{truth + rng.normal(0, .5):.4f},"
                                   f"{rng.normal():.4f},{refset}")
    human = _write(tmp_path / "h.csv", "\n".join(human_rows) + "\n")
    metrics = _write(tmp_path / "m.csv", "\n".join(metric_rows) + "\n")
    code, out = run(human, metrics, "--on", "sent,sys", "--human", "score", "--rater",
                    "rater", "--where", "refset=1", "--bootstrap", "300", "--seed", "4",
                    "--tau-like-threshold", "0.5", "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["n"] == 60 and [m["metric"] for m in report["metrics"]] == ["good", "noise"]
    good = report["metrics"][0]
    assert good["pearson"]["low"] < good["pearson"]["value"] < good["pearson"]["high"]
    assert good["pearson"]["value"] > 0.6 and good["tau_like"]["pairs"] > 0
    (comparison,) = report["comparisons"]
    assert comparison["williams"]["p"] < 0.01 and comparison["bootstrap"]["pearson"]["p"] < 0.01
    assert report["bootstrap"] == {"resamples": 300, "seed": 4, "ci": 0.95,
                                   "resampled": "items"}
    again = json.loads(run(human, metrics, "--on", "sent,sys", "--human", "score", "--rater",
                           "rater", "--where", "refset=1", "--bootstrap", "300", "--seed",
                           "4", "--tau-like-threshold", "0.5", "--json")[1])
    assert again == report  # the seed fixes the resamples
    code, out = run(human, metrics, "--on", "sent,sys", "--human", "score", "--rater",
                    "rater", "--where", "refset=1", "--level", "system", "--system", "sys",
                    "--json")
    assert code == 0, out
    system = json.loads(out)
    assert code == 0 and system["n"] == 3 and system["systems"] == ["A", "B", "C"]
    code, text = run(human, metrics, "--on", "sent,sys", "--human", "score", "--rater",
                     "rater", "--where", "refset=1", "--bootstrap", "100")
    assert code == 0 and "good" in text and "Williams p" in text and "100 resamples" in text
    code, out = run(human, metrics, "--on", "sent,sys", "--human", "score", "--where",
                    "refset=9")
    assert code == 2 and f"{metrics}: no rows to join (none left after the --where" in out, out


GOLD = [
    {"id": "d1", "meta": {"system": "A"}, "edits": [
        {"edit_type": "deletion", "fields": {"severity": 2}},
        {"edit_type": "deletion", "fields": {"severity": 1}},
        {"edit_type": "oversimplification", "fields": {"severity": 3}}],
     "ratings": [{"level": "sentence", "item": "0", "field": "ACC", "value": 1},
                 {"level": "sentence", "item": "1", "field": "ACC", "value": 0},
                 {"level": "sentence", "item": "1", "field": "type", "value": "elaborative"}]},
    {"id": "d2", "meta": {"system": "B"}, "edits": [],
     "ratings": [{"level": "sentence", "item": "0", "field": "ACC", "value": -1},
                 {"level": "sentence", "item": "0", "field": "type", "value": "source"}]},
    {"id": "d3", "meta": {"system": "B"}, "edits": [
        {"edit_type": "deletion", "fields": {}}], "ratings": []},
]


@pytest.mark.parametrize("expression, unit, expected", [
    ("count:deletion", "document", {"d1": 2.0, "d2": 0.0, "d3": 1.0}),
    ("count:*", "document", {"d1": 3.0, "d2": 0.0, "d3": 1.0}),
    ("sum:severity", "document", {"d1": 6.0, "d2": 0.0, "d3": 0.0}),
    ("mean:ACC", "document", {"d1": 0.5, "d2": -1.0}),  # d3 has no ACC: left out, noted
    ("plaba:ACC", "document", {"d1": 75.0, "d2": 0.0}),  # (mean + 1) x 50
    ("label:type=elaborative", "document", {"d1": 1.0, "d2": 0.0, "d3": 0.0}),
    ("plaba:ACC", "sentence", {("d1", "0"): 100.0, ("d1", "1"): 50.0, ("d2", "0"): 0.0}),
])
def test_release_scores_by_hand(tmp_path, expression, unit, expected):
    from annotator.meta_evaluation.release_scores import release_table

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in GOLD), encoding="utf-8")
    table = release_table(gold, expression, unit)
    found = {(row["document_id"], row["item"]) if unit == "sentence" else row["document_id"]:
             row["human"] for _, row in table.rows}
    assert found == expected
    assert all(row["system"] in ("A", "B") for _, row in table.rows)
    if expression == "mean:ACC":
        assert table.notes == ["1 document(s) have no gold rating 'ACC' and no mean:ACC score "
                               "(left out): d3"]


def test_release_score_expressions_are_checked(tmp_path):
    from annotator.meta_evaluation.release_scores import parse_expression, release_table

    for bad in ("severity", "max:severity", "label:type", "count:"):
        with pytest.raises(ValueError, match="--human"):
            parse_expression(bad)
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(GOLD[0]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="per document"):
        release_table(gold, "count:deletion", "sentence")


def test_a_release_folder_and_zip_give_the_human_side(env, database, adjudicated, tmp_path):
    """The gold of a real release (cut from an adjudicated study), as a folder and as its
    zip, scored per document and joined with a metric table."""
    import zipfile

    from tests.adjudication_fixtures import release

    release(database, adjudicated, exports=tmp_path / "exports")
    folder = next((tmp_path / "exports").glob("*/v1"))
    records = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    expected = {r["id"]: sum(e["edit_type"] == "deletion" for e in r["edits"]) for r in records}
    archive = tmp_path / "v1.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in folder.rglob("*"):
            if path.is_file():
                z.write(path, f"qa-v1/{path.relative_to(folder)}")
    metrics = _write(tmp_path / "m.csv", "document_id,length\n"
                     + "".join(f"{doc},{i + 1}\n" for i, doc in enumerate(sorted(expected))))
    for human in (folder, archive, folder / "gold.jsonl"):
        code, out = run(human, metrics, "--on", "document_id", "--human", "count:deletion",
                        "--system", "system", "--json")
        assert code == 0, out
        report = json.loads(out)
        assert report["n"] == len(expected) == report["matched_items"]
    from annotator.meta_evaluation.release_scores import release_table

    table = release_table(archive, "count:deletion")
    assert {row["document_id"]: row["human"] for _, row in table.rows} == expected


def test_the_html_report_escapes_names_and_draws_a_plot_per_metric(tmp_path):
    human = _write(tmp_path / "h.csv", "id,s\n" + "".join(f"d{i},{i % 5}\n" for i in range(30)))
    metrics = _write(tmp_path / "m.csv", 'id,"<script>alert(1)</script>",b\n' + "".join(
        f"d{i},{(i % 5) * 2 + (i % 3)},{i % 7}\n" for i in range(30)))
    page = tmp_path / "report.html"
    code, out = run(human, metrics, "--on", "id", "--human", "s", "--bootstrap", "100",
                    "--html", page)
    assert code == 0 and f"report written to {page}" in out, out
    html = page.read_text(encoding="utf-8")
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<img") == 1 + 2  # the bar chart and one scatterplot per metric
    assert "b</td>" in html and "Williams p (Holm)" in html


def test_the_regression_band_is_the_spread_of_lines_fitted_to_resamples():
    from annotator.meta_evaluation.html_report import _band

    rng = np.random.default_rng(2)
    metric = rng.normal(size=40)
    human = 2 * metric + rng.normal(size=40)
    grid, line, low, high = _band(human, metric, 200, seed=3, ci=0.9)
    slope, intercept = np.polyfit(metric, human, 1)
    assert line == pytest.approx(intercept + slope * grid)
    counts = resample_counts(40, 200, 3)
    fitted = []
    for row in counts:
        i = np.repeat(np.arange(40), row.astype(int))
        s, c = np.polyfit(metric[i], human[i], 1)
        fitted.append(c + s * grid)
    assert low == pytest.approx(np.percentile(fitted, 5, axis=0))
    assert high == pytest.approx(np.percentile(fitted, 95, axis=0))


def test_metrics_shared_out_to_processes_give_the_same_resamples():
    """The command line shares the metrics out to one forked process per core: the same
    numbers as one process."""
    human, _ = _data(n=50)
    rng = np.random.default_rng(5)
    metrics = {f"m{k}": human + rng.normal(0, 1 + k, 50) for k in range(3)}
    counts = resample_counts(50, 40, seed=1)
    alone = bootstrap_correlations(human, metrics, counts, processes=1)
    shared = bootstrap_correlations(human, metrics, counts, processes=2)
    assert list(shared) == list(metrics)
    for name in metrics:
        for statistic, values in alone[name].items():
            np.testing.assert_array_equal(shared[name][statistic], values)
