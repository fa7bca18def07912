"""What the deletion target of issue #29 would take: kinds given an expert's own places.

Every InfoLossQA development document was marked by two experts. Keep one expert's edits
where they are (an expert's placement, better than any machine's boxes) and give them
their kinds from elsewhere; score them against the other expert with the pre-highlight
measure (:func:`annotator.core.edit_match.match`, deletion kind), both
ways round, pooled. With the expert's own kinds that is the experts' deletion F1, ratio 1
by construction. Rows:

* the other expert as a kind classifier on the places both experts marked (how well the
  experts tell each other's kind): its true-positive and true-negative rates, and their
  mean, the AUC of a yes/no classifier;
* the loss ranker's kinds: each edit gets the deletion share ``p_del / (p_del + p_over)``
  of the sentences under it, from a model fitted on the other folds (nothing scored on a
  document it was fitted on); the threshold on the share is the best one *on these same
  documents*, so the row is an optimistic ceiling; and every edit carrying both kinds (the
  leniency of two-kind boxes taken to its end);
* simulated kind scores of a given AUC (a deletion's score drawn from N(d, 1), an
  oversimplification's from N(0, 1), d = sqrt(2) * Phi^-1(AUC), the AUC of the binormal
  model; Hanley & McNeil 1982), threshold again the best on these documents, mean over
  ``--draws`` draws: how well a kind score has to separate the kinds to reach the target.

The machine's own boxes are measured by ``evaluate_on_infolossqa.py``; this script asks
what perfect placement would leave of the deletion target (ratio >= 0.8).

    python benchmarks/evaluate_deletion_ceiling.py [--data DIR] [--folds 5] [--draws 5]
        [--plot docs/figures/deletion_ceiling.png]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import permutations
from pathlib import Path
from statistics import NormalDist
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from infolossqa_data import DEFAULT_DATA, load, scored_marks  # noqa: E402

from annotator.core.document_folds import folds  # noqa: E402
from annotator.core.edit_match import Counts, Mark, match  # noqa: E402
from annotator.core.overlap import spans_overlap  # noqa: E402

DELETION, OTHER = "deletion", "oversimplification"
AUC_GRID = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
TARGET = 0.8   # issue #29: deletion ratio >= 0.8

Gold = dict[str, dict[str, list[Mark]]]        # document -> expert -> marks
KindOf = Callable[[str, str, Mark], Mark]      # (document, expert, edit) -> the edit re-kinded


def at_expert_places(gold: Gold, kind_of: KindOf, kind: str | None = DELETION) -> Counts:
    """Each expert's edits, re-kinded by ``kind_of``, against every other expert of the
    document (both ways round), pooled: a machine that places its boxes as an expert does."""
    total = Counts()
    for doc_id, by in gold.items():
        for scored, placed in permutations(sorted(by), 2):
            total += match([kind_of(doc_id, placed, m) for m in by[placed]], by[scored], kind)
    return total


def expert_kind_agreement(gold: Gold) -> tuple[float, float, int]:
    """The other expert as a kind classifier, on the edits it also marked (its edit with
    the largest overlap gives the kind): (true-positive rate for deletions, true-negative
    rate, edits counted)."""
    hits = {DELETION: [0, 0], OTHER: [0, 0]}   # kind -> [same kind, edits]
    for by in gold.values():
        for mine, theirs in permutations(sorted(by), 2):
            for m in by[mine]:
                over = [(_shared(m, t), t.kind) for t in by[theirs]
                        if spans_overlap(m.spans, t.spans)]
                if over and m.kind in hits:
                    hits[m.kind][0] += max(over)[1] == m.kind
                    hits[m.kind][1] += 1
    rate = {k: same / n if n else float("nan") for k, (same, n) in hits.items()}
    return rate[DELETION], rate[OTHER], sum(n for _, n in hits.values())


def _shared(a: Mark, b: Mark) -> int:
    return sum(max(0, min(x[1], y[1]) - max(x[0], y[0])) for x in a.spans for y in b.spans)


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve: P(score of a positive > score of a negative), ties half
    (the Mann-Whitney U statistic over the product of the two counts)."""
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if not n_pos or not n_neg:
        return float("nan")
    values, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    # Rank of each score, ties sharing the mean of their ranks (1-based).
    mean_rank = np.cumsum(counts) - (counts - 1) / 2
    u = mean_rank[inverse][positive].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def by_threshold(gold: Gold, score: dict, kind: str = DELETION) -> tuple[float, float]:
    """The best deletion F1 over thresholds on ``score[(document, expert, edit)]`` (deletion
    at or above it; thresholds: 60 quantiles of the distinct scores, or all of them when
    fewer), and that threshold."""
    values = np.unique(np.fromiter(score.values(), float))
    candidates = np.quantile(values, np.linspace(0, 1, min(len(values), 60)))
    best = (0.0, float("nan"))
    for t in candidates:
        f1 = at_expert_places(gold, lambda d, e, m, t=t: Mark(
            DELETION if score[(d, e, m)] >= t else OTHER, m.spans), kind).f1 or 0.0
        best = max(best, (f1, float(t)))
    return best


def simulated_scores(gold: Gold, target_auc: float, rng: np.random.Generator) -> dict:
    """A kind score of (binormal) AUC ``target_auc`` for every expert edit (1: the kinds
    themselves, 1 for a deletion and 0 for an oversimplification)."""
    if target_auc >= 1:
        return {(d, e, m): float(m.kind == DELETION)
                for d, by in gold.items() for e, marks in by.items() for m in marks}
    shift = np.sqrt(2) * NormalDist().inv_cdf(target_auc)
    return {(d, e, m): (shift if m.kind == DELETION else 0.0) + rng.normal()
            for d, by in gold.items() for e, marks in by.items() for m in marks}


def ranker_scores(gold: Gold, docs, k: int, embedder) -> dict:
    """The deletion share p_del / (p_del + p_over) of the sentences under each expert edit
    (the largest over them), from the loss ranker fitted on the other ``k - 1`` folds."""
    # Imported here: the model and its embedder are only needed for this row.
    from annotator.align.learning import LearningDocument, document_rows, learn

    learning = {i: LearningDocument(i, d.source, d.target, gold[i]) for i, d in docs.items()}
    rows_of = {i: document_rows(d, embedder) for i, d in learning.items()}
    out = {}
    for ids in folds(docs, k):
        held = set(ids)
        model = learn([d for i, d in learning.items() if i not in held], embedder,
                      rows_of=rows_of)
        for doc_id in ids:
            rows = rows_of[doc_id]
            p = model.probabilities(rows)
            share = p[DELETION] / np.maximum(p[DELETION] + p[OTHER], 1e-9)
            for expert, marks in gold[doc_id].items():
                for m in marks:
                    under = [share[j] for j, r in enumerate(rows)
                             if spans_overlap(m.spans, (r.span,))]
                    out[(doc_id, expert, m)] = max(under, default=0.0)
    return out


def draw(path: Path, curve: list[tuple[float, float]], ours: tuple[float, float],
         experts_auc: float) -> None:
    """The deletion ratio at an expert's places against the kind score's AUC, with the
    target, the loss ranker's point and the experts' own kind agreement marked."""
    import matplotlib  # only for --plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    ax.plot(*zip(*curve), marker="o", color="#3465a4",
            label="a kind score of this AUC (simulated)")
    ax.axhline(TARGET, color="#cc0000", linestyle="--", label=f"target: ratio {TARGET}")
    ax.axvline(experts_auc, color="#555555", linestyle=":",
               label=f"the experts with each other (AUC {experts_auc:.2f})")
    ax.scatter([ours[0]], [ours[1]], marker="D", color="#f57900", zorder=3,
               label=f"the loss ranker's kinds (AUC {ours[0]:.2f})")
    ax.set_xlabel("how well the kind score tells deletion from oversimplification (AUC)")
    ax.set_ylabel("deletion ratio at an expert's own places")
    ax.set_title("What the deletion target would take", fontsize=11)
    ax.set_xlim(0.48, 1.02)
    ax.set_ylim(0, 1.1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path, default=None,
                        help="draw the deletion ratio against the kind score's AUC (PNG)")
    args = parser.parse_args()
    started = time.perf_counter()
    docs = load(args.data)
    # The paper's convention, as evaluate_on_infolossqa.py: an edit's first evidence span.
    gold = scored_marks(docs)
    experts = at_expert_places(gold, lambda d, e, m: m)
    print(f"{len(docs)} documents from {args.data}; each expert's edits scored against the "
          f"other expert's, both ways round (deletion kind)")
    print(f"  experts' own kinds: deletion P {experts.precision:.3f} R {experts.recall:.3f} "
          f"F1 {experts.f1:.3f} (ratio 1 by construction)")

    def ratio(f1: float) -> float:
        return f1 / experts.f1

    tpr, tnr, counted = expert_kind_agreement(gold)
    print(f"\nthe other expert as a kind classifier, on the {counted} edits it also marked: "
          f"deletions {tpr:.2f}, oversimplifications {tnr:.2f} of the same kind; "
          f"AUC {(tpr + tnr) / 2:.2f}")

    from annotator.align.embeddings import default_embedder  # the model, only now
    scores = ranker_scores(gold, docs, args.folds, default_embedder())
    keys = list(scores)
    is_deletion = np.array([m.kind == DELETION for _, _, m in keys])
    ours = auc(np.array([scores[key] for key in keys]), is_deletion)
    f1, threshold = by_threshold(gold, scores)
    both = at_expert_places(gold, lambda d, e, m: Mark(DELETION, m.spans, (OTHER,)))
    print(f"\nthe loss ranker's kinds ({args.folds}-fold cross-validated probabilities): "
          f"AUC {ours:.2f} among the experts' edits")
    print(f"  best threshold on these documents ({threshold:.2f}): deletion F1 {f1:.3f}, "
          f"ratio {ratio(f1):.2f}")
    print(f"  every edit carrying both kinds: deletion P {both.precision:.3f} R "
          f"{both.recall:.3f} F1 {both.f1:.3f}, ratio {ratio(both.f1):.2f}")

    rng = np.random.default_rng(args.seed)
    print(f"\nsimulated kind scores (binormal; best threshold on these documents; mean of "
          f"{args.draws} draws):")
    print("  AUC   deletion ratio")
    enough = None
    curve = []
    for target in AUC_GRID:
        reached = float(np.mean([ratio(by_threshold(gold, simulated_scores(gold, target, rng))[0])
                                 for _ in range(args.draws)]))
        curve.append((target, reached))
        print(f"  {target:.2f}  {reached:.2f}")
        if enough is None and reached >= TARGET:
            enough = target
    if args.plot:
        draw(args.plot, curve, (ours, ratio(f1)), (tpr + tnr) / 2)
        print(f"wrote {args.plot}")
    print(f"\nat an expert's own places the deletion ratio reaches {TARGET} with a kind score "
          f"of AUC {enough if enough is not None else '> 1'}; the loss ranker's: "
          f"{ours:.2f}; the experts with each other: {(tpr + tnr) / 2:.2f}; total time "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
