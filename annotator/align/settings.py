"""Thresholds and work bounds of the pre-highlighters, in one documented dataclass."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class AlignSettings:
    """Every tunable number of :func:`annotator.align.suggest`.

    Defaults were chosen on the planted evaluation set
    (``benchmarks/evaluate_prehighlight.py``; see ``docs/align.md``) for the default
    MiniLM model. Other models need their own thresholds.
    """

    # SimpleOG: trailing content of at least this many characters is an overgeneration
    # candidate; shorter tails are reported as "trailing_noise".
    trailing_min_chars: int = 25
    # Target sentence flagged when 1 - max cosine similarity to any source sentence is
    # at least this (the study used 0.73 with all-mpnet-base-v2).
    semantic_outlier_threshold: float = 0.55
    # Source sentence flagged as deleted when its best cosine similarity to any target
    # sentence is below this. 0.60 was best on the synthetic set, but on the hand-written
    # demo abstracts it flagged reworded sentences (23 of 41 right); 0.50 keeps recall
    # there and is right 14 of 18 times (benchmarks/evaluate_on_demo.py).
    deletion_similarity_threshold: float = 0.5
    # Sentence alignment (Vecalign-style DP): cost of leaving a sentence unaligned,
    # extra cost of a 2-1/1-2 merge, minimum similarity of each merged member.
    skip_cost: float = 0.5
    merge_penalty: float = 0.05
    merge_min_similarity: float = 0.25
    # Repetition: repeated word n-grams of at least this length; repeated sentences of
    # at least this many words.
    repetition_min_ngram: int = 8
    repetition_min_sentence_words: int = 4
    # Pure mid-text insertions (no replaced source text) shorter than this are not shown.
    insertion_min_chars: int = 40
    # Whether to report the short trailing tails and mid-text insertions at all.
    emit_trailing_noise: bool = True
    emit_insertions: bool = True
    # Deletions / oversimplifications: rank source sentences with the calibrated model of
    # align/loss_ranker.py (one box per chosen sentence, its candidates merged as reasons)
    # instead of one box per missing item. ``loss_model`` is a fitted model as a dict
    # (``annotator prehighlight PROJECT --learn`` stores one); None = the shipped model.
    rank_losses: bool = True
    loss_model: dict | None = None
    # Renderings of oversimplifications from one forward pass of the target sentence
    # (window = mean of its word pieces' contextual vectors) instead of one pass per
    # 1-5 word window: ~5x less encoding work, as often on an expert's rationale (issue #29,
    # docs/align.md), but other windows than the default for a third of the boxes.
    contextual_renderings: bool = True
    # Work bounds, so a 1 MB input cannot hang: only the first max_chars characters of
    # each side are analysed (cut at whitespace), at most max_sentences sentences per
    # side, and the trailing rule is skipped for aligned groups with more than
    # max_pair_tokens tokens on a side (SequenceMatcher is quadratic in the worst case).
    max_chars: int = 50_000
    max_sentences: int = 1_000
    max_pair_tokens: int = 1_000

    def to_dict(self) -> dict:
        return asdict(self)
