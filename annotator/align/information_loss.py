"""Deletion and oversimplification candidates (docs/rules.md §3.3, InfoLossQA).

InfoLossQA (Trienes et al. 2024) annotates two kinds of information loss in
plain-language summaries of abstracts: *deletions* (content of the original absent from
the simplification; evidence span E in the original) and *oversimplifications* (content
rendered vaguer; E in the original linked to a rationale span R in the simplification).
Three candidate generators:

1. whole source sentences whose best similarity to any target sentence is low;
2. specific content (numbers, statistics, dosages, durations, design terms, instruments,
   acronyms, parentheticals - :mod:`content_classes`) in an aligned source group whose
   tokens are unmatched in the aligned target group *and* absent from the whole target
   (loss is global: content may have moved to another sentence);
3. of those, a mention inside a SequenceMatcher "replace" region whose target side is
   shorter or uses generic wording becomes an oversimplification linked to that target
   side ("the study" for "a prospective double-blinded, randomized trial").
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import numpy as np

from annotator.core.overlap import spans_overlap

from .content_classes import CLASS_WEIGHT, Mention, find_content, normalise_for_presence
from .suggestions import Suggestion
from .text import word_spans

# Words typical of the vague paraphrases InfoLossQA annotators marked as rationales.
_GENERIC = re.compile(
    r"\b(?:study|studies|trial|research|some|several|many|few|certain|levels?|amount|"
    r"dose|doses|medicine|medication|drug|treatment|survey|questionnaire|test|scale|"
    r"period|time|while|long|short|more|less|lower|higher|better|worse|improved?|"
    r"about|around|most|group|people|patients|things?|stuff)\b", re.I)


def whole_sentence_deletions(similarity: np.ndarray, source_sentences: list[tuple[int, int]],
                             threshold: float) -> list[Suggestion]:
    """Source sentences whose best cosine similarity to any target sentence < threshold."""
    out = []
    best = similarity.max(axis=1) if similarity.size else np.zeros(len(source_sentences))
    for (s, e), b in zip(source_sentences, best):
        if b < threshold:
            out.append(
                Suggestion(
                    kind="deletion",
                    source_spans=[(s, e)],
                    score=float(min(1.0, 1.0 - b)),
                    method="sentence-similarity",
                    explanation=("No sentence of the simplification covers this one "
                                 f"(best similarity {b:.2f})."),
                )
            )
    return out


def _present(mention: Mention, target_norm: str) -> bool:
    """Is the mention (or, for a bracket, every piece of content in it) in the target?"""
    if mention.text.startswith("(") and mention.text.endswith(")"):
        inner = find_content(mention.text[1:-1])
        if inner:
            return all(normalise_for_presence(m.text) in target_norm for m in inner)
    if normalise_for_presence(mention.text) in target_norm:
        return True
    if mention.content_class == "design":
        # "randomized trial" kept as "randomized study" is not lost: compare key words.
        words = [w for w in re.findall(r"[a-z]+", mention.text.lower()) if w not in _DESIGN_NOUNS]
        return bool(words) and all(w in target_norm for w in words)
    return False


_WORDLIKE = re.compile(r"[A-Za-z]{3,}")  # a word, not a bracket or a unit
_DESIGN_NOUNS = {"trial", "trials", "study", "controlled"}


def content_losses(source: str, target: str, src_region: tuple[int, int],
                   tgt_region: tuple[int, int] | None, *, max_tokens: int = 1000,
                   missing: list[Mention] | None = None,
                   shorter_is_vaguer: bool = True) -> list[Suggestion]:
    """Deletion/oversimplification candidates for one aligned group of regions.

    ``src_region``/``tgt_region`` are character ranges of the group in the full texts;
    ``tgt_region`` None means the source sentences are unaligned (only deletions).
    ``missing``: the region's content missing from the target (offsets in ``source``), when
    the caller found it already; else it is found here.
    ``shorter_is_vaguer`` (docs/rules.md §3.3 as written): a replace region whose target side is
    shorter renders the item more vaguely. False: only when the source side holds nothing
    but the item; a shorter target side beside other source words ("placebo (p = 0.003)"
    → "the dummy pill") renders those words, and the item was cut out. Generic wording on
    the target side ("a daily dose", "the study") is a vaguer rendering either way.
    """
    s0, s1 = src_region
    src_text = source[s0:s1]
    if missing is None:
        target_norm = normalise_for_presence(target)
        missing = [m for m in find_content(src_text) if not _present(m, target_norm)]
    else:
        missing = [Mention(m.start - s0, m.end - s0, m.content_class, m.text) for m in missing]
    if not missing:
        return []
    src_spans = word_spans(src_text)
    opcodes: list[tuple[str, int, int, int, int]] = []
    tgt_spans: list[tuple[int, int]] = []
    t0 = 0
    if tgt_region is not None:
        t0, t1 = tgt_region
        tgt_text = target[t0:t1]
        tgt_spans = word_spans(tgt_text)
        if len(src_spans) <= max_tokens and len(tgt_spans) <= max_tokens:
            a = [src_text[s:e].lower() for s, e in src_spans]
            b = [tgt_text[s:e].lower() for s, e in tgt_spans]
            opcodes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    out: list[Suggestion] = []
    by_region: dict[tuple, Suggestion] = {}
    for mention in missing:
        toks = [k for k, span in enumerate(src_spans)
                if spans_overlap([span], [(mention.start, mention.end)])]
        region = _region_of(toks, opcodes)
        src_span = (s0 + mention.start, s0 + mention.end)
        weight = CLASS_WEIGHT[mention.content_class]
        label = mention.content_class
        if region is not None and region[0] == "replace" and region[3] < region[4]:
            _, i1, i2, j1, j2 = region
            tgt_span = (t0 + tgt_spans[j1][0], t0 + tgt_spans[j2 - 1][1])
            src_len = src_spans[i2 - 1][1] - src_spans[i1][0]
            tgt_phrase = target[tgt_span[0]:tgt_span[1]]
            shorter = len(tgt_phrase) < src_len and (shorter_is_vaguer or not any(
                k not in toks and _WORDLIKE.match(src_text[src_spans[k][0]:src_spans[k][1]])
                for k in range(i1, i2)))
            if shorter or _GENERIC.search(tgt_phrase):
                if region in by_region:  # one suggestion per replaced region
                    _extend(by_region[region], src_span, weight, mention.text)
                    continue
                by_region[region] = Suggestion(
                    kind="oversimplification", source_spans=[src_span], target_spans=[tgt_span],
                    score=weight, method=f"content-class:{label}", category=label,
                    explanation=(f"Specific {label} \"{_short(mention.text)}\" is rendered more "
                                 f"generally as \"{_short(tgt_phrase)}\"."))
                out.append(by_region[region])
                continue
        key = region or ("mention", mention.start)
        if key in by_region:
            _extend(by_region[key], src_span, weight, mention.text)
            continue
        by_region[key] = Suggestion(
            kind="deletion",
            source_spans=[src_span],
            score=weight,
            method=f"content-class:{label}",
            category=label,
            explanation=(f'The {label} "{_short(mention.text)}" does not appear in the '
                         "simplification."),
        )
        out.append(by_region[key])
    return out


def _extend(suggestion: Suggestion, span: tuple[int, int], weight: float, text: str) -> None:
    suggestion.source_spans.append(span)
    suggestion.score = max(suggestion.score, weight)
    suggestion.explanation = suggestion.explanation.rstrip(".") + f" (also \"{_short(text, 30)}\")."


def _region_of(tokens: list[int], opcodes) -> tuple | None:
    """The non-equal opcode that holds most of the mention's tokens."""
    best, best_count = None, 0
    for op in opcodes:
        if op[0] == "equal":
            continue
        count = sum(1 for k in tokens if op[1] <= k < op[2])
        if count > best_count:
            best, best_count = op, count
    return best


def _short(text: str, limit: int = 50) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
