"""Precision and recall of each pre-highlighter on the planted evaluation set.

A suggestion is correct when a planted problem of the same kind overlaps it (on the
source side for information loss, on the target side otherwise); a planted problem is
found when a suggestion of its kind overlaps it. "loss (either kind)" counts deletion and
oversimplification as one family, since the border between dropping and blurring an item
is fuzzy. The threshold sweeps print the numbers used to choose the defaults.

    .venv/bin/python benchmarks/eval_data/generate.py      # (re)writes planted.jsonl
    .venv/bin/python benchmarks/evaluate_prehighlight.py [--loss-thresholds D/O]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import loss_thresholds  # noqa: E402

from annotator.align import AlignSettings, suggest  # noqa: E402
from annotator.align.embeddings import default_embedder  # noqa: E402
from annotator.align.text import split_sentences  # noqa: E402

KINDS = ["trailing", "leaked_instruction", "semantic_outlier", "repetition", "deletion",
         "oversimplification"]
LOSS = {"deletion", "oversimplification"}


def overlaps(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def side(item) -> str:
    return "source_spans" if item["source_spans"] else "target_spans"


def hits(sug: dict, prob: dict, kinds: set[str]) -> bool:
    if sug["kind"] not in kinds or prob["kind"] not in kinds:
        return False
    key = side(prob)
    return any(overlaps(a, b) for a in sug[key] for b in prob[key])


def score(docs, results, kinds_of):
    stats = {}
    for label, kinds in kinds_of.items():
        tp_sug = n_sug = found = n_prob = 0
        for doc, sugs in zip(docs, results):
            mine = [s for s in sugs if s["kind"] in kinds]
            probs = [p for p in doc["problems"] if p["kind"] in kinds]
            n_sug += len(mine)
            tp_sug += sum(any(hits(s, p, kinds) for p in probs) for s in mine)
            n_prob += len(probs)
            found += sum(any(hits(s, p, kinds) for s in mine) for p in probs)
        stats[label] = (
            tp_sug / n_sug if n_sug else float("nan"),
            found / n_prob if n_prob else float("nan"),
            n_sug,
            n_prob,
        )
    return stats


def sweep(name, scores, labels, thresholds, higher_is_positive=True):
    scores, labels = np.array(scores), np.array(labels, dtype=bool)
    print(f"\n{name}: {labels.sum()} positives of {len(labels)}")
    best = None
    for t in thresholds:
        pred = scores >= t if higher_is_positive else scores < t
        tp = int((pred & labels).sum())
        p = tp / pred.sum() if pred.sum() else 0.0
        r = tp / labels.sum() if labels.sum() else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        print(f"  threshold {t:.2f}: precision {p:.3f} recall {r:.3f} F1 {f1:.3f}")
        if best is None or f1 > best[1]:
            best = (t, f1)
    print(f"  best F1 at {best[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    loss_thresholds.add_option(parser)
    args = parser.parse_args()
    path = ROOT / "benchmarks" / "eval_data" / "planted.jsonl"
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    embedder = default_embedder()
    settings = AlignSettings(loss_model=loss_thresholds.shipped_model(args.loss_thresholds))
    results = [
        [
            s.to_dict()
            for s in suggest(d["source"], d["target"], embedder=embedder, settings=settings)
        ]
        for d in docs
    ]
    kinds_of = {k: {k} for k in KINDS}
    kinds_of["trailing or leaked"] = {"trailing", "leaked_instruction"}
    kinds_of["loss (either kind)"] = LOSS
    kinds_of["overgeneration (any)"] = {
        "trailing",
        "leaked_instruction",
        "semantic_outlier",
        "repetition",
    }
    print(f"{len(docs)} documents, {sum(len(d['problems']) for d in docs)} planted problems")
    print(f"{'kind':22s} {'precision':>9s} {'recall':>7s} {'#sugg':>6s} {'#planted':>8s}")
    for label, (p, r, ns, npb) in score(docs, results, kinds_of).items():
        print(f"{label:22s} {p:9.3f} {r:7.3f} {ns:6d} {npb:8d}")
    by_slot = defaultdict(lambda: [0, 0])
    for doc, sugs in zip(docs, results):
        for p in doc["problems"]:
            if p["kind"] in LOSS:
                by_slot[p["slot"]][1] += 1
                by_slot[p["slot"]][0] += any(hits(s, p, LOSS) for s in sugs)
    print(
        "loss recall by planted item: "
        + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(by_slot.items()))
    )

    # Threshold sweeps on sentence-level scores.
    out_scores, out_labels, del_scores, del_labels = [], [], [], []
    for doc in docs:
        src = [doc["source"][s:e] for s, e in split_sentences(doc["source"])]
        tgt_spans = split_sentences(doc["target"])
        tgt = [doc["target"][s:e] for s, e in tgt_spans]
        sim = embedder.similarity_matrix(src, tgt)
        planted_t = [
            p["target_spans"][0] for p in doc["problems"] if p["slot"] in ("injection", "leak")
        ]
        for (s, e), col in zip(tgt_spans, sim.T):
            out_scores.append(1 - col.max())
            out_labels.append(any(overlaps((s, e), q) for q in planted_t))
        planted_s = [p["source_spans"][0] for p in doc["problems"] if p["slot"] == "sentence"]
        for (s, e), row in zip(split_sentences(doc["source"]), sim):
            del_scores.append(row.max())
            del_labels.append(any(overlaps((s, e), q) for q in planted_s))
    sweep("semantic outlier (1 - max cos) on target sentences", out_scores, out_labels,
          [0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.73, 0.75, 0.8])
    sweep(
        "whole-sentence deletion (max cos below threshold) on source sentences",
        del_scores,
        del_labels,
        [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6],
        higher_is_positive=False,
    )


if __name__ == "__main__":
    main()
