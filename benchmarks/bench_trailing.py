"""Trailing-content throughput: plain reference rule vs the project's batch path.

Generates N sentence pairs shaped like a shared task: N/70 source sentences of realistic
length (8-60 words, abstract vocabulary with numbers, units and abbreviations), each
simplified by 70 "systems" that copy, drop, reword, shorten and sometimes append content.
Times, in the same process run, the plain single-process reference (the exact function
kept in tests/test_align_trailing.py) and ``annotator.align.trailing_batch`` and prints
pairs/second for both, the ratio, and whether the outputs are identical.

    .venv/bin/python benchmarks/bench_trailing.py            # 100,000 pairs
    .venv/bin/python benchmarks/bench_trailing.py --pairs 5000
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotator.align.trailing_batch import trailing_content_many  # noqa: E402

VOCAB = ("patients participants children adults trial study drug dose doses placebo group groups "
         "risk blood pressure levels serum vitamin outcome outcomes primary secondary treatment "
         "therapy week weeks months years baseline follow-up compared received reduced increased "
         "improved significantly randomized double-blind controlled multicentre cohort analysis "
         "mean median ratio hazard confidence interval symptoms severity quality life score "
         "questionnaire scale adverse events mortality hospital admission the the the a of of in "
         "in and and with with to for was were than at after during between among who that this "
         "these (SIBDQ) (n = 42) 2.5 mg/kg 12 120 0.05 p < 95% CI 1.2-2.7 78.9 ± 7.65 % i.v. "
         "vs. e.g. et al. Fig. 2 , , , ; :").split()
SIMPLE = (
    "people kids medicine pill check test better worse less more doctors study got took".split()
)
TAILS = [
    "(I chose 'rephrase' as the internal simplification strategy)",
    "These comparisons were made whether or not the patients were also taking other medicines.",
    "Note: this sentence was simplified.",
    "This is important.",
    "Here is the simplified version:",
]


def make_corpus(n_pairs: int, systems: int = 70, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    n_sources = max(1, n_pairs // systems)
    sources = []
    for _ in range(n_sources):
        words = [rng.choice(VOCAB) for _ in range(rng.randint(8, 60))]
        sources.append(" ".join(words).capitalize() + ".")
    # Each system has its own habits (kept fixed across sources).
    habits = [(rng.random() * 0.4, rng.random() * 0.3, rng.random() * 0.15) for _ in range(systems)]
    pairs = []
    for k in range(n_pairs):
        src = sources[k // systems % n_sources]
        drop, reword, tail = habits[k % systems]
        words = src[:-1].split()
        out = []
        for w in words:
            r = rng.random()
            if r < drop:
                continue
            out.append(rng.choice(SIMPLE) if r < drop + reword else w)
        pred = " ".join(out) + "."
        if rng.random() < tail:
            pred += " " + rng.choice(TAILS)
        pairs.append((src, pred))
    return pairs


def load_reference():
    path = ROOT / "tests" / "test_align_trailing.py"
    spec = importlib.util.spec_from_file_location("align_trailing_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference_trailing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    reference_trailing = load_reference()
    pairs = make_corpus(args.pairs)
    print(f"{len(pairs)} pairs, {len({s for s, _ in pairs})} unique sources, "
          f"{len({p for _, p in pairs})} unique predictions, workers={args.workers}")

    start = time.perf_counter()
    expected = [reference_trailing(s, p) for s, p in pairs]
    ref_seconds = time.perf_counter() - start

    start = time.perf_counter()
    got = [r.as_tuple() for r in trailing_content_many(pairs, workers=args.workers)]
    batch_seconds = time.perf_counter() - start

    ref_rate, batch_rate = len(pairs) / ref_seconds, len(pairs) / batch_seconds
    print(f"reference (plain, 1 process): {ref_rate:10.0f} pairs/s  ({ref_seconds:.1f} s)")
    print(
        f"batch path ({args.workers} workers):      {batch_rate:10.0f} pairs/s  "
        f"({batch_seconds:.1f} s)"
    )
    print(f"ratio: {batch_rate / ref_rate:.1f}x")
    print(f"flagged: {sum(e[2] for e in expected)} of {len(pairs)}")
    print(f"identical outputs: {got == expected}")


if __name__ == "__main__":
    main()
