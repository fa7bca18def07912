"""Speed of `annotator eval metrics`' statistics: N items x K metrics with R bootstrap resamples.

Times the whole report (point correlations, every resample's Pearson, Spearman, Kendall
tau-b and tau-c, the pairwise comparisons) on generated scores, and as a reference in the
same run, scipy called on each expanded resample (a few resamples, scaled up to R): the
ratio says what the count-weighted fast paths save.

    .venv/bin/python benchmarks/bench_metric_correlations.py [--items 10000] [--metrics 20]
        [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy import stats

from annotator.meta_evaluation.report import Options, evaluate
from annotator.meta_evaluation.tables import Joined


def generated(items: int, metrics: int, seed: int = 0) -> Joined:
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(size=items), 1)  # rounded: ties, as ratings have
    scores = {f"m{k:02d}": np.round(human * rng.uniform(0.2, 1) + rng.normal(size=items), 3)
              for k in range(metrics)}
    return Joined(keys=[(str(i),) for i in range(items)], human=human, metrics=scores,
                  key_columns=["id"])


def scipy_seconds_per_resample(joined: Joined, resamples: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    n = len(joined.human)
    started = time.perf_counter()
    for _ in range(resamples):
        drawn = rng.integers(0, n, n)
        h = joined.human[drawn]
        for metric in joined.metrics.values():
            m = metric[drawn]
            stats.pearsonr(h, m)
            stats.spearmanr(h, m)
            stats.kendalltau(h, m)
            stats.kendalltau(h, m, variant="c")
    return (time.perf_counter() - started) / resamples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--reference-resamples", type=int, default=5)
    args = parser.parse_args()
    joined = generated(args.items, args.metrics)
    started = time.perf_counter()
    # as `annotator eval metrics` runs it: the metrics shared out to one process per core
    report = evaluate(joined, Options(resamples=args.resamples, seed=0,
                                      processes=os.cpu_count() or 1))
    ours = time.perf_counter() - started
    reference = scipy_seconds_per_resample(joined, args.reference_resamples) * args.resamples
    print(f"{args.items} items x {args.metrics} metrics, {args.resamples} resamples, "
          f"{len(report['comparisons'])} comparisons")
    print(f"  report (every statistic with intervals, comparisons): {ours:.2f} s")
    print(f"  scipy on each expanded resample (reference, from {args.reference_resamples} "
          f"resamples): {reference:.2f} s")
    print(f"  ratio ours / reference: {ours / reference:.3f}")


if __name__ == "__main__":
    main()
