"""Refit the loss ranker on a project's own annotated documents (issue #14, "--learn").

Training data, per source sentence of each completed document (:class:`LearningDocument`):

- each annotator's edits: for each kind, label 1 when one of the annotator's edits of that
  kind overlaps the sentence in the original, else 0 (one row per annotator);
- each accept / dismiss action on a suggestion: an extra row for the sentence it sat on,
  label 1 (accepted) or 0 (dismissed) for its kind, weighted ``action_weight``.

The fit starts from, and is pulled towards, the current model (L2 towards its weights),
so a handful of documents nudges it and many documents move it. Thresholds are then
chosen on the same documents to maximise the pooled edit-overlap F1 of
:mod:`annotator.agreement.prehighlight_agreement` (the measure the benchmark reports),
each document scored with a model that did not see it (nested cross-validation,
:func:`out_of_fold_models`): a model's probabilities on its own training documents are
too sure of themselves, so operating points chosen on them are too lenient elsewhere.

Pure: texts, spans and an embedder in; a :class:`LossRanker` out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from annotator.agreement.prehighlight_agreement import (
    between_annotators,
    folds,
    machine_against_annotators,
    spans_overlap,
)
from annotator.core.marks import Mark

from .loss_ranker import KINDS, LossRanker, SentenceRow, fit_ranker, sentence_rows
from .phrase_rendering import source_phrase
from .text import split_sentences

Span = tuple[int, int]
THRESHOLD_GRID = tuple(float(round(t, 3)) for t in np.arange(0.05, 0.80, 0.025))
# Box cap factors tried (loss_ranker.box_cap); None = only the fixed per-document cap.
CAP_GRID = (None, 0.6, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5)
# Second-kind thresholds tried (LossRanker.second_thresholds); NEVER: no box carries it.
NEVER = 1.0
SECOND_GRID = (*THRESHOLD_GRID, NEVER)
# Choose thresholds and cap among operating points at least as precise as the annotators
# with each other (choose_thresholds); see docs/align.md for the measurement.
PRECISION_FLOOR = True
# Inner folds of the documents a model is fitted on: with more than 1 the operating point is
# chosen on out-of-fold probabilities (:func:`out_of_fold_models`); 1 chooses it on the
# model's own. 1 is the default: on honest probabilities the deletion kind's F1 is best with
# a second deletion on almost every box (79% two-kind boxes, 3.6 "deletions" per document
# against 1.1 an expert marks), which helps the pooled figure through the leniency of
# two-kind boxes and not the boxes themselves (docs/align.md, "Round four"). Their split is
# one of its own (the benchmark's outer folds use splits 0-4 of the same hash).
INNER_FOLDS = 1
INNER_SPLIT = 7


@dataclass
class LearningDocument:
    id: str
    source: str
    target: str
    marks: dict[str, list[Mark]] = field(default_factory=dict)   # annotator -> marks
    # (suggestion kind, its source spans, accepted?)
    actions: list[tuple[str, list[Span], bool]] = field(default_factory=list)


def document_rows(doc: LearningDocument, embedder) -> list[SentenceRow]:
    """Feature rows of a document, computed the way the pipeline computes them."""
    src, tgt = split_sentences(doc.source), split_sentences(doc.target)
    if not src or not tgt:
        return []
    sim = embedder.encode([doc.source[s:e] for s, e in src]) @ \
        embedder.encode([doc.target[s:e] for s, e in tgt]).T
    return sentence_rows(doc.source, doc.target, src, sim, target_sentences=tgt)


def _hits(spans, row: SentenceRow) -> bool:
    return spans_overlap(spans, (row.span,))


def training_set(docs: list[LearningDocument], rows_of: dict[str, list[SentenceRow]],
                 action_weight: float = 1.0):
    """Rows, and per kind their labels and sample weights, from annotators' edits and actions.

    An action row only speaks about its own kind (weight 0 for the other one)."""
    rows = []
    labels: dict[str, list[float]] = {k: [] for k in KINDS}
    weights: dict[str, list[float]] = {k: [] for k in KINDS}
    for doc in docs:
        for row in rows_of[doc.id]:
            for marks in doc.marks.values():
                rows.append(row)
                for kind in KINDS:
                    labels[kind].append(float(any(m.kind == kind and _hits(m.spans, row)
                                                  for m in marks)))
                    weights[kind].append(1.0)
            for kind, spans, accepted in doc.actions:
                if kind in KINDS and _hits(spans, row):
                    rows.append(row)
                    for k in KINDS:
                        labels[k].append(float(accepted) if k == kind else 0.0)
                        weights[k].append(action_weight if k == kind else 0.0)
    return (rows, {k: np.array(v) for k, v in labels.items()},
            {k: np.array(v) for k, v in weights.items()})


def machine_marks(ranker: LossRanker, docs: list[LearningDocument],
                  rows_of: dict[str, list[SentenceRow]],
                  models_of: dict[str, LossRanker] | None = None) -> dict[str, list[Mark]]:
    """The source-side boxes the pipeline would draw with ``ranker`` (no model run needed).

    ``models_of``: per document, a model whose weights give that document's probabilities
    (the out-of-fold models); ``ranker``'s thresholds, cap and second kinds apply."""
    out = {}
    for doc in docs:
        model = ranker
        if models_of and doc.id in models_of:
            other = models_of[doc.id]
            model = dataclasses.replace(ranker, mean=other.mean, scale=other.scale,
                                        weights=other.weights)
        out[doc.id] = [Mark(box.kind, (source_phrase(doc.source, box.row.span, box.row.missing),),
                            box.kinds[1:])
                       for box in model.boxes(rows_of[doc.id])]
    return out


def out_of_fold_models(docs: list[LearningDocument], rows_of: dict[str, list[SentenceRow]],
                       prior: LossRanker | None = None, l2: float = 1.0,
                       k: int = INNER_FOLDS) -> dict[str, LossRanker]:
    """For every document, the model fitted (from the same prior, with the same penalty) on
    the documents of the other ``k`` inner folds: the probabilities a model gives documents
    it never saw, on which :func:`choose_thresholds` picks the operating point (nested
    cross-validation; Varma & Simon 2006 on the optimism of choices made on the training
    data itself). Empty with fewer than two documents or ``k`` < 2."""
    k = min(k, len(docs))
    if k < 2:
        return {}
    out = {}
    for part in folds([d.id for d in docs], k, INNER_SPLIT):
        held = set(part)
        rows, labels, weights = training_set([d for d in docs if d.id not in held], rows_of)
        if not rows or not held:
            continue  # nothing to fit on: those documents keep the full model's probabilities
        model = fit_ranker(rows, labels, thresholds={k2: 0.5 for k2 in KINDS}, prior=prior,
                           l2=l2, sample_weight=weights)
        out.update({i: model for i in held})
    return out


def choose_thresholds(ranker: LossRanker, docs: list[LearningDocument],
                      rows_of: dict[str, list[SentenceRow]], rounds: int = 2,
                      two_kinds: bool = True, precision_floor: bool | None = None,
                      models_of: dict[str, LossRanker] | None = None,
                      ) -> tuple[dict[str, float], float | None, dict[str, float] | None]:
    """Per-kind thresholds, the box cap factor and the second-kind thresholds, chosen on
    the documents' annotators by coordinate search (ties go to the value nearest the
    current one).

    The thresholds and the cap maximise the pooled F1 (:data:`THRESHOLD_GRID`,
    :data:`CAP_GRID`). A second-kind threshold cannot be chosen that way: a second kind
    on a box already shown only adds matches, so the pooled F1 would put both kinds on
    every box. Kind k's second threshold maximises kind k's own F1 instead, where each
    box of kind k it adds trades precision for recall (:data:`SECOND_GRID`; 1.0: never).
    ``two_kinds=False`` keeps every box single-kind (None).

    ``precision_floor``: the thresholds and the cap maximise the pooled F1 among the
    operating points whose pooled precision reaches the annotators' precision with each
    other on the same documents (issue #29: "precision at least the experts'"); where
    none does, the best F1 as before (None: :data:`PRECISION_FLOOR`).

    ``models_of``: per document, the model whose probabilities score it
    (:func:`out_of_fold_models`); None: ``ranker``'s own on every document."""
    gold = {d.id: d.marks for d in docs}
    use_floor = PRECISION_FLOOR if precision_floor is None else precision_floor
    floor = between_annotators(gold).precision if use_floor else None
    best = dict(ranker.thresholds)
    cap = ranker.cap_factor
    second = dict(ranker.second_thresholds or {k: NEVER for k in KINDS})

    def counts(thresholds, cap_factor, seconds, kind=None):
        marks = _marks_at(ranker, docs, rows_of, thresholds, cap_factor,
                          seconds if two_kinds else None, models_of)
        return machine_against_annotators(gold, marks, kind)

    def f1(thresholds, cap_factor, seconds, kind=None):
        return counts(thresholds, cap_factor, seconds, kind).f1 or 0.0

    def pooled(thresholds, cap_factor, seconds):
        """(precise enough?, F1) of an operating point: the floor first, then F1."""
        point = counts(thresholds, cap_factor, seconds)
        return (floor is None or (point.precision or 0.0) >= floor, point.f1 or 0.0)

    def distance(a, b):
        return abs((a or 10.0) - (b or 10.0))

    for _ in range(rounds):
        for kind in KINDS:
            best[kind] = max(THRESHOLD_GRID,
                             key=lambda t: (*pooled({**best, kind: t}, cap, second),
                                            -abs(t - best[kind])))
        cap = max(CAP_GRID, key=lambda c: (*pooled(best, c, second), -distance(c, cap)))
        if two_kinds:
            second = _second_search(f1, best, cap, second)
    return best, cap, (second if two_kinds else None)


def _marks_at(ranker: LossRanker, docs: list[LearningDocument],
              rows_of: dict[str, list[SentenceRow]], thresholds: dict[str, float],
              cap_factor: float | None, seconds: dict[str, float] | None,
              models_of: dict[str, LossRanker] | None = None) -> dict[str, list[Mark]]:
    """The boxes of ``ranker``'s weights at another operating point (thresholds, cap,
    second-kind thresholds)."""
    trial = dataclasses.replace(ranker, thresholds=thresholds, cap_factor=cap_factor,
                                second_thresholds=seconds)
    return machine_marks(trial, docs, rows_of, models_of)


def _second_search(f1, thresholds, cap, second: dict[str, float]) -> dict[str, float]:
    """Each kind's second-kind threshold maximising that kind's F1 (ties: nearest)."""
    second = dict(second)
    for kind in KINDS:
        second[kind] = max(SECOND_GRID, key=lambda t: (
            f1(thresholds, cap, {**second, kind: t}, kind), -abs(t - second[kind])))
    return second


def choose_second_thresholds(ranker: LossRanker, docs: list[LearningDocument],
                             rows_of: dict[str, list[SentenceRow]]) -> dict[str, float]:
    """Only the second-kind thresholds, for a model whose weights, thresholds and cap stay
    as they are (the shipped model: its boxes do not change, only their kinds)."""
    gold = {d.id: d.marks for d in docs}

    def f1(thresholds, cap_factor, seconds, kind=None):
        marks = _marks_at(ranker, docs, rows_of, thresholds, cap_factor, seconds)
        return machine_against_annotators(gold, marks, kind).f1 or 0.0

    return _second_search(f1, ranker.thresholds, ranker.cap_factor,
                          ranker.second_thresholds or {k: NEVER for k in KINDS})


def learn(docs: list[LearningDocument], embedder, prior: LossRanker | None = None, *,
          l2: float = 1.0, rows_of: dict[str, list[SentenceRow]] | None = None,
          trained_on: str = "", two_kinds: bool = True,
          inner_folds: int | None = None) -> LossRanker:
    """A ranker refitted on ``docs`` (pulled towards ``prior``), its thresholds, cap and
    second-kind thresholds chosen on them, each document scored by the model of the other
    ``inner_folds`` inner folds (:func:`out_of_fold_models`; 1: by the refitted model; None:
    :data:`INNER_FOLDS`)."""
    rows_of = rows_of or {d.id: document_rows(d, embedder) for d in docs}
    rows, labels, weights = training_set(docs, rows_of)
    if not rows:
        raise ValueError("no annotated sentences to learn from")
    start = dict(prior.thresholds) if prior else {k: 0.3 for k in KINDS}
    ranker = fit_ranker(rows, labels, thresholds=start, prior=prior, l2=l2,
                        sample_weight=weights,
                        max_per_document=prior.max_per_document if prior else 5,
                        trained_on=trained_on)
    ranker.cap_factor = prior.cap_factor if prior else None
    ranker.second_thresholds = prior.second_thresholds if prior else None
    models_of = out_of_fold_models(docs, rows_of, prior, l2,
                                   INNER_FOLDS if inner_folds is None else inner_folds)
    ranker.thresholds, ranker.cap_factor, ranker.second_thresholds = choose_thresholds(
        ranker, docs, rows_of, two_kinds=two_kinds, models_of=models_of)
    return ranker
