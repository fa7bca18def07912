"""Top-level pre-highlighting: ``suggest`` for one pair, ``suggest_many`` for a corpus.

Order of work for one (source, target) pair:

1. bound the input (``AlignSettings.max_chars`` / ``max_sentences``);
2. split both sides into sentences, or take the given ``sentence_pairs``;
3. if any requested detector needs it, compute the sentence similarity matrix and align
   sentences (Vecalign-style DP, :mod:`sentence_alignment`);
4. run the requested detectors and attach overgeneration categories to trailing content.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from typing import Callable, Iterable, Iterator

import numpy as np

from annotator.align.embeddings import uses_torch
from annotator.align.text import _tokenizer
from annotator.core.model_choice import current_model, use_model
from annotator.core.overlap import spans_overlap
from annotator.core.vocabulary import PREHIGHLIGHTERS

from . import information_loss, overgeneration
from .embeddings import Embedder, HashingEmbedder, default_embedder, default_model_path
from .headings import without_headings
from .loss_ranker import ranker_from_settings
from .ranked_losses import ranked_losses
from .rendering_prefetch import rendering_phrases
from .sentence_alignment import align_sentences
from .settings import AlignSettings
from .suggestions import Suggestion
from .text import split_sentences, word_spans
from .trailing_content import trailing_from_spans

ALL_DETECTORS = frozenset(PREHIGHLIGHTERS)
STRING_DETECTORS = ALL_DETECTORS - {"semantic_outlier"}
_NEEDS_SIMILARITY = {"semantic_outlier", "deletion", "oversimplification", "trailing"}

Span = tuple[int, int]


def _bounded(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", 0, max_chars)
    return text[: cut if cut > 0 else max_chars]


def _adjacent(emb: np.ndarray) -> np.ndarray | None:
    """cos(sentence k, sentence k+1) for merge scoring."""
    return np.sum(emb[:-1] * emb[1:], axis=1) if len(emb) > 1 else None


def _groups(src_sents, tgt_sents, src_emb, tgt_emb, sim, settings):
    """Aligned (source span, target span) groups plus unaligned sentence indices."""
    alignment = align_sentences(sim, source_self=_adjacent(src_emb), target_self=_adjacent(tgt_emb),
                                skip_cost=settings.skip_cost, merge_penalty=settings.merge_penalty,
                                merge_min_similarity=settings.merge_min_similarity)
    groups = [((src_sents[g[0][0]][0], src_sents[g[0][-1]][1]),
               (tgt_sents[g[1][0]][0], tgt_sents[g[1][-1]][1])) for g in alignment.groups]
    return groups, alignment.unaligned_source, alignment.unaligned_target


def _extend_last_group(groups, tgt_sents, unaligned_tgt):
    """Give the last aligned group the unaligned target sentences that follow it.

    SimpleOG applies the rule to everything a system produced for a source sentence; at
    document level only what comes after the last aligned text of the simplification has
    nothing after it, so only the last group's target is extended. Unaligned sentences in
    the middle are followed by aligned text: mid-text insertions, not trailing content
    (issue #14: "trailing content flags sentences in the middle of a text").
    """
    if not groups:
        return groups
    *rest, (src, (t0, t1)) = groups
    end = max([t1] + [tgt_sents[j][1] for j in unaligned_tgt if tgt_sents[j][0] >= t1])
    return [*rest, (src, (t0, end))]


def _trailing(source, target, groups, tgt_sents, unaligned_tgt, settings) -> list[Suggestion]:
    """SimpleOG's rule per aligned group, plus the unaligned target sentences.

    ``trailing`` (the flagged kind) is only content after the last words a group's target
    shares with its source (the rule), and unaligned sentences after the last aligned text
    of the simplification (see :func:`_unaligned` for a model's aside in the middle).
    Unaligned sentences before the first aligned one or between two aligned ones are
    ``insertion`` (stored, shown on request).
    """
    out = []
    groups = sorted(groups, key=lambda g: g[1][0])
    for (s0, s1), (t0, t1) in _extend_last_group(groups, tgt_sents, unaligned_tgt):
        src_text, tgt_text = source[s0:s1], target[t0:t1]
        a, b = word_spans(src_text), word_spans(tgt_text)
        if len(a) > settings.max_pair_tokens or len(b) > settings.max_pair_tokens:
            continue
        r = trailing_from_spans(src_text, a, tgt_text, b, settings.trailing_min_chars)
        if r.trailing_span is not None:
            span = (t0 + r.trailing_span[0], t0 + r.trailing_span[1])
            if r.flagged:
                out.append(
                    Suggestion(
                        kind="trailing",
                        source_spans=[(s0, s1)],
                        target_spans=[span],
                        score=min(1.0, 0.5 + r.trailing_chars / 200),
                        method="simpleog-trailing",
                        category="other",
                        explanation=(
                            f"{r.trailing_chars} characters follow the last words shared "
                            "with the original sentence (SimpleOG rule, >= "
                            f"{settings.trailing_min_chars})."
                        ),
                    )
                )
            elif settings.emit_trailing_noise:
                out.append(
                    Suggestion(
                        kind="trailing_noise",
                        source_spans=[(s0, s1)],
                        target_spans=[span],
                        score=0.1,
                        method="simpleog-trailing",
                        explanation=(f"Short trailing content ({r.trailing_chars} "
                                     "characters), probably rephrasing."),
                    )
                )
        if settings.emit_insertions:
            for ins in r.insertions:
                if ins[1] - ins[0] >= settings.insertion_min_chars:
                    out.append(Suggestion(
                        kind="insertion", target_spans=[(t0 + ins[0], t0 + ins[1])], score=0.2,
                        method="simpleog-insertion",
                        explanation="Words added in the middle of an aligned sentence."))
    out += _unaligned(target, groups, tgt_sents, unaligned_tgt, settings, out)
    return out


def _unaligned(target, groups, tgt_sents, unaligned_tgt, settings, found) -> list[Suggestion]:
    """Unaligned target sentences have no counterpart in the original.

    After the last aligned text they are trailing content, unless the rule already covered
    them (it can stop early when e.g. a closing bracket of an appended aside matches one in
    the source). Before or between aligned text they are insertions, with one exception: a
    sentence the leaked-instruction lexicon recognises ("Note: I simplified the terms in
    this sentence.") is the model's aside on the sentence before it, i.e. what SimpleOG's
    rule, applied to that sentence's output, reports as trailing content.
    """
    covered = [sug.target_spans[0] for sug in found if sug.kind in ("trailing", "trailing_noise")]
    asides = [sug.target_spans[0] for sug in
              overgeneration.leaked_instructions(target, [tgt_sents[j] for j in unaligned_tgt])]
    first_aligned_start = min((t0 for _, (t0, _) in groups), default=len(target))
    last_aligned_end = max((t1 for _, (_, t1) in groups), default=len(target))
    runs: list[list] = []   # [start, end, last sentence index, where]
    for j in unaligned_tgt:
        s, e = tgt_sents[j]
        if any(c[0] <= s and e <= c[1] for c in covered):
            continue
        where = ("end" if groups and s >= last_aligned_end else
                 "start" if e <= first_aligned_start else
                 "aside" if spans_overlap([(s, e)], asides) else "middle")
        if runs and runs[-1][2] == j - 1 and runs[-1][3] == where:
            runs[-1][1], runs[-1][2] = e, j
        else:
            runs.append([s, e, j, where])
    out = []
    for s, e, _, where in runs:
        chars = e - s
        if where in ("start", "middle"):
            kind = "insertion"
        else:
            kind = "trailing" if chars >= settings.trailing_min_chars else "trailing_noise"
        if kind == "trailing_noise" and not settings.emit_trailing_noise:
            continue
        if kind == "insertion" and not settings.emit_insertions:
            continue
        said = {"end": "after the last aligned sentence match no sentence of the original",
                "start": "before the first aligned sentence match no sentence of the original",
                "middle": "between aligned sentences match no sentence of the original",
                "aside": "after a sentence's simplification match no sentence of the original "
                         "and read like a model's aside"}
        out.append(Suggestion(
            kind=kind, target_spans=[(s, e)],
            score=0.3 if kind == "insertion" else min(1.0, 0.5 + chars / 200),
            method="alignment-unaligned",
            category=("leaked_instruction" if where == "aside" else "other")
            if kind == "trailing" else None,
            explanation=f"{chars} characters {said[where]}."))
    return out


def _categorise(suggestions: list[Suggestion]) -> None:
    """Give trailing content the SimpleOG category of the evidence overlapping it (each
    overgeneration detector sets its own category; the first kind in this order wins)."""
    evidence_kinds = ("leaked_instruction", "repetition", "semantic_outlier")
    for sug in suggestions:
        if sug.kind != "trailing":
            continue
        for kind in evidence_kinds:
            match = next((o for o in suggestions if o.kind == kind and o.category
                          and spans_overlap(o.target_spans[:1], sug.target_spans[:1])), None)
            if match is not None:
                sug.category = match.category
                break


def suggest(source: str, target: str, *, sentence_pairs=None, detectors=None,
            settings: AlignSettings | None = None, embedder=None) -> list[Suggestion]:
    """Pre-highlighting suggestions for one (original, simplification) pair."""
    return analyse_pair(source, target, sentence_pairs=sentence_pairs, detectors=detectors,
                        settings=settings, embedder=embedder)[0]


def analyse_pair(source: str, target: str, *, sentence_pairs=None, detectors=None,
                 settings: AlignSettings | None = None, embedder=None):
    """Suggestions plus the sentence alignment they were computed on.

    The alignment is a list of aligned groups as character spans, ``((s0, s1), (t0, t1))``
    (empty when no requested detector needed it); the annotation page uses it to scroll
    both texts together.
    """
    settings = settings or AlignSettings()
    wanted = set(ALL_DETECTORS if detectors is None else detectors)
    unknown = wanted - ALL_DETECTORS
    if unknown:
        raise ValueError(f"unknown detector(s): {', '.join(sorted(unknown))}")
    source = _bounded(source or "", settings.max_chars)
    target = _bounded(target or "", settings.max_chars)
    if sentence_pairs is not None:
        pairs = [(tuple(p[0]), tuple(p[1])) for p in sentence_pairs
                 if p[0][1] <= len(source) and p[1][1] <= len(target)]
        src_sents = sorted({p[0] for p in pairs})
        paired_tgt = {p[1] for p in pairs}
        # Target text outside every given pair (e.g. appended sentences) still counts.
        tgt_sents = sorted(paired_tgt | {t for t in split_sentences(target)
                                         if not spans_overlap([t], paired_tgt)})
    else:
        pairs = None
        src_sents = split_sentences(source)[: settings.max_sentences]
        tgt_sents = split_sentences(target)[: settings.max_sentences]
    out: list[Suggestion] = []
    groups: list = []
    if "leaked_instruction" in wanted:
        out += overgeneration.leaked_instructions(target, tgt_sents)
    if "repetition" in wanted:
        out += overgeneration.repetitions(source, target, tgt_sents,
                                          min_ngram=settings.repetition_min_ngram,
                                          min_sentence_words=settings.repetition_min_sentence_words)
    if wanted & _NEEDS_SIMILARITY and src_sents and tgt_sents:
        if embedder is None:
            embedder = default_embedder()
        src_texts = [source[s:e] for s, e in src_sents]
        tgt_texts = [target[s:e] for s, e in tgt_sents]
        src_emb, tgt_emb = embedder.encode(src_texts), embedder.encode(tgt_texts)
        sim = src_emb @ tgt_emb.T
        if pairs is not None:
            groups, unaligned_src = pairs, [i for i, s in enumerate(src_sents)
                                            if not any(p[0] == s for p in pairs)]
            unaligned_tgt = [
                j for j, t in enumerate(tgt_sents) if not any(p[1] == t for p in pairs)
            ]
        else:
            groups, unaligned_src, unaligned_tgt = _groups(src_sents, tgt_sents, src_emb, tgt_emb,
                                                           sim, settings)
        if "semantic_outlier" in wanted and not isinstance(embedder, HashingEmbedder):
            out += overgeneration.semantic_outliers(
                sim, tgt_sents, settings.semantic_outlier_threshold
            )
        if "trailing" in wanted:
            out += _trailing(source, target, groups, tgt_sents, unaligned_tgt, settings)
        if wanted & {"deletion", "oversimplification"}:
            out += _losses(source, target, src_sents, tgt_sents, sim, groups, unaligned_src,
                           settings, wanted, embedder)
    if "trailing" in wanted and "repetition" in wanted:
        out += _repetition_at_end(out, groups, settings)
    _categorise(out)
    out = without_headings(out, source, target)  # "BACKGROUND:" is a label, never content
    return sorted(out, key=Suggestion.sort_key), [(tuple(a), tuple(b)) for a, b in groups]


def _repetition_at_end(found: list[Suggestion], groups, settings) -> list[Suggestion]:
    """A repetition with no other aligned text after it was appended after the faithful
    simplification: trailing content of SimpleOG's "repetitive" category. The exact rule
    misses it when the repeated words match the source sentence a second time."""
    covered = [s.target_spans[0] for s in found if s.kind == "trailing"]
    extra = []
    for rep in (s for s in found if s.kind == "repetition"):
        start, end = rep.target_spans[-1]
        later = [g for g in groups if g[1][0] >= end]
        if later or end - start < settings.trailing_min_chars:
            continue
        if any(c[0] <= start and end <= c[1] for c in covered):
            continue
        extra.append(Suggestion(
            kind="trailing", target_spans=[(start, end)], score=min(1.0, 0.5 + (end - start) / 200),
            method="repetition-at-end", category="repetitive",
            explanation=f"{end - start} characters at the end repeat what was already said."))
    return extra


def _losses(source, target, src_sents, tgt_sents, sim, groups, unaligned_src, settings, wanted,
            embedder):
    found = information_loss.whole_sentence_deletions(sim, src_sents,
                                                      settings.deletion_similarity_threshold)
    whole = [f.source_spans[0] for f in found]
    for src_region, tgt_region in groups:
        found += information_loss.content_losses(source, target, src_region, tgt_region,
                                                 max_tokens=settings.max_pair_tokens)
    for i in unaligned_src:
        if src_sents[i] not in whole:
            found += information_loss.content_losses(source, target, src_sents[i], None)
    # A mention inside a sentence already reported as deleted adds nothing.
    found = [f for f in found if f.method == "sentence-similarity"
             or not spans_overlap(f.source_spans[:1], whole)]
    if not settings.rank_losses:
        return [f for f in found if f.kind in wanted]
    # The candidates become reasons; the ranker decides where the few boxes go.
    return ranked_losses(source, target, src_sents, tgt_sents, sim, groups, found,
                         ranker_from_settings(settings.loss_model), embedder, wanted,
                         settings.deletion_similarity_threshold,
                         contextual_renderings=settings.contextual_renderings)


# ------------------------------------------------------------------ many pairs

_worker_state: dict = {}


def _one_thread_per_worker(model_path: str | None) -> None:
    """Each worker process gets one core: its matrix products use one thread, instead of
    every worker starting a thread per core and the workers fighting over the cores.
    torch is only imported for a model the numpy encoder cannot run (importing it costs
    seconds per worker)."""
    if "torch" in sys.modules or (model_path is not None and uses_torch(model_path)):
        # already loaded, or the model needs it: see the docstring
        import torch

        torch.set_num_threads(1)
    try:  # an optional dependency (comes with sentence-transformers)
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with sentence-transformers
        return
    threadpool_limits(1)


# Set in the parent just before a forked pool starts: the loaded model, which the workers
# then share (copy-on-write) instead of each loading it again.
_inherited: dict = {}


def _preload_for_fork(spec) -> None:
    """Do in the parent, once, what every forked worker would otherwise do on its own:
    import NLTK's word tokenizer (0.2 s; see ``text._word_tokenizer_class``) and load
    the model (weights are memory-mapped, so nothing is copied). Texts are not encoded
    here: a tokenizer that has run in parallel before a fork falls back to one thread."""
    _tokenizer()
    if not isinstance(spec, HashingEmbedder):
        embedder = Embedder(spec)
        embedder.model  # loads it
        _inherited["embedder"] = embedder


def _init_worker(detectors, settings, embedder, with_alignment=False, model=None):
    if model is not None:  # a spawned worker starts with none of its parent's settings
        use_model(model)
    _one_thread_per_worker(None if isinstance(embedder, HashingEmbedder)
                           else embedder if isinstance(embedder, str) else default_model_path())
    if "embedder" in _inherited:
        embedder = _inherited["embedder"]
    elif not isinstance(embedder, HashingEmbedder):
        # A model handle does not pickle: each spawned worker loads the model path itself.
        embedder = Embedder(embedder) if isinstance(embedder, str) else None
    _worker_state.update(detectors=detectors, settings=settings, embedder=embedder,
                         with_alignment=with_alignment)


# Pairs whose sentences are embedded together before any of them is analysed.
BATCH_PAIRS = 4


def auto_workers(pair_count: int) -> int:
    """Worker processes for ``pair_count`` pairs when the caller did not say: one per core
    this process may use, at most one per :data:`BATCH_PAIRS` pairs (a pool costs more than
    it saves on a handful). One process would leave numpy's BLAS a thread per core, which
    spins without progress when other work holds a core (docs/align.md: on a loaded 2-core
    machine the 36 abstracts took 33-91 s in one process, 11-19 s with two workers)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, pair_count // BATCH_PAIRS))


def _sentences_of(pair: dict, settings: AlignSettings) -> tuple | None:
    """``(source, target, source sentences, target sentences)`` as :func:`analyse_pair`
    bounds and splits ``pair`` (None with given sentence pairs: nothing to embed ahead)."""
    if pair.get("sentence_pairs") is not None:
        return None
    source, target = (_bounded(pair.get(side) or "", settings.max_chars)
                      for side in ("source", "target"))
    return (source, target, split_sentences(source)[: settings.max_sentences],
            split_sentences(target)[: settings.max_sentences])


def _embed_together(pairs: list[dict]) -> None:
    """Embed the sentences of several pairs in one call: the encoder batches texts of
    similar length, and across documents there are more of them to choose from, so less
    padding is computed (issue #29); the embedder's per-sentence cache (and its kept token
    vectors) then serves each pair's analysis. Then the source phrases whose renderings
    the pairs' oversimplification boxes will search for, in one call too
    (:mod:`.rendering_prefetch`)."""
    settings = _worker_state.get("settings") or AlignSettings()
    detectors = _worker_state.get("detectors")
    wanted = set(ALL_DETECTORS if detectors is None else detectors)
    embedder = _worker_state.get("embedder")
    if not wanted & _NEEDS_SIMILARITY or isinstance(embedder, HashingEmbedder):
        return
    embedder = embedder or default_embedder()
    split = [sides for sides in (_sentences_of(pair, settings) for pair in pairs) if sides]
    texts = list(dict.fromkeys(text[s:e] for source, target, src_sents, tgt_sents in split
                               for text, spans in ((source, src_sents), (target, tgt_sents))
                               for s, e in spans))
    if not texts:
        return
    embedder.encode(texts)
    if not ("oversimplification" in wanted and settings.rank_losses
            and settings.contextual_renderings):
        return
    ranker = ranker_from_settings(settings.loss_model)
    phrases = []
    for source, target, src_sents, tgt_sents in split:
        if not src_sents or not tgt_sents:
            continue
        similarity = (embedder.encode([source[s:e] for s, e in src_sents])
                      @ embedder.encode([target[s:e] for s, e in tgt_sents]).T)
        phrases += rendering_phrases(source, target, src_sents, tgt_sents, similarity, ranker,
                                     settings.deletion_similarity_threshold)
    if phrases:
        embedder.encode(list(dict.fromkeys(phrases)))


def _chunk(pairs: list[dict]) -> list[tuple]:
    _embed_together(pairs)
    return [_one(pair) for pair in pairs]


def _chunks(pairs: Iterable[dict], size: int, workers: int = 1) -> Iterator[list[dict]]:
    """Consecutive pairs in chunks of ``size``; with several workers and a known number of
    pairs the chunks shrink towards the end, to at most a ``2 x workers``-th of the pairs
    left (guided self-scheduling, Polychronopoulos & Kuck 1987). A chunk is one task of the
    pool: with equal chunks the last one runs alone while the other workers wait (issue
    #29: one 4-pair chunk of 36 abstracts, about 1.5 s of one core idle); small last
    chunks let the workers finish together."""
    left = len(pairs) if workers > 1 and hasattr(pairs, "__len__") else None
    chunk: list[dict] = []
    for pair in pairs:
        chunk.append(pair)
        if left is not None:
            limit = max(1, min(size, -(-left // (2 * workers))))
        else:
            limit = size
        if len(chunk) == limit:
            yield chunk
            if left is not None:
                left -= len(chunk)
            chunk = []
    if chunk:
        yield chunk


def _one(pair: dict) -> tuple:
    kwargs = dict(detectors=_worker_state.get("detectors"), settings=_worker_state.get("settings"))
    embedder = _worker_state.get("embedder")
    suggestions, groups = analyse_pair(pair["source"], pair["target"],
                                       sentence_pairs=pair.get("sentence_pairs"),
                                       embedder=embedder, **kwargs)
    if _worker_state.get("with_alignment"):
        return pair["id"], suggestions, groups
    return pair["id"], suggestions


def suggest_many(pairs: Iterable[dict], *, workers: int = 1, detectors=None,
                 settings: AlignSettings | None = None,
                 progress: Callable[[int], None] | None = None,
                 embedder=None, with_alignment: bool = False) -> Iterator[tuple]:
    """Suggestions for many ``{"id", "source", "target"[, "sentence_pairs"]}`` dicts.

    Yields ``(id, suggestions)`` in input order (``(id, suggestions, alignment)`` with
    ``with_alignment``); ``workers > 1`` uses that many processes (each loads its own
    model; the embedding cache is per process). ``progress(n_done)`` is called after each
    pair.
    """
    done = 0
    if workers <= 1:
        _worker_state.update(detectors=detectors, settings=settings, embedder=embedder,
                             with_alignment=with_alignment)
        try:
            for chunk in _chunks(pairs, BATCH_PAIRS):
                for result in _chunk(chunk):
                    done += 1
                    if progress:
                        progress(done)
                    yield result
        finally:
            _worker_state.clear()
        return
    # Forking a process that already runs torch can deadlock; spawn is safe then.
    ctx = multiprocessing.get_context("spawn" if "torch" in sys.modules else "fork")
    spec = embedder.model_path if isinstance(embedder, Embedder) else embedder
    if spec is not None and not isinstance(spec, (str, HashingEmbedder)):
        raise ValueError("with workers > 1, pass an Embedder, a HashingEmbedder or None")
    if ctx.get_start_method() == "fork":
        _preload_for_fork(spec)
    try:
        with ctx.Pool(workers, initializer=_init_worker,
                      initargs=(detectors, settings, spec, with_alignment,
                                current_model())) as pool:
            for results in pool.imap(_chunk, _chunks(pairs, BATCH_PAIRS, workers)):
                for result in results:
                    done += 1
                    if progress:
                        progress(done)
                    yield result
    finally:
        _inherited.clear()
