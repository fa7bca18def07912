"""Pairwise recall of reference QAs (pure): candidate mining, calibration, aggregation.

- Mining (docs/rules.md §4.4): embed "question answer" of every reference and model QA of a
  document; a pair is a *candidate* when its cosine similarity exceeds T (default 0.65).
  Pairs below T are not compared and count as "not recalled"; the share of comparisons
  saved is 1 - candidates / all pairs.
- Calibration: draw pairs evenly across equal-width similarity bins, so a lead can rate a
  small sample and read off (:func:`threshold_table`) how many recalled pairs each T keeps.
- Aggregation: a pair's label is its raters' consensus (the most frequent label; a tie
  goes to the lower recall, the conservative choice); a reference is *fully* recalled if
  any model QA fully recalls it, else *partially* if any partially does, else *not*.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

DEFAULT_THRESHOLD = 0.65
LABELS = ("fully", "partially", "not")  # best first
RANK = {label: i for i, label in enumerate(LABELS)}


@dataclass(frozen=True)
class QAText:
    id: int
    document: str
    text: str  # question + " " + answer


def qa_text(question: str, answer: str) -> str:
    return f"{question.strip()} {answer.strip()}".strip()


def mine_pairs(references: Sequence[QAText], predictions: Sequence[QAText], embedder,
               threshold: float = DEFAULT_THRESHOLD) -> list[tuple[int, int, float, bool]]:
    """(reference id, prediction id, cosine, candidate) for every pair within a document."""
    out = []
    docs = sorted({r.document for r in references} | {p.document for p in predictions})
    for doc in docs:
        refs = [r for r in references if r.document == doc]
        preds = [p for p in predictions if p.document == doc]
        if not refs or not preds:
            continue
        a = np.asarray(embedder.encode([r.text for r in refs]), dtype=np.float64)
        b = np.asarray(embedder.encode([p.text for p in preds]), dtype=np.float64)
        a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
        b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
        sims = a @ b.T
        for i, r in enumerate(refs):
            for j, p in enumerate(preds):
                s = float(sims[i, j])
                out.append((r.id, p.id, s, s > threshold))
    return out


def saved_share(n_pairs: int, n_candidates: int) -> float | None:
    return None if n_pairs == 0 else 1.0 - n_candidates / n_pairs


def calibration_sample(pairs: Sequence[tuple[int, float]], bins: int = 5, per_bin: int = 4,
                       seed: int = 0) -> list[dict]:
    """Up to ``per_bin`` pairs from each of ``bins`` equal-width bins between the lowest and
    highest similarity: [{id, similarity, bin, range}]."""
    if not pairs:
        return []
    sims = [s for _, s in pairs]
    lo, hi = min(sims), max(sims)
    width = (hi - lo) / bins or 1.0
    binned: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for pid, s in sorted(pairs):
        binned[min(int((s - lo) / width), bins - 1)].append((pid, s))
    rng = random.Random(seed)
    out = []
    for b in range(bins):
        members = binned.get(b, [])
        for pid, s in sorted(rng.sample(members, min(per_bin, len(members)))):
            out.append({"id": pid, "similarity": s, "bin": b,
                        "range": [lo + b * width, lo + (b + 1) * width]})
    return out


def threshold_table(labelled: Iterable[tuple[float, str]],
                    thresholds: Sequence[float] = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)):
    """For each T: the share of pairs kept (compared), and of the pairs rated fully or
    partially recalled, the share T keeps (so none of them would be lost below T)."""
    labelled = list(labelled)
    positives = [s for s, label in labelled if label in ("fully", "partially")]
    rows = []
    for t in thresholds:
        kept = sum(1 for s, _ in labelled if s > t)
        rows.append({"threshold": t,
                     "kept": kept / len(labelled) if labelled else None,
                     "saved": 1 - kept / len(labelled) if labelled else None,
                     "recalled_kept": (sum(1 for s in positives if s > t) / len(positives))
                     if positives else None})
    return rows


def consensus(labels: Sequence[str]) -> str | None:
    labels = [label for label in labels if label in RANK]
    if not labels:
        return None
    counts = Counter(labels)
    top = max(counts.values())
    return max((label for label, c in counts.items() if c == top), key=lambda x: RANK[x])


def reference_status(labels: Iterable[str | None]) -> str:
    labels = [label for label in labels if label]
    for label in ("fully", "partially"):
        if label in labels:
            return label
    return "not"


def aggregate(references: Sequence[int], pair_labels: dict[tuple[int, int], str | None],
              model_of: dict[int, str]) -> dict:
    """Per reference (over all models) and per model: the status of each reference and
    the shares of fully / partially / not recalled references. Pairs without a label
    (below T, or not rated yet) count as not recalled."""
    models = sorted(set(model_of.values()))

    def status(ref: int, model: str | None) -> str:
        return reference_status(label for (r, p), label in pair_labels.items()
                                if r == ref and (model is None or model_of.get(p) == model))

    def shares(statuses: list[str]) -> dict:
        n = len(statuses)
        return {label: (statuses.count(label) / n if n else None) for label in LABELS} | {
            "references": n}

    per_reference = {ref: status(ref, None) for ref in references}
    per_model = {m: shares([status(ref, m) for ref in references]) for m in models}
    return {"per_reference": per_reference, "overall": shares(list(per_reference.values())),
            "per_model": per_model}
