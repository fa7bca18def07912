"""The source phrases whose renderings a document's loss boxes will look for, known before
the boxes are made, so that they can be embedded in one call (issue #29).

:func:`~annotator.align.ranked_losses.ranked_losses` searches the simplification for the
rendering of each oversimplification box's source phrase
(:func:`~annotator.align.phrase_rendering.rendering`), and embeds the phrase there, one
phrase per model call. A call of the numpy encoder costs a fixed ~8 ms beyond its word
pieces (BLAS packs the weights of all six layers on every call) and runs its products on a
few dozen rows, where they are three times slower per row than on a few hundred: on 36
abstracts the 170 one-phrase calls took 3.2 s of the 15 s of encoding, for 16% of the word
pieces. :mod:`.pipeline` asks this module for the phrases of the documents it is about to
analyse and embeds them together; the embedder's per-text cache then answers the
rendering search.

The phrases come from :func:`~annotator.align.ranked_losses.planned_boxes`, the choice
``ranked_losses`` makes itself, so the two cannot disagree; computing it twice costs about
2% of the CPU time.
"""

from __future__ import annotations

import numpy as np

from .loss_ranker import LossRanker
from .ranked_losses import planned_boxes

Span = tuple[int, int]


def rendering_phrases(source: str, target: str, src_sents: list[Span], tgt_sents: list[Span],
                      similarity: np.ndarray, ranker: LossRanker,
                      whole_sentence_threshold: float) -> list[str]:
    """The source phrases of the oversimplification boxes ``ranked_losses`` will make for
    this pair (the arguments are those it is called with), in its order."""
    if not src_sents or not tgt_sents:
        return []
    return [source[start:end] for box, (start, end) in planned_boxes(
        source, target, src_sents, tgt_sents, similarity, ranker, whole_sentence_threshold)
        if box.kind == "oversimplification"]
