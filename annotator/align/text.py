"""Word tokens and sentences with exact character offsets.

Two public functions, both returning ``(start, end)`` offsets that index the *original*
string (Unicode, ``\\r\\n`` and non-breaking spaces included):

* :func:`word_spans` - the tokens of NLTK's ``NLTKWordTokenizer`` (the tokenizer behind
  ``nltk.word_tokenize``, the one the SimpleOG trailing-content rule uses; it needs no
  data download).
* :func:`split_sentences` - a small rule-based splitter tuned for biomedical abstracts
  (:mod:`annotator.core.sentences`, where the import uses it too).

Speed matters because the trailing-content batch path tokenizes millions of sentences:
NLTK's tokenizer runs ~40 regex passes over the whole string, yet every rule except the
final-period rule only looks at one whitespace-delimited chunk plus the whitespace
character on each side of it. :func:`word_spans` therefore tokenizes each chunk once
(wrapped in its real neighbouring whitespace and a dummy word so no start/end-of-string
rule fires by accident), caches the result per ``(left context, chunk, right context)``
and tokenizes the tail of the string - where the final-period rule can reach across
chunks of closing brackets/quotes - as one piece. The output equals
``NLTKWordTokenizer().span_tokenize`` wherever that one succeeds (a fuzz test checks it);
where NLTK's own quote re-alignment fails (it raises on some quote sequences) a tolerant
aligner takes over instead of crashing.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache

from annotator.core.sentences import split_sentences  # noqa: F401  (this module's API too)

# Optional dependencies that ``import nltk`` loads for features the tokenizer never uses
# (Fisher's exact test in nltk.metrics, the scikit-learn classifier wrapper): 1.2 of the
# 1.4 s the import takes. NLTK guards each of them with ``try: ... except ImportError``.
_NLTK_OPTIONAL = ("scipy", "sklearn")


@lru_cache(maxsize=1)
def _tokenizer():
    """NLTK's word tokenizer, imported on first use: commands that only split sentences
    (``annotator import``, the web app) never tokenize words."""
    return _word_tokenizer_class()()


def _word_tokenizer_class():
    """``nltk.tokenize.NLTKWordTokenizer``, imported without scipy and scikit-learn when
    this is what first imports nltk (issue #29: 0.2 s instead of 1.4 s, paid before
    ``annotator align`` starts its workers). NLTK then leaves out the features built on
    them, which this project does not use; they are hidden only during the import, so a
    later ``import scipy`` works as usual."""
    hidden = [] if "nltk" in sys.modules else \
        [name for name in _NLTK_OPTIONAL if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # makes ``import name`` raise ImportError
    try:
        from nltk.tokenize import NLTKWordTokenizer  # late, with the optional imports hidden

        return NLTKWordTokenizer
    except ImportError:
        if not hidden:
            raise
        # A release of NLTK that needs them after all: forget the half-imported package
        # and import it with everything (below, once they are visible again).
        for name in [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")]:
            del sys.modules[name]
    finally:
        for name in hidden:
            del sys.modules[name]
    from nltk.tokenize import NLTKWordTokenizer  # late: first use only (docstring)

    return NLTKWordTokenizer

# Characters that NLTK's final-period rule lets stand between a period and the end of the
# string ("... end.) " / "end.'"). A trailing run of chunks made only of these belongs to
# the tail segment.
_CLOSERS = set("]})>\"'»”’")
_CHUNK = re.compile(r"\S+")
_QUOTE_FORMS = re.compile(r"``|'{2}|\"")
_QUOTE_TOKENS = frozenset(['"', "``", "''"])

# Words of letters only that NLTK's contraction rules split ("cannot" -> "can", "not"):
# MacIntyreContractions.CONTRACTIONS2, and CONTRACTIONS4 in case a release applies it.
_SPLIT_WORDS = frozenset({"cannot", "gimme", "gonna", "gotta", "lemme", "wanna", "whaddya",
                          "whatcha"})

# Bound memory: the cache is cleared when it grows past this many chunk entries.
_CACHE_MAX = 300_000
_chunk_cache: dict[tuple[str, str, str], tuple[tuple[int, int], ...] | None] = {}


def _align_local(tokens: list[str], text: str) -> tuple[tuple[int, int], ...] | None:
    """Align tokens to ``text`` like NLTK's span_tokenize; None when that would fail."""
    if ('"' in text) or ("''" in text):
        matched = [m.group() for m in _QUOTE_FORMS.finditer(text)]
        n_quote_tokens = sum(1 for t in tokens if t in _QUOTE_TOKENS)
        if n_quote_tokens != len(matched):
            return None  # NLTK pairs quotes globally; let the whole-text path decide.
        it = iter(matched)
        tokens = [next(it) if t in _QUOTE_TOKENS else t for t in tokens]
    spans = []
    point = 0
    for token in tokens:
        start = text.find(token, point)
        if start < 0:
            return None
        point = start + len(token)
        spans.append((start, point))
    return tuple(spans)


def _tokenize_wrapped(left: str, chunk: str, right: str) -> tuple[tuple[int, int], ...] | None:
    """Tokenize ``chunk`` as NLTK would inside the full text, spans relative to chunk.

    ``left`` is "" when the chunk starts the string, else the whitespace character before
    it; ``right`` is the whitespace after it, or the full trailing whitespace (possibly
    "") when the chunk is the tail of the string. Dummy words "a" stand in for the
    neighbouring text so that ``^``/``$`` rules see what they would see in the full text.
    """
    prefix = "a" + left if left else ""
    suffix = right + "a"
    wrapped = prefix + chunk + suffix
    tokens = _tokenizer().tokenize(wrapped)
    if prefix:
        if not tokens or tokens[0] != "a":
            return None
        tokens = tokens[1:]
    if suffix:
        if not tokens or tokens[-1] != "a":
            return None
        tokens = tokens[:-1]
    return _align_local(tokens, chunk)


def _segment_spans(text: str, start: int, end: int, tail: bool):
    left = text[start - 1] if start > 0 else ""
    if tail:
        chunk = text[start:]
        key = (left, chunk, "\x00")  # "\x00": the chunk runs to the end of the string
    else:
        right_ctx = text[end]
        chunk = text[start:end]
        key = (left, chunk, right_ctx)
    cached = _chunk_cache.get(key, False)
    if cached is False:
        if not tail and chunk.isalnum() and chunk.lower() not in _SPLIT_WORDS:
            # A word of letters and digits only: every NLTK rule needs punctuation, a
            # quote or one of _SPLIT_WORDS, so it is one token. Six in ten of the chunks
            # of abstracts; NLTK's ~40 regex passes cost 0.2 ms each (issue #29).
            cached = ((0, len(chunk)),)
        elif tail:
            cached = _tokenize_tail(left, chunk)
        else:
            cached = _tokenize_wrapped(left, chunk, right_ctx)
        if len(_chunk_cache) >= _CACHE_MAX:
            _chunk_cache.clear()
        _chunk_cache[key] = cached
    return cached


def _tokenize_tail(left: str, tail: str) -> tuple[tuple[int, int], ...] | None:
    prefix = "a" + left if left else ""
    tokens = _tokenizer().tokenize(prefix + tail)
    if prefix:
        if not tokens or tokens[0] != "a":
            return None
        tokens = tokens[1:]
    return _align_local(tokens, tail)


def _tolerant_align(tokens: list[str], text: str) -> list[tuple[int, int]]:
    """Sequential alignment that never raises: quote tokens match any quote form."""
    spans = []
    point = 0
    quote_re = re.compile(r"``|''|\"|“|”|„|«|»")
    for token in tokens:
        if token in _QUOTE_TOKENS:
            m = quote_re.search(text, point)
            if m:
                spans.append((m.start(), m.end()))
                point = m.end()
                continue
        start = text.find(token, point)
        if start < 0:
            spans.append((point, point))  # token not in text (should not happen)
            continue
        point = start + len(token)
        spans.append((start, point))
    return spans


def _whole_text_spans(text: str) -> list[tuple[int, int]]:
    try:
        spans = list(_tokenizer().span_tokenize(text))
    except (ValueError, StopIteration, RuntimeError, IndexError):
        return _tolerant_align(_tokenizer().tokenize(text), text)
    if any(b[0] < a[1] for a, b in zip(spans, spans[1:])):
        return _tolerant_align(_tokenizer().tokenize(text), text)
    return spans


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens ``nltk.word_tokenize`` would produce for ``text``.

    Like ``nltk.word_tokenize``, the text is first split into sentences (with
    :func:`split_sentences` standing in for Punkt, which needs a download) and each
    sentence is tokenized with ``NLTKWordTokenizer``; this matters because that tokenizer
    only splits off the period at the very end of its input ("weeks." mid-text would
    otherwise stay one token).
    """
    if len(text) < 400 and not any(c in text for c in ".!?\n\r"):
        return sentence_word_spans(text)
    spans: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        spans.extend((start + s, start + e) for s, e in sentence_word_spans(text[start:end]))
    return spans


def sentence_word_spans(text: str) -> list[tuple[int, int]]:
    """``NLTKWordTokenizer().span_tokenize(text)`` on the whole string, made fast and robust."""
    chunks = [(m.start(), m.end()) for m in _CHUNK.finditer(text)]
    if not chunks:
        return []
    # The tail starts at the last chunk holding something other than closing characters:
    # the final-period rule may pair a period there with the closers that follow it.
    tail_index = len(chunks) - 1
    while tail_index > 0 and all(c in _CLOSERS for c in text[slice(*chunks[tail_index])]):
        tail_index -= 1
    spans: list[tuple[int, int]] = []
    for i in range(tail_index):
        start, end = chunks[i]
        local = _segment_spans(text, start, end, tail=False)
        if local is None:
            return _whole_text_spans(text)
        spans.extend((start + s, start + e) for s, e in local)
    start = chunks[tail_index][0]
    local = _segment_spans(text, start, len(text), tail=True)
    if local is None:
        return _whole_text_spans(text)
    spans.extend((start + s, start + e) for s, e in local)
    return spans


def word_tokens(text: str) -> list[str]:
    """Token strings of :func:`word_spans` as they appear in ``text``."""
    return [text[s:e] for s, e in word_spans(text)]
