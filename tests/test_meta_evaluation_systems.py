"""`annotator eval systems`: systems ranked by mean human score with bootstrap intervals,
Holm-adjusted ties and rank ranges (PLABA's system table), paired by item or not."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.meta_evaluation.bootstrap import resample_counts
from annotator.meta_evaluation.systems import _paired_means, rank_systems


def test_paired_means_are_each_systems_mean_over_the_drawn_items_it_has():
    items = ["a", "b", "c", "a", "b"]
    systems = ["X", "X", "X", "Y", "Y"]  # Y has no output for item c
    scores = np.array([1.0, 2.0, 3.0, 10.0, 20.0])
    point, resampled = _paired_means(items, systems, scores, ["X", "Y"], 30, seed=5)
    assert point.tolist() == [2.0, 15.0]
    counts = resample_counts(3, 30, 5)  # the same draws: items a, b, c
    for r, row in enumerate(counts):
        drawn = np.repeat(np.arange(3), row.astype(int))
        x = np.array([1.0, 2.0, 3.0])[drawn].mean()
        y_items = [i for i in drawn if i < 2]
        y = np.array([10.0, 20.0])[y_items].mean() if y_items else np.nan
        assert resampled[r, 0] == pytest.approx(x)
        assert np.isnan(resampled[r, 1]) if np.isnan(y) else resampled[r, 1] == pytest.approx(y)


def test_clear_winners_are_ranked_and_equal_systems_are_tied():
    rng = np.random.default_rng(0)
    items, systems, scores = [], [], []
    for i in range(40):
        base = rng.normal()
        for name, shift in (("best", 2.0), ("twin-a", 0.0), ("twin-b", 0.0)):
            items.append(str(i))
            systems.append(name)
            scores.append(base + shift + rng.normal(0, 0.1))
    report = rank_systems(systems, np.array(scores), items=items, resamples=500, seed=1)
    rows = {r["system"]: r for r in report["systems"]}
    assert report["systems"][0]["system"] == "best" and rows["best"]["rank_range"] == [1, 1]
    assert rows["best"]["tied_with"] == []
    assert rows["twin-a"]["rank_range"] == [2, 3] and rows["twin-a"]["tied_with"] == ["twin-b"]
    assert all(r["low"] <= r["mean"] <= r["high"] for r in report["systems"])
    best_vs = [c for c in report["comparisons"] if "best" in (c["a"], c["b"])]
    assert all(c["p_holm"] < 0.05 for c in best_vs)
    twins = next(c for c in report["comparisons"] if {c["a"], c["b"]} == {"twin-a", "twin-b"})
    assert twins["p_holm"] >= 0.05 and report["paired"] is True


def test_the_command_on_the_demo_tables_and_a_bad_column(tmp_path):
    from annotator.core.resources import demo_data_dir

    human = demo_data_dir() / "metrics_demo_human.csv"
    result = CliRunner().invoke(main, ["eval", "systems", str(human), "--system", "system",
                                       "--human", "accuracy", "--on", "abstract,system",
                                       "--rater", "rater", "--item", "abstract", "--json"])
    assert result.exit_code == 0, result.output
    (axis,) = json.loads(result.output)["axes"]
    rows = [line.split(",") for line in human.read_text().splitlines()[1:]]
    for row in axis["systems"]:  # the mean of the per-abstract means of the two raters
        per_abstract = {}
        for abstract, system, _, value in rows:
            if system == row["system"]:
                per_abstract.setdefault(abstract, []).append(float(value))
        assert row["mean"] == pytest.approx(np.mean([np.mean(v) for v in per_abstract.values()]),
                                            abs=1e-6)
        assert row["n"] == 15
    result = CliRunner().invoke(main, ["eval", "systems", str(human), "--system", "engine",
                                       "--human", "accuracy"])
    assert result.exit_code == 2 and "field 'engine': missing column" in result.output
