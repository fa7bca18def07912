"""Phrase-level units of a loss suggestion: the source phrase (E) and its rendering (R).

InfoLossQA rationales point at the words of the simplification that stand for the blurred
concept ("low vitamin D levels" for "serum 25(OH)D level <30 ng/ml"). Token diffs map
such a phrase to whatever words happen to sit between shared tokens, which pointed
suggestions at "during the operation" for "0.5 mg/kg" (issue #14). Here:

- the *source phrase* is one unit: from the first to the last piece of specific content
  missing from the simplification in that sentence (numbers, units, measures, named
  instruments and acronyms together), widened to whole tokens; the whole sentence when
  nothing specific is missing;
- its *rendering* is the window of 1-5 target words, inside the target sentence most
  similar to it, that is most similar to the phrase (sentence-embedding cosine, plus shared
  word stems), starting and ending on a content word.
"""

from __future__ import annotations

import re

import numpy as np

from .content_classes import Mention
from .loss_ranker import _STOP, stem

_WORD = re.compile(r"[\w][\w'./%<>=-]*")
MAX_WINDOW = 5
MAX_REGION_WORDS = 70
_VAGUE = frozenset("low high lower higher some several many few fewer certain most more less "
                   "reduced increased better worse varying different various small large".split())


def source_phrase(source: str, sentence: tuple[int, int],
                  missing: list[Mention]) -> tuple[int, int]:
    """The span of the sentence that holds its missing specific content, as one unit."""
    s, e = sentence
    if not missing:
        return _trim(source, s, e)
    start = min(m.start for m in missing)
    end = max(m.end for m in missing)
    # Whole tokens: "level <30 ng/ml" should not start or end inside a word.
    while start > s and not source[start - 1].isspace():
        start -= 1
    while end < e and not source[end].isspace() and source[end] not in ",;":
        end += 1
    return _trim(source, start, end)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",;:"):
        end -= 1
    return start, end


def _content(word: str) -> bool:
    return word.lower() not in _STOP and any(ch.isalnum() for ch in word)


def _attached(word: str) -> bool:
    """A one- or two-character name part ("D" of "vitamin D", "B" of "Group B") belongs
    with the word before it: a rendering neither starts on it nor stops just before it."""
    return len(word) <= 2 and word.lower() not in _STOP and word[:1].isupper()


def windows(target: str, region: tuple[int, int]) -> list[tuple[int, int]]:
    """Candidate renderings: runs of 1-MAX_WINDOW words inside ``region`` that start and end
    on a content word and do not cut a name such as "vitamin D" in two."""
    words = [(region[0] + m.start(), region[0] + m.end(), m.group())
             for m in _WORD.finditer(target[region[0]:region[1]])]
    words = [(s, e - len(w) + len(w.rstrip(".,;:")), w.rstrip(".,;:")) for s, e, w in words]
    out = []
    for i, (s, _, w) in enumerate(words):
        if not _content(w) or (i > 0 and _attached(w)):
            continue
        for j in range(i, min(len(words), i + MAX_WINDOW)):
            if _content(words[j][2]) and not (j + 1 < len(words) and _attached(words[j + 1][2])):
                out.append((s, words[j][1]))
    return out


def _contextual_vectors(target: str, candidates: list[tuple[int, int]],
                        regions: list[tuple[int, int]], embedder) -> np.ndarray | None:
    """One L2-normalised vector per candidate window: the mean of the last-layer vectors of
    the word pieces inside it, from one forward pass of the region holding it (the target
    sentence). None when the embedder cannot give token vectors."""
    states = {}
    for region in regions:
        found = getattr(embedder, "token_states", lambda _: None)(target[region[0]:region[1]])
        if found is None:
            return None
        states[region] = found
    rows = []
    for s, e in candidates:
        region = next(r for r in regions if r[0] <= s and e <= r[1])
        vectors, offsets = states[region]
        inside = [k for k, (a, b) in enumerate(offsets)
                  if b > a and a >= s - region[0] and b <= e - region[0]]
        if not inside:   # the window lies beyond the encoder's 256 word pieces
            return None
        mean = vectors[inside].mean(axis=0)
        rows.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
    return np.array(rows, dtype=np.float32)


def rendering(source_text: str, target: str, regions: list[tuple[int, int]],
              embedder, contextual: bool = False) -> tuple[tuple[int, int], float] | None:
    """The target window most like ``source_text`` within ``regions``, and its cosine
    similarity to it (the rendering's own score); None if there is no window, or the best
    one is not similar at all (cosine <= 0).

    Chosen by cosine(phrase, window) + 0.05 per content word (at most 3) whose stem occurs
    in the phrase + 0.06 when the window opens on a vague quantifier ("low", "some",
    "several": the word that makes it an oversimplification) - 0.01 per window word.
    """
    candidates: list[tuple[int, int]] = []
    searched = []
    words = 0
    for region in regions:
        if words > MAX_REGION_WORDS:
            break
        words += len(target[region[0]:region[1]].split())
        candidates += windows(target, region)
        searched.append(region)
    if not candidates:
        return None
    window_vectors = _contextual_vectors(target, candidates, searched, embedder) \
        if contextual else None
    if window_vectors is None:
        vectors = embedder.encode([source_text] + [target[s:e] for s, e in candidates])
        phrase, window_vectors = vectors[0], vectors[1:]
    else:
        phrase = embedder.encode([source_text])[0]
    cosine = window_vectors @ phrase
    phrase_stems = {stem(w) for w in _WORD.findall(source_text)}
    scores = []
    for (s, e), cos in zip(candidates, cosine):
        content = [w for w in _WORD.findall(target[s:e]) if _content(w)]
        shared = min(3, sum(stem(w) in phrase_stems for w in content))
        vague = 0.06 if content and content[0].lower() in _VAGUE else 0.0
        scores.append(float(cos) + 0.05 * shared + vague - 0.01 * len(target[s:e].split()))
    best = int(np.argmax(scores))
    if cosine[best] <= 0.0:
        # Nothing in the sentence is like the phrase (seen with the contextual window
        # vectors, issue #29): no rendering rather than one scored 0.
        return None
    return candidates[best], float(min(1.0, cosine[best]))
