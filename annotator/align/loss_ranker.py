"""Which source sentences lost information, and of which kind: a calibrated sentence ranker.

InfoLossQA experts (Trienes et al. 2024) mark about five losses per abstract, three in
four of them oversimplifications, mostly in Methods and Results. Flagging every missing
number or acronym separately buried those few under ten boxes per document (issue #14:
precision 0.17 against the experts). Instead each non-heading source sentence gets one
feature row (how well the simplification covers it, what specific content is missing,
its section and position) and two logistic models give the probability that an expert
marks a deletion / an oversimplification in it. A sentence above a kind's threshold
becomes *one* suggestion whose box is the phrase holding the missing content (the whole
sentence when nothing specific is missing), carrying every reason found in it; at most
``max_per_document`` suggestions per document, best first, plus every sentence with hard
evidence of a loss, shown even at a low probability (the probability is the suggestion's
score): it lost a specific statistic, dose, design term, duration, instrument or number
(a value with a digit or a named term, not a bare "significantly"), or no simplified
sentence covers it at all (best similarity below the whole-sentence deletion threshold).
The hard evidence keeps the boxes of the planted and demo benchmarks that a model fitted on
experts' habits would drop. The model decides the kind, except in a close rendering, where
the text does (see ``choose``).

The shipped weights (``loss_ranker_default.json``) were fitted on the InfoLossQA
development documents with ``benchmarks/evaluate_on_infolossqa.py --write-model``;
thresholds were chosen on development folds (see docs/align.md for the cross-validated
figures). A project can refit them on its own annotations (:mod:`.learning`).

Pure numpy: no Flask, no database.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from annotator.core.overlap import spans_overlap

from .content_classes import PATTERNS, Mention, find_content, normalise_for_presence
from .information_loss import _present, content_losses

KINDS = ("deletion", "oversimplification")
SECTIONS = ("background", "methods", "results", "conclusion")
CLASSES = tuple(PATTERNS)
FEATURES = (
    "best_similarity", "second_similarity", "position", "log_words", "absent_fraction",
    "log_absent", "log_missing", "log_present",
    *(f"missing_{c}" for c in CLASSES), *(f"section_{s}" for s in SECTIONS),
)
ALWAYS_CLASSES = ("statistic", "dosage", "design", "duration", "instrument", "number")
# AlignSettings.deletion_similarity_threshold's default (see settings.py for how it was chosen).
WHOLE_SENTENCE_THRESHOLD = 0.5
# A simplification that renders its source sentence by sentence: the median source sentence
# has a simplified sentence at least this similar (InfoLossQA's GPT-4 rewrites: median 0.64,
# 5 of 68 documents at 0.80 or more; the planted benchmark's renderings: 0.81-0.91).
CLOSE_RENDERING = 0.80
DEFAULT_MODEL_PATH = Path(__file__).with_name("loss_ranker_default.json")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]+|\d+(?:\.\d+)?")
_STOP = frozenset(
    "the a an of and or in on at to for with by from as is are was were be been this that "
    "these those it its their there which who whom than then also not no into over under "
    "between during after before about".split())
_HEADING = re.compile(r"(?m)^\s*(background|introduction|objectives?|aims?|purpose|methods?|"
                      r"materials|design|patients|results?|findings|conclusions?|interpretation)\b",
                      re.IGNORECASE)
_SECTION_OF_HEADING = {"background": "background", "introduction": "background",
                       "objective": "background", "objectives": "background", "aim": "background",
                       "aims": "background", "purpose": "background", "method": "methods",
                       "methods": "methods", "materials": "methods", "design": "methods",
                       "patients": "methods", "result": "results", "results": "results",
                       "findings": "results", "conclusion": "conclusion",
                       "conclusions": "conclusion", "interpretation": "conclusion"}


def stem(word: str) -> str:
    """Crude suffix stripping, enough to see "randomised" kept as "randomly"."""
    word = word.lower()
    for suffix in ("ations", "ation", "ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def is_heading(text: str) -> bool:
    """A structured-abstract heading on its own ("METHODS.") carries no content."""
    stripped = text.strip().rstrip(".:")
    return len(stripped.split()) <= 3 and stripped.isupper()


@dataclass
class SentenceRow:
    """One source sentence as the ranker sees it."""

    span: tuple[int, int]
    features: np.ndarray
    missing: list[Mention] = field(default_factory=list)   # offsets in the source
    best_similarity: float = 0.0
    absent_words: int = 1    # content words whose stem the simplification never uses
    # No simplified sentence covers it (best similarity below the whole-sentence
    # deletion threshold, AlignSettings.deletion_similarity_threshold).
    uncovered: bool = False
    # Missing items the token diff with the closest simplified sentence shows cut out with
    # nothing in their place (docs/rules.md §3.3's deletion candidates within aligned pairs, with
    # "shorter" read strictly: ``content_losses(..., shorter_is_vaguer=False)``).
    cut_out: list[Mention] = field(default_factory=list)


def sentence_rows(source: str, target: str, sentences: list[tuple[int, int]],
                  similarity: np.ndarray,
                  whole_sentence_threshold: float = WHOLE_SENTENCE_THRESHOLD,
                  target_sentences: list[tuple[int, int]] | None = None,
                  ) -> list[SentenceRow]:
    """Feature rows of the non-heading source sentences (``similarity``: sentences x target
    sentences cosine matrix, as the pipeline computes it; ``target_sentences``: the spans of
    its columns, needed to tell items cut out from items rendered more vaguely)."""
    target_norm = normalise_for_presence(target)
    target_stems = {stem(w) for w in _WORD.findall(target)}
    sections = _sections(source)
    rows = []
    last = max(1, len(sentences) - 1)
    for i, (s, e) in enumerate(sentences):
        text = source[s:e]
        if is_heading(text):
            continue
        mentions = find_content(text)
        missing = [Mention(s + m.start, s + m.end, m.content_class, m.text)
                   for m in mentions if not _present(m, target_norm)]
        words = [w for w in _WORD.findall(text) if w.lower() not in _STOP]
        absent = [w for w in words if stem(w) not in target_stems]
        sims = np.sort(similarity[i])[::-1] if similarity.shape[1] else np.zeros(1)
        section = _section_at(sections, s)
        values = {
            "best_similarity": float(sims[0]),
            "second_similarity": float(sims[1]) if len(sims) > 1 else 0.0,
            "position": i / last,
            "log_words": math.log1p(len(words)),
            "absent_fraction": len(absent) / max(1, len(words)),
            "log_absent": math.log1p(len(absent)),
            "log_missing": math.log1p(len(missing)),
            "log_present": math.log1p(len(mentions) - len(missing)),
            **{f"missing_{c}": float(any(m.content_class == c for m in missing)) for c in CLASSES},
            **{f"section_{n}": float(section == n) for n in SECTIONS},
        }
        cut_out = []
        if target_sentences and missing:
            closest = target_sentences[int(np.argmax(similarity[i]))]
            cut_out = _cut_out(source, target, (s, e), closest, missing)
        rows.append(SentenceRow((s, e), np.array([values[f] for f in FEATURES]), missing,
                                float(sims[0]), len(absent),
                                bool(similarity.shape[1]) and sims[0] < whole_sentence_threshold,
                                cut_out))
    return rows


def _cut_out(source: str, target: str, sentence: tuple[int, int], closest: tuple[int, int],
             missing: list[Mention]) -> list[Mention]:
    """The missing items that :func:`.information_loss.content_losses` calls deletions
    against the closest simplified sentence: nothing in their place, neither generic wording
    nor a shorter phrase standing for the item alone."""
    deleted = [span for c in content_losses(source, target, sentence, closest, missing=missing,
                                            shorter_is_vaguer=False)
               if c.kind == "deletion" for span in c.source_spans]
    return [m for m in missing if spans_overlap([(m.start, m.end)], deleted)]


def _sections(source: str) -> list[tuple[int, str]]:
    return [(m.start(), _SECTION_OF_HEADING[m.group(1).lower()]) for m in _HEADING.finditer(source)]


def _section_at(sections: list[tuple[int, str]], offset: int) -> str | None:
    current = None
    for start, name in sections:
        if start > offset:
            break
        current = name
    return current


# ------------------------------------------------------------------ the model

@dataclass
class LossRanker:
    """Two L2-regularised logistic regressions over standardised features.

    ``weights[kind]`` has one entry per feature plus the intercept (last);
    ``thresholds[kind]`` is the probability from which a sentence is suggested.
    """

    mean: np.ndarray
    scale: np.ndarray
    weights: dict[str, np.ndarray]
    thresholds: dict[str, float]
    max_per_document: int = 5
    trained_on: str = ""
    # Sentences missing content of these classes are always suggested (beyond the cap, at
    # their own, possibly low, probability): a dropped statistic or dose is worth a look
    # even where experts of the training data did not mark one.
    always_classes: tuple[str, ...] = ALWAYS_CLASSES
    precision: dict[str, np.ndarray] | None = None   # of the weights (see fit_logistic)
    # At most ceil(cap_factor x the document's expected number of marked sentences) boxes,
    # hard evidence included (:func:`box_cap`); None: no such cap (models before issue #29).
    cap_factor: float | None = None
    # A box also carries the other kind when that kind's probability reaches this
    # threshold (issue #29: one box "deletion or oversimplification" where both are
    # likely); None: every box carries one kind (models before the two-kind boxes).
    second_thresholds: dict[str, float] | None = None

    def prior_of(self, kind: str, l2: float) -> tuple[np.ndarray, np.ndarray]:
        """This model as a Gaussian prior for a refit (plain L2 if its precision is unknown)."""
        if self.precision is not None:
            return self.weights[kind], self.precision[kind]
        return self.weights[kind], np.diag(np.r_[np.full(len(self.weights[kind]) - 1, l2), 1e-6])

    def probabilities(self, rows: list[SentenceRow]) -> dict[str, np.ndarray]:
        if not rows:
            return {k: np.zeros(0) for k in KINDS}
        z = (np.stack([r.features for r in rows]) - self.mean) / self.scale
        z = np.hstack([z, np.ones((len(z), 1))])
        return {k: 1.0 / (1.0 + np.exp(-(z @ self.weights[k]))) for k in KINDS}

    def choose(self, rows: list[SentenceRow]) -> list[tuple[SentenceRow, str, float]]:
        """(row, kind, probability) of the sentences to suggest, best first (:meth:`boxes`
        without the second kind)."""
        return [(b.row, b.kind, b.probability) for b in self.boxes(rows)]

    def boxes(self, rows: list[SentenceRow]) -> list["Box"]:
        """The boxes to suggest, best first, each with its kind(s) and probabilities.

        One suggestion per sentence, of the kind whose probability clears its threshold by
        the larger factor; the ``max_per_document`` strongest (by the larger of the two
        probabilities), plus every sentence with hard evidence of a loss, at its own
        probability.

        In a close rendering (:func:`close_rendering`) every box takes its kind from the
        text, as docs/rules.md §3.3 defines the kinds: a deletion when no simplified sentence
        covers the sentence or an item was cut out with nothing in its place
        (``SentenceRow.cut_out``), else the model's kind. There the token diff with the
        closest simplified sentence is a sentence-by-sentence comparison; in a free
        rewrite it is not, and the model's kind (learnt from InfoLossQA's experts, who
        call most items missing from a GPT-4 rewrite fuzzy concepts) does better.

        A box also carries the other kind when that kind's probability reaches its
        ``second_thresholds`` value: which boxes are shown never depends on it.
        """
        probs = self.probabilities(rows)
        close = close_rendering(rows)
        picked, floor = [], []
        for i, row in enumerate(rows):
            if not row.absent_words and not row.missing:
                continue  # every word of it is in the simplification: nothing was lost
            ratios = {k: probs[k][i] / self.thresholds[k] for k in KINDS}
            kind = max(ratios, key=ratios.get)
            ratio, probability = ratios[kind], float(probs[kind][i])
            if close and (row.uncovered or row.cut_out):
                kind = "deletion"
            # Best first: the model's picks before the hard-evidence boxes, each group by
            # the probability that an expert marks the sentence in either kind (what the
            # box cap counts, and what a box carrying both kinds is matched on), not by
            # the ratio to a threshold, which favours a kind whose threshold is low.
            strength = max(float(probs[k][i]) for k in KINDS)
            if ratio >= 1.0:
                picked.append(((1, strength), i, kind, probability))
            elif self._hard(row):
                floor.append(((0, strength), i, kind, probability))
        picked.sort(key=lambda p: p[0], reverse=True)
        # Beyond the cap, the model's own picks stay when they lost an item of those classes.
        floor += [p for p in picked[self.max_per_document:]
                  if any(m.content_class in self.always_classes for m in rows[p[1]].missing)]
        chosen = sorted(picked[: self.max_per_document] + floor, key=lambda p: p[0],
                        reverse=True)
        if self.cap_factor is not None:
            # Hard-evidence boxes count too: on InfoLossQA most of them are not marked.
            chosen = chosen[: box_cap(probs, self.cap_factor)]
        out = []
        for _, i, kind, p in chosen:
            other = KINDS[1 - KINDS.index(kind)]
            p_other = float(probs[other][i])
            both = (self.second_thresholds is not None
                    and p_other >= self.second_thresholds[other])
            out.append(Box(rows[i], kind, p, {kind: p, other: p_other} if both else None))
        return out

    def _hard(self, row: SentenceRow) -> bool:
        """Hard evidence of a loss, shown whatever the model says: the sentence lost a
        specific item of ``always_classes`` (a number, a named design, instrument or dose;
        not a bare "significantly"), or no simplified sentence covers it at all (best
        similarity below the whole-sentence deletion threshold)."""
        return row.uncovered or any(m.content_class in self.always_classes and _specific(m)
                                    for m in row.missing)

    def to_dict(self) -> dict:
        return {"features": list(FEATURES), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(),
                "weights": {k: v.round(6).tolist() for k, v in self.weights.items()},
                "thresholds": {k: round(float(v), 4) for k, v in self.thresholds.items()},
                "max_per_document": self.max_per_document, "trained_on": self.trained_on,
                "always_classes": list(self.always_classes),
                "cap_factor": self.cap_factor,
                "second_thresholds": None if self.second_thresholds is None else
                {k: round(float(v), 4) for k, v in self.second_thresholds.items()},
                "precision": None if self.precision is None else
                {k: v.round(4).tolist() for k, v in self.precision.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "LossRanker":
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError("loss model was fitted on other features; refit it "
                             "(annotator prehighlight PROJECT --learn)")
        return cls(np.array(data["mean"], dtype=float), np.array(data["scale"], dtype=float),
                   {k: np.array(data["weights"][k], dtype=float) for k in KINDS},
                   {k: float(data["thresholds"][k]) for k in KINDS},
                   int(data.get("max_per_document", 5)), str(data.get("trained_on", "")),
                   tuple(data.get("always_classes", ALWAYS_CLASSES)),
                   None if not data.get("precision") else
                   {k: np.array(data["precision"][k], dtype=float) for k in KINDS},
                   None if data.get("cap_factor") is None else float(data["cap_factor"]),
                   None if data.get("second_thresholds") is None else
                   {k: float(data["second_thresholds"][k]) for k in KINDS})


@dataclass
class Box:
    """One chosen sentence: its primary kind and probability, and ``kind_scores`` ({kind:
    probability} for both kinds) when it also carries the other kind, else None."""

    row: SentenceRow
    kind: str
    probability: float
    kind_scores: dict[str, float] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return (self.kind, *(k for k in self.kind_scores or () if k != self.kind))


def box_cap(probabilities: dict[str, np.ndarray], factor: float) -> int:
    """How many loss boxes a document gets: ``ceil(factor x E)``, at least one, where
    E = sum over its sentences of max(p_deletion, p_oversimplification) is the expected
    number of sentences an expert marks (the model is calibrated: logistic regression on
    the experts' per-sentence labels). A faithful simplification gets few boxes, a lossy
    one many, instead of every document up to the same fixed cap (issue #29: 6.7 boxes per
    InfoLossQA document against the 4.7 edits one expert marks)."""
    if not len(probabilities[KINDS[0]]):
        return 0
    expected = float(np.maximum(*(probabilities[k] for k in KINDS)).sum())
    return max(1, math.ceil(factor * expected - 1e-9))


def close_rendering(rows: list[SentenceRow]) -> bool:
    """Does the simplification render its source sentence by sentence? (median best
    similarity of the source sentences at least :data:`CLOSE_RENDERING`)"""
    return bool(rows) and float(np.median([r.best_similarity for r in rows])) >= CLOSE_RENDERING


def _specific(mention) -> bool:
    """A number, a named design or instrument, a dose route: not a bare "significantly"."""
    return any(ch.isdigit() for ch in mention.text) or mention.content_class in (
        "design", "instrument", "dosage")


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0,
                 prior: tuple[np.ndarray, np.ndarray] | None = None,
                 sample_weight: np.ndarray | None = None,
                 iterations: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method for regularised logistic regression; intercept last.

    Without ``prior`` the weights (not the intercept) get an L2 penalty ``l2``. With
    ``prior = (w0, P)`` the penalty is the Gaussian ``(w - w0)' P (w - w0) / 2``: P is the
    precision an earlier fit returned (its Hessian, the Laplace approximation), so
    refitting on new documents approximates fitting on the old and new ones together
    without keeping the old data. Returns the weights and their precision.
    """
    xb = np.hstack([x, np.ones((len(x), 1))])
    sw = np.ones(len(x)) if sample_weight is None else sample_weight
    if prior is None:
        centre = np.zeros(xb.shape[1])
        precision = np.diag(np.r_[np.full(xb.shape[1] - 1, l2), 1e-6])
    else:
        centre, precision = prior[0].astype(float), prior[1].astype(float)
    w = centre.copy()
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (sw * (p - y)) + precision @ (w - centre)
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + precision
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(w)), grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
    return w, (xb * (sw * p * (1 - p))[:, None]).T @ xb + precision


def fit_ranker(rows: list[SentenceRow], labels: dict[str, np.ndarray], *,
               thresholds: dict[str, float], prior: LossRanker | None = None,
               l2: float = 1.0, sample_weight: dict[str, np.ndarray] | None = None,
               max_per_document: int = 5, trained_on: str = "") -> LossRanker:
    """Fit both kinds on labelled rows (``labels[kind]``: 0/1, or a share of annotators)."""
    x = np.stack([r.features for r in rows])
    if prior is not None:
        mean, scale = prior.mean, prior.scale
    else:
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale = np.where(scale < 1e-6, 1.0, scale)  # a constant feature stays 0
    z = (x - mean) / scale
    weights, precision = {}, {}
    for k in KINDS:
        weights[k], precision[k] = fit_logistic(
            z, labels[k], l2=l2, sample_weight=None if sample_weight is None else sample_weight[k],
            prior=None if prior is None else prior.prior_of(k, l2))
    return LossRanker(mean, scale, weights, dict(thresholds), max_per_document, trained_on,
                      precision=precision)


@lru_cache(maxsize=1)
def _default_dict() -> str:
    return DEFAULT_MODEL_PATH.read_text(encoding="utf-8")


def default_ranker() -> LossRanker:
    """The shipped model (fitted on the InfoLossQA development documents)."""
    return LossRanker.from_dict(json.loads(_default_dict()))


def ranker_from_settings(model: dict | None) -> LossRanker:
    return default_ranker() if not model else LossRanker.from_dict(model)
