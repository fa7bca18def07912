"""Deletion and oversimplification suggestions: few boxes, each with all its reasons.

The candidate generators of :mod:`.information_loss` (low-similarity sentences, specific
content missing from the simplification) are kept as *reasons*; :mod:`.loss_ranker`
decides which sentences deserve a box and of which kind, :mod:`.phrase_rendering` where
the box goes on each side. One suggestion per chosen sentence: every candidate that fell
inside it is merged into its explanation instead of becoming a box of its own.
"""

from __future__ import annotations

from annotator.core.overlap import spans_overlap

from .loss_ranker import (
    WHOLE_SENTENCE_THRESHOLD,
    Box,
    LossRanker,
    SentenceRow,
    sentence_rows,
)
from .phrase_rendering import rendering, source_phrase
from .suggestions import Suggestion

Span = tuple[int, int]


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _regions(row: SentenceRow, tgt_sents, similarity_row) -> list[Span]:
    """The target sentence most similar to the source sentence: where its rendering is
    looked for (one sentence keeps the embedding work to ~100 short windows)."""
    if not tgt_sents:
        return []
    best = max(range(len(tgt_sents)), key=lambda j: similarity_row[j])
    return [tgt_sents[best]]


def planned_boxes(source: str, target: str, src_sents: list[Span], tgt_sents: list[Span],
                  similarity, ranker: LossRanker,
                  whole_sentence_threshold: float = WHOLE_SENTENCE_THRESHOLD,
                  ) -> list[tuple[Box, Span]]:
    """The boxes the ranker chooses for this pair, best first, each with its source phrase:
    what :func:`ranked_losses` turns into suggestions, and what :mod:`.rendering_prefetch`
    reads ahead to embed the phrases together."""
    rows = sentence_rows(source, target, src_sents, similarity, whole_sentence_threshold,
                         tgt_sents)
    return [(box, source_phrase(source, box.row.span, box.row.missing))
            for box in ranker.boxes(rows)]


def ranked_losses(source: str, target: str, src_sents: list[Span], tgt_sents: list[Span],
                  similarity, groups, candidates: list[Suggestion], ranker: LossRanker,
                  embedder, wanted: set[str],
                  whole_sentence_threshold: float = WHOLE_SENTENCE_THRESHOLD,
                  contextual_renderings: bool = False) -> list[Suggestion]:
    index_of = {span: i for i, span in enumerate(src_sents)}
    out = []
    for box, phrase in planned_boxes(source, target, src_sents, tgt_sents, similarity, ranker,
                                     whole_sentence_threshold):
        row, kind, probability = box.row, box.kind, box.probability
        if kind not in wanted:
            continue
        reasons = [c for c in candidates if spans_overlap(c.source_spans, [row.span])]
        if not row.missing and any(c.method == "sentence-similarity" for c in reasons):
            label_extra = "; no simplified sentence covers it"
        else:
            label_extra = ""
        categories = [m.content_class for m in row.missing]
        what = ", ".join(f'{m.content_class} "{_short(m.text, 30)}"' for m in row.missing[:4])
        if len(row.missing) > 4:
            what += f" and {len(row.missing) - 4} more"
        label = "Lost" if kind == "deletion" else "Blurred"
        if box.kind_scores:
            label = "Lost or blurred"
            probability_text = ", ".join(f"{k} p={p:.2f}" for k, p in box.kind_scores.items())
        else:
            probability_text = f"p={probability:.2f}"
        detail = (f"{what} not in the simplification" if what else
                  f"the closest simplified sentence has similarity {row.best_similarity:.2f}"
                  + label_extra)
        suggestion = Suggestion(
            kind=kind, source_spans=[phrase], score=round(probability, 4), method="loss-ranker",
            category=categories[0] if categories else "sentence",
            explanation=f"{label} information ({probability_text}): {detail}.",
            kind_scores=None if not box.kind_scores else
            {k: round(p, 4) for k, p in box.kind_scores.items()})
        if kind == "oversimplification":
            regions = _regions(row, tgt_sents, similarity[index_of[row.span]])
            found = rendering(source[phrase[0]:phrase[1]], target, regions, embedder,
                              contextual=contextual_renderings)
            if found is not None:
                (t0, t1), rendered = found
                suggestion.target_spans = [(t0, t1)]
                suggestion.target_score = round(rendered, 4)
                suggestion.explanation = (suggestion.explanation.rstrip(".")
                                          + f'; rendered as "{_short(target[t0:t1])}" '
                                          f"(similarity {rendered:.2f}).")
        out.append(suggestion)
    return out
