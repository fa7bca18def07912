"""`--loss-thresholds D/O` of the evaluation scripts (benchmarks/loss_thresholds.py): the
shipped model at another operating point, as docs/align.md's threshold table reports it.
Real MiniLM model on a real InfoLossQA pair."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from annotator.align import AlignSettings, suggest
from annotator.align.embeddings import Embedder
from annotator.align.loss_ranker import default_ranker
from tests.helpers import infolossqa_pair

_SPEC = importlib.util.spec_from_file_location(
    "loss_thresholds", Path(__file__).resolve().parents[1] / "benchmarks" / "loss_thresholds.py")
loss_thresholds = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(loss_thresholds)


def test_thresholds_are_read_as_deletion_then_oversimplification():
    assert loss_thresholds.parse("0.8/0.175") == {"deletion": 0.8, "oversimplification": 0.175}


@pytest.mark.parametrize("text", ["0.8", "0.8/x", "0/0.2", "0.2/1.5", "0.1/0.2/0.3"])
def test_a_bad_value_is_refused_by_the_command_line_with_the_value(text, capsys):
    parser = argparse.ArgumentParser()
    loss_thresholds.add_option(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--loss-thresholds", text])
    assert f"got {text!r}" in capsys.readouterr().err


def test_only_the_thresholds_change_and_the_shipped_model_stays_as_it_is():
    assert loss_thresholds.shipped_model(None) is None
    changed = loss_thresholds.shipped_model({"deletion": 0.8, "oversimplification": 0.175})
    shipped = default_ranker()
    assert changed["thresholds"] == {"deletion": 0.8, "oversimplification": 0.175}
    assert shipped.thresholds == {"deletion": 0.25, "oversimplification": 0.225}
    for kind, weights in shipped.weights.items():
        assert np.allclose(changed["weights"][kind], weights, atol=1e-6)


def test_higher_thresholds_box_less_of_a_real_pair():
    source, target = infolossqa_pair("3483284")
    embedder = Embedder()

    def loss_boxes(thresholds):
        model = loss_thresholds.shipped_model(thresholds)
        return list(suggest(source, target, embedder=embedder,
                                   detectors={"deletion", "oversimplification"},
                                   settings=AlignSettings(loss_model=model)))

    shipped = loss_boxes(None)
    # Only boxes on hard evidence are left (shown whatever the threshold).
    strict = loss_boxes({"deletion": 0.95, "oversimplification": 0.95})
    assert 0 < len(strict) < len(shipped)
    assert {tuple(s.source_spans[0]) for s in strict} <= {tuple(s.source_spans[0])
                                                          for s in shipped}
