"""Deletion and oversimplification pre-highlights against real expert annotations.

Gold: the InfoLossQA expert annotations (Trienes et al. 2024; Thresh exports, two of three
experts per document), read directly from ``tests/data/infolossqa-dev`` in the
repository (``--data DIR`` for another copy, e.g. the full release).

Measure (issue #14, :mod:`annotator.agreement.prehighlight_agreement`): an edit matches
when a same-kind edit of the other side overlaps it in the original; precision, recall
and F1 over edits, pooled over documents. omission = deletion, fuzzy concept =
oversimplification. Experts are compared with each other on the same documents; the
suggestions with each expert; ratio = suggestions F1 / experts F1. Expert edits count
their first evidence span (the paper's convention; ``--all-spans`` for every span).

Nothing is scored on documents it was tuned on: documents are split into ``--folds`` K
folds by a hash of their id; the ranker of fold k is fitted, and its thresholds chosen,
on the other folds, and the pipeline (``annotator.align.suggest``) is run with it on fold k.

    python benchmarks/evaluate_on_infolossqa.py                 # baseline, CV (5 splits), --learn
    python benchmarks/evaluate_on_infolossqa.py --loss-thresholds 0.8/0.175  # other thresholds
    python benchmarks/evaluate_on_infolossqa.py --write-model   # refit the shipped model on all
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import loss_thresholds  # noqa: E402
import numpy as np  # noqa: E402
from infolossqa_data import DEFAULT_DATA, load, scored_marks  # noqa: E402

from annotator.agreement.prehighlight_agreement import (  # noqa: E402
    ratio_interval,
    ratio_resamples,
    summary,
)
from annotator.align import AlignSettings, learning, suggest  # noqa: E402
from annotator.align.embeddings import default_embedder  # noqa: E402
from annotator.align.learning import (  # noqa: E402
    LearningDocument,
    choose_second_thresholds,
    document_rows,
    learn,
    machine_marks,
)
from annotator.align.loss_ranker import DEFAULT_MODEL_PATH, default_ranker  # noqa: E402
from annotator.align.text import split_sentences  # noqa: E402
from annotator.core.document_folds import folds  # noqa: E402
from annotator.core.edit_match import (  # noqa: E402
    LOSS_KINDS,
    Mark,
    any_loss,
    between_annotators,
    machine_against_annotators,
)

LOSS = set(LOSS_KINDS)


def pipeline_marks(docs, ids, settings, embedder) -> dict[str, list[Mark]]:
    """Run the real pipeline on documents ``ids``; keep the loss suggestions as marks."""
    out = {}
    for i in ids:
        found = suggest(docs[i].source, docs[i].target, detectors=LOSS, settings=settings,
                        embedder=embedder)
        out[i] = [Mark(s.kind, tuple(s.source_spans), tuple(k for k in s.kind_scores or ()
                                                            if k != s.kind))
                  for s in found if s.source_spans]
    return out


def boxes_per_document(gold, machine, kind: str | None) -> tuple[float, float]:
    """Boxes of ``kind`` (None: both) per document, and an expert's edits of that kind per
    document (every expert's count of every document, averaged): how many boxes a lead
    sees against how many one expert marks."""
    def counted(marks):
        return sum(1 for m in marks if kind is None or kind in m.kinds)

    boxes = sum(counted(machine.get(d, [])) for d in gold) / max(1, len(gold))
    per_expert = [counted(marks) for by in gold.values() for marks in by.values()]
    return boxes, sum(per_expert) / max(1, len(per_expert))


def _interval(gold, machine, kind) -> str:
    found = ratio_interval(ratio_resamples(gold, [machine], kind)[0])
    return f"{found[0]:.2f}-{found[1]:.2f}" if found else "n/a"


def table(title: str, gold, machine, extra: str = "") -> float | None:
    """Per kind and pooled: experts' and suggestions' P / R / F1, the ratio with its 95%
    document-bootstrap interval, and boxes per document against an expert's edits."""
    print(f"\n{title}{extra}")
    print(f"  {'kind':20s} {'':12s} {'P':>6s} {'R':>6s} {'F1':>6s} {'edits':>6s} {'ratio':>6s} "
          f"{'95% interval':>13s} {'per document':>13s}")
    ratio_all = None
    for kind in (*LOSS_KINDS, None):
        people = between_annotators(gold, kind)
        mach = machine_against_annotators(gold, machine, kind)
        ratio = mach.f1 / people.f1 if mach.f1 is not None and people.f1 else None
        name = kind or "both kinds"
        boxes, edits = boxes_per_document(gold, machine, kind)
        for who, c in (("experts", people), ("suggestions", mach)):
            line = (f"  {name:20s} {who:12s} {c.precision or 0:6.3f} {c.recall or 0:6.3f} "
                    f"{c.f1 or 0:6.3f} {c.a_total:6d} ")
            if who == "suggestions":
                line += (f"{ratio:6.3f} " if ratio is not None else f"{'n/a':>6s} ") + \
                    f"{_interval(gold, machine, kind):>13s} {boxes:13.1f}"
            else:
                line += f"{'':6s} {'':13s} {edits:13.1f}"
            print(line)
        if kind is None:
            ratio_all = ratio
    chars = [e - s for v in machine.values() for m in v for s, e in m.spans]
    median = sorted(chars)[len(chars) // 2] if chars else 0
    boxes = [m for v in machine.values() for m in v]
    two = sum(1 for m in boxes if m.also) / max(1, len(boxes))
    agnostic = between_annotators(any_loss(gold))
    print(f"  (per document: boxes shown / edits one expert marked); median box {median} "
          f"characters; {two:.0%} of the boxes carry both kinds")
    ours = machine_against_annotators(gold, machine).f1 or 0.0
    print(f"  experts, kind-agnostic (an edit matches any loss edit of the other): "
          f"P {agnostic.precision:.3f} R {agnostic.recall:.3f} F1 {agnostic.f1:.3f}; "
          f"the suggestions' pooled F1 is {ours / agnostic.f1:.2f} of it")
    return ratio_all


def cross_validated(learning_docs, rows_of, fold_ids, fixed, embedder, run_pipeline=None,
                    two_kinds=True):
    """Held-out boxes of every fold: the ranker fitted, and its thresholds chosen, on the
    other folds; and the same ranker at the ``fixed`` thresholds. ``run_pipeline(ids,
    ranker)`` scores through ``annotator.align.suggest`` instead of the fast path."""
    held_out: dict[str, list[Mark]] = {}
    at_fixed: dict[str, list[Mark]] = {}
    chosen = []
    for f, ids in enumerate(fold_ids):
        train = [learning_docs[i] for g, other in enumerate(fold_ids) if g != f for i in other]
        ranker = learn(train, embedder, rows_of=rows_of, two_kinds=two_kinds)
        chosen.append({**ranker.thresholds, "cap_factor": ranker.cap_factor,
                       **{f"second {k}": v for k, v in (ranker.second_thresholds or {}).items()}})
        test = [learning_docs[i] for i in ids]
        # The shipped model's operating point: its thresholds (or --loss-thresholds) and
        # its box cap (none: the demo's loss recall needs every hard-evidence box).
        shipped_point = dataclasses.replace(loss_thresholds.at(ranker, fixed),
                                            cap_factor=default_ranker().cap_factor)
        if two_kinds and default_ranker().second_thresholds:
            shipped_point.second_thresholds = dict(default_ranker().second_thresholds)
        at_fixed.update(machine_marks(shipped_point, test, rows_of))
        held_out.update(run_pipeline(ids, ranker) if run_pipeline else
                        machine_marks(ranker, test, rows_of))
    return held_out, at_fixed, chosen


def learn_effect(learning_docs, rows_of, fold_ids, embedder, two_kinds=True):
    """Held-out boxes of a model fitted on two folds, and of the same model refitted with
    --learn on the remaining ones (a project's completed documents), for every fold."""
    k = len(fold_ids)
    shipped: dict[str, list[Mark]] = {}
    learned: dict[str, list[Mark]] = {}
    for f in range(k):
        a = [learning_docs[i] for g in (1, 2)[: max(1, (k - 1) // 2)]
             for i in fold_ids[(f + g) % k]]
        b = [learning_docs[i] for g in range((k - 1) // 2 + 1, k) for i in fold_ids[(f + g) % k]]
        base = learn(a, embedder, rows_of=rows_of, two_kinds=two_kinds)
        refit = learn(b, embedder, prior=base, rows_of=rows_of, two_kinds=two_kinds)
        test = [learning_docs[i] for i in fold_ids[f]]
        shipped.update(machine_marks(base, test, rows_of))
        learned.update(machine_marks(refit, test, rows_of))
    return shipped, learned


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--all-spans", action="store_true",
                        help="count every evidence span of an expert edit, not only the first")
    parser.add_argument("--skip-baseline", action="store_true",
                        help="do not score the one-box-per-missing-item suggestions")
    parser.add_argument("--write-model", action="store_true",
                        help=f"fit on every document and write {DEFAULT_MODEL_PATH.name}")
    parser.add_argument("--pipeline", action="store_true",
                        help="score held-out folds by running annotator.align.suggest on them "
                             "(same source boxes as the default fast path, which skips the "
                             "target-side renderings; slower)")
    parser.add_argument("--embedding-cache", type=Path, default=None,
                        help="pickle file keeping sentence embeddings between runs")
    parser.add_argument("--repeats", type=int, default=5,
                        help="repeat the cross-validation over this many splits into folds "
                             "and print the mean held-out ratio (1: one split)")
    parser.add_argument("--write-second-kinds", action="store_true",
                        help="keep the shipped model's weights, thresholds and cap; choose "
                             "only its second-kind thresholds on every document and write it")
    parser.add_argument("--single-kind", action="store_true",
                        help="every box carries one kind (no second-kind thresholds), as "
                             "before the two-kind boxes")
    parser.add_argument("--no-precision-floor", action="store_true",
                        help="choose thresholds and cap by F1 alone, not among the operating "
                             "points at least as precise as the experts (as before)")
    parser.add_argument("--inner-folds", type=int, default=learning.INNER_FOLDS,
                        help="choose each fit's operating point on out-of-fold probabilities "
                             "of this many inner folds of its documents (1: on the fitted "
                             "model's own probabilities, as before)")
    loss_thresholds.add_option(parser)
    args = parser.parse_args()
    two_kinds = not args.single_kind
    if args.no_precision_floor:
        learning.PRECISION_FLOOR = False
    learning.INNER_FOLDS = args.inner_folds

    docs = load(args.data)
    gold = scored_marks(docs, args.all_spans)
    learning_docs = {i: LearningDocument(i, d.source, d.target, gold[i]) for i, d in docs.items()}
    started = time.perf_counter()
    embedder = default_embedder()
    if args.embedding_cache and args.embedding_cache.exists():
        embedder._cache.update(pickle.loads(args.embedding_cache.read_bytes()))
    rows_of = {i: document_rows(d, embedder) for i, d in learning_docs.items()}
    if args.embedding_cache:
        args.embedding_cache.write_bytes(pickle.dumps(embedder._cache))
    print(f"{len(docs)} documents from {args.data}, {sum(len(v) for v in gold.values())} "
          f"expert annotations; sentence features in {time.perf_counter() - started:.0f} s")

    if args.write_model:
        model = learn(list(learning_docs.values()), embedder, rows_of=rows_of, two_kinds=two_kinds,
                      trained_on=f"{len(docs)} InfoLossQA development documents")
        DEFAULT_MODEL_PATH.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
        print(f"wrote {DEFAULT_MODEL_PATH} (thresholds {model.thresholds})")
        return

    if args.write_second_kinds:
        model = default_ranker()
        model.second_thresholds = choose_second_thresholds(
            model, list(learning_docs.values()), rows_of)
        DEFAULT_MODEL_PATH.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
        print(f"wrote {DEFAULT_MODEL_PATH} (second-kind thresholds {model.second_thresholds})")
        return

    every_sentence = {i: [Mark("oversimplification", (s,)) for s in split_sentences(d.source)]
                      for i, d in docs.items()}
    table("Reference: every sentence boxed as an oversimplification (what the measure "
          "rewards without any skill)", gold, every_sentence)
    if not args.skip_baseline:
        baseline = pipeline_marks(docs, list(docs), AlignSettings(rank_losses=False), embedder)
        table("Before (one box per missing item, no ranker)", gold, baseline)

    k = args.folds
    fold_ids = folds(docs, k)
    # The same held-out boxes at one fixed operating point (default: the shipped model's
    # thresholds) beside the thresholds each fold chooses.
    fixed = args.loss_thresholds or default_ranker().thresholds
    held_out, at_fixed, chosen = cross_validated(
        learning_docs, rows_of, fold_ids, fixed, embedder,
        (lambda ids, ranker: pipeline_marks(docs, ids, AlignSettings(
            loss_model=ranker.to_dict()), embedder)) if args.pipeline else None, two_kinds)
    print("\nthresholds and box cap factor chosen per fold:",
          [{k2: v if v is None else round(v, 3) for k2, v in t.items()} for t in chosen])
    ratio = table(f"Ranked suggestions, {k}-fold cross-validated (held-out documents only)",
                  gold, held_out)
    fixed_text = "/".join(f"{fixed[kind]:g}" for kind in LOSS_KINDS)
    ratio_fixed = table(f"The same at fixed thresholds {fixed_text} (deletion/oversimplification; "
                        f"{'--loss-thresholds' if args.loss_thresholds else 'the shipped model'}"
                        f"), box cap as shipped ({default_ranker().cap_factor})",
                        gold, at_fixed)
    cv, at = ratio_resamples(gold, [held_out, at_fixed])
    low, high = ratio_interval(at - cv)
    print(f"\nfixed thresholds minus the folds' choice: {(ratio_fixed or 0) - (ratio or 0):+.3f} "
          f"(95% interval over documents, paired bootstrap: {low:+.3f} to {high:+.3f})")

    # Repeated cross-validation: one split of 68 documents into folds moves the ratio by
    # a few hundredths; the mean over several splits is the steadier estimate.
    splits = [(ratio or 0, ratio_fixed or 0)]
    for split in range(1, args.repeats):
        again, again_fixed, _ = cross_validated(learning_docs, rows_of, folds(docs, k, split),
                                                fixed, embedder, two_kinds=two_kinds)
        splits.append((summary(gold, again)["all"]["ratio"],
                       summary(gold, again_fixed)["all"]["ratio"]))
    mean = [sum(v) / len(splits) for v in zip(*splits)]
    if len(splits) > 1:
        print(f"\nrepeated {k}-fold cross-validation, {len(splits)} splits (held-out ratio, "
              f"folds' thresholds / fixed {fixed_text}):")
        for split, (a, b) in enumerate(splits):
            print(f"  split {split}: {a:.3f} / {b:.3f}")
        print(f"  mean: {mean[0]:.3f} / {mean[1]:.3f}")

    # --learn: a model shipped from some documents (A) refitted on a project's completed
    # documents (B), both scored on documents neither saw (C), rotating over the folds.
    if k >= 3:
        shipped, learned = learn_effect(learning_docs, rows_of, fold_ids, embedder, two_kinds)
        r0 = table("--learn: model fitted on other folds (A), no project data", gold, shipped)
        r1 = table("--learn: same model refitted on the project's completed documents (B)",
                   gold, learned)
        if r0 and r1:
            before, after = ratio_resamples(gold, [shipped, learned])
            low, high = ratio_interval(after - before)
            print(f"\n--learn raises the held-out ratio from {r0:.3f} to {r1:.3f} "
                  f"({r1 - r0:+.3f}; 95% interval over documents, paired bootstrap: "
                  f"{low:+.3f} to {high:+.3f})")
            before_kinds, after_kinds = summary(gold, shipped), summary(gold, learned)
            for kind in LOSS_KINDS:
                r0k, r1k = before_kinds[kind]["ratio"], after_kinds[kind]["ratio"]
                low_k, high_k = ratio_interval(np.subtract(
                    *ratio_resamples(gold, [learned, shipped], kind))) or (np.nan, np.nan)
                r0k, r1k = r0k or 0.0, r1k or 0.0
                print(f"  {kind}: {r0k:.3f} -> {r1k:.3f} ({r1k - r0k:+.3f}; 95% interval "
                      f"{low_k:+.3f} to {high_k:+.3f})")
            gains = [r1 - r0] + [
                summary(gold, learned_again)["all"]["ratio"]
                - summary(gold, shipped_again)["all"]["ratio"]
                for shipped_again, learned_again in (
                    learn_effect(learning_docs, rows_of, folds(docs, k, split), embedder,
                                 two_kinds)
                    for split in range(1, args.repeats))]
            if len(gains) > 1:
                print(f"  over {len(gains)} splits: " + ", ".join(f"{g:+.3f}" for g in gains)
                      + f"; mean {sum(gains) / len(gains):+.3f}")
    print(f"\nheld-out ratio (suggestions F1 / experts F1): {ratio or 0:.3f}; at "
          f"{fixed_text}: {ratio_fixed or 0:.3f}"
          + (f"; means over {len(splits)} splits {mean[0]:.3f} and {mean[1]:.3f}"
             if len(splits) > 1 else "")
          + f"; total time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
