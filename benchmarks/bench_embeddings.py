"""Time embedding-based suggestions (all detectors, default model) for N abstract pairs.

Uses the planted evaluation documents (abstract-length pairs) recycled with light
variation so sentences are not all cached, and reports pairs/second for a cold and a
warm embedding cache.

    .venv/bin/python benchmarks/bench_embeddings.py            # 500 pairs
    .venv/bin/python benchmarks/bench_embeddings.py --pairs 50
    .venv/bin/python benchmarks/bench_embeddings.py --backends  # numpy vs sentence-transformers

``--backends`` compares the two ways of running the default model (the numpy encoder of
``annotator.align.minilm`` and sentence-transformers on torch), each in a fresh child
process so that imports and peak resident memory are its own: load time (imports
included), sentences/second encoding the planted documents' sentences, peak memory, and
the ratio of the two; plus the smallest cosine between their vectors.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from annotator.align import suggest  # noqa: E402
from annotator.align.embeddings import Embedder  # noqa: E402
from annotator.core.model_choice import ModelChoice, use_model  # noqa: E402


def planted_sentences() -> list[str]:
    import re

    def split_sentences(text: str) -> list[str]:  # rough split: sentence-sized inputs
        return re.split(r"(?<=[.!?])\s+", text)

    docs = [json.loads(line) for line in (ROOT / "benchmarks" / "eval_data" / "planted.jsonl")
            .read_text(encoding="utf-8").splitlines()]
    texts = [s for d in docs for side in ("source", "target")
             for s in split_sentences(d[side])]
    return list(dict.fromkeys(t.strip() for t in texts if t.strip()))


def backend_child(backend: str, out: str) -> None:
    """Measure one backend in this (fresh) process; vectors go to ``out`` (.npy)."""
    import numpy as np

    use_model(ModelChoice(backend=backend))
    sentences = planted_sentences()
    start = time.perf_counter()
    embedder = Embedder()
    embedder.encode(["warm-up"])
    load = time.perf_counter() - start
    start = time.perf_counter()
    vectors = embedder.encode(sentences)
    seconds = time.perf_counter() - start
    np.save(out, vectors)
    print(json.dumps({"load": load, "sentences": len(sentences), "seconds": seconds,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "torch": "torch" in sys.modules}))


def compare_backends() -> None:
    import tempfile

    import numpy as np

    results, vectors = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("numpy", "sentence-transformers"):
            out = os.path.join(tmp, f"{backend}.npy")
            done = subprocess.run([sys.executable, __file__, "--backend-child", backend, out],
                                  capture_output=True, text=True, check=True)
            results[backend] = json.loads(done.stdout.strip().splitlines()[-1])
            vectors[backend] = np.load(out)
    for backend, r in results.items():
        print(f"{backend:>21}: load {r['load']:.1f} s, {r['sentences']} sentences in "
              f"{r['seconds']:.1f} s = {r['sentences'] / r['seconds']:.0f}/s, peak "
              f"{r['peak_mb']:.0f} MB, torch imported: {r['torch']}")
    ours, ref = results["numpy"], results["sentence-transformers"]
    print(f"numpy / sentence-transformers: load x{ours['load'] / ref['load']:.2f}, "
          f"encode time x{ours['seconds'] / ref['seconds']:.2f}, "
          f"peak memory x{ours['peak_mb'] / ref['peak_mb']:.2f}")
    cosines = (vectors["numpy"] * vectors["sentence-transformers"]).sum(axis=1)
    print(f"smallest cosine between the two backends' vectors: {cosines.min():.6f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--backends", action="store_true",
                        help="compare the numpy encoder with sentence-transformers")
    parser.add_argument("--backend-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.backend_child:
        backend_child(*args.backend_child)
        return
    if args.backends:
        compare_backends()
        return
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
