"""Benchmark: the project's Krippendorff alpha against NLTK's AnnotationTask.alpha, and the
full agreement report at the size of a real study.

Run:  .venv/bin/python benchmarks/bench_alpha.py [--items 10000] [--raters 3] [--repeat 3]

1. ``items`` units x ``raters`` raters, 4 nominal categories, ~10% missing: time
   ``annotator.agreement.alpha.krippendorff_alpha`` (the ``krippendorff`` package behind
   the project's checks) and the coincidence-matrix form used by the bootstrap, against
   ``nltk.metrics.agreement.AnnotationTask(data).alpha()`` on the same data in the same run;
   print the times, the ratio and whether the values agree. The project's functions get a
   raters x units float matrix (NaN = missing), NLTK its (coder, item, label) triples; each
   timing includes the library's own preprocessing of its input (NLTK: building the task).
2. ``build_report`` on 100 documents x 2 annotators x 10 edits with 1,000 bootstrap
   resamples (all coefficients, spans, sentence alpha, descriptives).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from nltk.metrics.agreement import AnnotationTask

from annotator.agreement.alpha import (
    alpha_from_coincidence,
    coincidence,
    encode,
    krippendorff_alpha,
    unit_counts,
)
from annotator.agreement.report import build_report
from annotator.agreement.synthetic import hash_embed, make_input


def best_of(fn, repeat: int):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def make_data(items: int, raters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, size=items)
    data = np.where(
        rng.random((raters, items)) < 0.7, truth, rng.integers(0, 4, size=(raters, items))
    )
    data = data.astype(object)
    data[rng.random((raters, items)) < 0.1] = None
    return data.tolist()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    data = make_data(args.items, args.raters)
    triples = [(f"r{r}", str(u), v) for r, row in enumerate(data) for u, v in enumerate(row)
               if v is not None]
    # The project's natural input: a reliability matrix, raters x units, NaN = missing.
    matrix = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    t_ours, ours = best_of(lambda: krippendorff_alpha(matrix, "nominal"), args.repeat)

    def coincidence_alpha():
        codes, domain = encode(matrix)
        return float(alpha_from_coincidence(coincidence(unit_counts(codes, len(domain))),
                                            "nominal", domain))

    t_coin, coin = best_of(coincidence_alpha, args.repeat)
    t_nltk, theirs = best_of(lambda: AnnotationTask(triples).alpha(), 1)
    print(f"alpha on {args.items} items x {args.raters} raters, 4 categories, ~10% missing")
    print(f"  project (krippendorff package): {t_ours * 1000:9.1f} ms  alpha={ours:.6f}")
    print(f"  project (coincidence form):     {t_coin * 1000:9.1f} ms  alpha={coin:.6f}")
    print(f"  NLTK AnnotationTask.alpha:      {t_nltk * 1000:9.1f} ms  alpha={theirs:.6f}")
    print(
        f"  speed-up vs NLTK: {t_nltk / t_ours:.1f}x (package), "
        f"{t_nltk / t_coin:.1f}x (coincidence)"
    )
    agree = abs(ours - theirs) < 1e-9 and abs(coin - theirs) < 1e-9
    print(f"  values agree (|diff| < 1e-9): {agree}")

    inp = make_input(n_docs=100, n_annotators=2, edits_per_doc=10, embed=hash_embed)
    t_report, report = best_of(lambda: build_report(inp, bootstrap=1000, seed=0), 1)
    print(f"build_report: 100 documents x 2 annotators x 10 edits, 1000 resamples: "
          f"{t_report:.2f} s ({len(report['fields'])} rating fields, "
          f"{len(report['edit_fields'])} edit fields, 2 span sides)")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
