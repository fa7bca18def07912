"""Overgeneration detectors beyond the trailing rule (docs/rules.md §3.2, SimpleOG).

SimpleOG's confirmed overgeneration splits into leaked model instructions (75.7%),
ungrounded information injection (16.2%), repetitive content (4.5%) and other (3.6%).
Three detectors here, each returning :class:`Suggestion` objects over the target text:

* :func:`leaked_instructions` - a pattern lexicon of chat-model boilerplate;
* :func:`repetitions` - repeated sentences and long repeated word n-grams;
* :func:`semantic_outliers` - 1 - max cosine similarity of a target sentence to any
  source sentence, the study's best detector (F1 0.732 with all-mpnet-base-v2 at 0.73).
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from .suggestions import Suggestion
from .text import word_spans

# (pattern, scope): scope "label" marks just the matched prefix ("Simplified text:"),
# because the text after it is the simplification itself; scope "sentence" marks the
# whole sentence the match sits in (the boilerplate is the sentence).
_LEXICON: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:here is|here's|below is)\b[^.:\n]{0,60}\b(?:simplif\w*|simpler|plain|"
                r"rewritten|rephrased|paraphrase\w*|lay|version|summary)\b[^.:\n]{0,40}[:.]",
                re.I), "label"),
    (re.compile(r"(?:^|(?<=[\n.!?]\s)|(?<=^\s))(?:simplified (?:text|version|sentence|abstract)|"
                r"plain[- ]language (?:summary|version)|rephrase(?:d)?|simplification|"
                r"simplify|output|lay summary|revised (?:text|sentence))\s*:", re.I | re.M),
     "label"),
    (re.compile(r"\bI (?:chose|choose|have chosen|used|selected|applied|opted)\b[^.\n]{0,80}"
                r"\b(?:strategy|strategies|approach|simplification|rephras\w*)", re.I), "sentence"),
    (re.compile(r"\b(?:internal )?simplification strateg(?:y|ies)\b", re.I), "sentence"),
    (re.compile(r"\bas an AI\b(?: language model)?", re.I), "sentence"),
    (re.compile(r"(?:^|(?<=\s)|(?<=\())note\s*:", re.I), "sentence"),
    (re.compile(r"\bI (?:have|'ve) (?:simplified|rewritten|rephrased|paraphrased|kept|removed|"
                r"replaced|omitted)\b", re.I), "sentence"),
    (re.compile(r"\b(?:I hope this helps|let me know if|feel free to|is there anything else)\b",
                re.I), "sentence"),
    (re.compile(r"^(?:sure|certainly|of course)[,!.]", re.I | re.M), "sentence"),
    (re.compile(r"\b(?:original|source|input) (?:text|sentence)\s*:", re.I), "label"),
    (re.compile(r"\bthe (?:simplified|rewritten|rephrased) (?:version|text|sentence) "
                r"(?:is|reads|would be)\b", re.I), "sentence"),
]


def _enclosing(spans: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    for s, e in spans:
        if s <= start < e:
            return (s, max(e, end))
    return (start, end)


def leaked_instructions(target: str, target_sentences: list[tuple[int, int]]) -> list[Suggestion]:
    """Leaked model instructions found by the lexicon, one suggestion per marked region."""
    regions: list[tuple[int, int, str]] = []
    for pattern, scope in _LEXICON:
        for m in pattern.finditer(target):
            start, end = m.start(), m.end()
            while start < end and target[start].isspace():
                start += 1
            if scope == "sentence":
                start, end = _enclosing(target_sentences, start, end)
                # Inside a bracketed aside, mark the whole aside.
                open_at = target.rfind("(", start, m.start() + 1)
                if open_at >= 0 and target.find(")", m.end()) >= 0:
                    close_at = target.find(")", m.end())
                    start, end = min(start, open_at), max(end, close_at + 1)
            regions.append((start, end, m.group().strip()))
    regions.sort()
    merged: list[list] = []
    for start, end, phrase in regions:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, phrase])
    return [
        Suggestion(
            kind="leaked_instruction", target_spans=[(s, e)], score=0.95,
            method="lexicon", category="leaked_instruction",
            explanation=f"Looks like leaked model instructions (matched \"{phrase[:40]}\").",
        )
        for s, e, phrase in merged
    ]


def _words(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    return [(text[s:e].lower(), s, e) for s, e in spans if any(c.isalnum() for c in text[s:e])]


def repetitions(source: str, target: str, target_sentences: list[tuple[int, int]], *,
                min_ngram: int = 8, min_sentence_words: int = 4) -> list[Suggestion]:
    """Repeated target sentences and repeated long n-grams not repeated in the source."""
    out: list[Suggestion] = []
    seen: dict[tuple[str, ...], tuple[int, int]] = {}
    covered: list[tuple[int, int]] = []
    for s, e in target_sentences:
        key = tuple(w for w, _, _ in _words(target[s:e], word_spans(target[s:e])))
        if len(key) < min_sentence_words:
            continue
        if key in seen:
            out.append(Suggestion(
                kind="repetition", target_spans=[(s, e)], score=0.9,
                method="repeated-sentence", category="repetitive",
                explanation="This sentence repeats an earlier sentence of the simplification."))
            covered.append((s, e))
        else:
            seen[key] = (s, e)

    words = _words(target, word_spans(target))
    source_counts: dict[tuple[str, ...], int] = defaultdict(int)
    src_words = [w for w, _, _ in _words(source, word_spans(source))]
    for i in range(len(src_words) - min_ngram + 1):
        source_counts[tuple(src_words[i:i + min_ngram])] += 1
    first_at: dict[tuple[str, ...], int] = {}
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    repeated: list[tuple[int, int]] = []
    for i in range(len(words) - min_ngram + 1):
        gram = tuple(w for w, _, _ in words[i:i + min_ngram])
        counts[gram] += 1
        # Seen before without overlap, and more often than the source repeats it (an
        # original that itself repeats a phrase licenses the repetition).
        if gram in first_at and first_at[gram] + min_ngram <= i \
                and counts[gram] > max(1, source_counts.get(gram, 0)):
            repeated.append((words[i][1], words[i + min_ngram - 1][2]))
        first_at.setdefault(gram, i)
    for s, e in _merge(repeated):
        if any(cs <= s and e <= ce for cs, ce in covered):
            continue
        out.append(
            Suggestion(
                kind="repetition",
                target_spans=[(s, e)],
                score=0.8,
                method="repeated-ngram",
                category="repetitive",
                explanation=(f"A run of {min_ngram}+ words here already appeared earlier "
                             "in the simplification."),
            )
        )
    return out


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def outlier_scores(similarity: np.ndarray) -> np.ndarray:
    """1 - max cosine similarity of each target sentence (column) to any source row."""
    if similarity.size == 0:
        return np.ones(similarity.shape[1] if similarity.ndim == 2 else 0)
    return 1.0 - similarity.max(axis=0)


def semantic_outliers(similarity: np.ndarray, target_sentences: list[tuple[int, int]],
                      threshold: float) -> list[Suggestion]:
    """Target sentences whose outlier score reaches ``threshold``."""
    out = []
    for (s, e), score in zip(target_sentences, outlier_scores(similarity)):
        if score >= threshold:
            out.append(Suggestion(
                kind="semantic_outlier", target_spans=[(s, e)],
                score=float(min(1.0, max(0.0, score))), method="embedding-outlier",
                category="ungrounded_injection",
                explanation=(f"No sentence of the original says anything close to this "
                             f"(best similarity {1 - score:.2f}); possibly ungrounded.")))
    return out
