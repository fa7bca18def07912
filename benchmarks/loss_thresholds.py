"""``--loss-thresholds D/O``: run the evaluations with the shipped loss model at other
thresholds (deletion D, oversimplification O), as docs/align.md's threshold table does.

The weights stay the shipped ones; only the probability from which a sentence is boxed
changes, so the demo, the planted set and the held-out expert documents can be compared at
one operating point."""

from __future__ import annotations

import argparse
import dataclasses

from annotator.align.loss_ranker import KINDS, LossRanker, default_ranker


def parse(text: str) -> dict[str, float]:
    """"0.25/0.225" -> {"deletion": 0.25, "oversimplification": 0.225}."""
    parts = text.split("/")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != len(KINDS) or not all(0.0 < v < 1.0 for v in values):
        raise argparse.ArgumentTypeError(
            f"expected DELETION/OVERSIMPLIFICATION, two probabilities between 0 and 1, "
            f"got {text!r}")
    return dict(zip(KINDS, values))


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--loss-thresholds", type=parse, default=None, metavar="D/O",
                        help="box sentences from these probabilities instead of the shipped "
                             "model's (deletion/oversimplification, e.g. 0.8/0.175)")


def at(ranker: LossRanker, thresholds: dict[str, float]) -> LossRanker:
    """``ranker`` with other thresholds (weights unchanged)."""
    return dataclasses.replace(ranker, thresholds=dict(thresholds))


def shipped_model(thresholds: dict[str, float] | None) -> dict | None:
    """The shipped model at ``thresholds``, as ``AlignSettings.loss_model`` takes it; None
    (the shipped model as it is) when no thresholds were given."""
    return None if thresholds is None else at(default_ranker(), thresholds).to_dict()
