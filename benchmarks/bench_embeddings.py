"""Time embedding-based suggestions (all detectors, default model) for N abstract pairs.

Uses the planted evaluation documents (abstract-length pairs) recycled with light
variation so sentences are not all cached, and reports pairs/second for a cold and a
warm embedding cache.

    .venv/bin/python benchmarks/bench_embeddings.py            # 500 pairs
    .venv/bin/python benchmarks/bench_embeddings.py --pairs 50
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from annotator.align import suggest  # noqa: E402
from annotator.align.embeddings import Embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500)
    args = parser.parse_args()
    docs = [
        json.loads(line)
        for line in (ROOT / "benchmarks" / "eval_data" / "planted.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    pairs = []
    for k in range(args.pairs):
        doc = docs[k % len(docs)]
        suffix = f" (record {k})" if k >= len(docs) else ""
        pairs.append((doc["source"], doc["target"] + suffix))
    embedder = Embedder()
    start = time.perf_counter()
    embedder.encode(["warm-up"])
    load = time.perf_counter() - start
    for label in ("cold cache", "warm cache"):
        start = time.perf_counter()
        n_sugg = sum(len(suggest(s, t, embedder=embedder)) for s, t in pairs)
        seconds = time.perf_counter() - start
        print(
            f"{label}: {len(pairs)} pairs in {seconds:.1f} s = {len(pairs) / seconds:.1f} pairs/s "
            f"({n_sugg} suggestions)"
        )
    print(f"model load: {load:.1f} s")


if __name__ == "__main__":
    main()
