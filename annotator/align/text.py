"""Word tokens and sentences with exact character offsets.

Two public functions, both returning ``(start, end)`` offsets that index the *original*
string (Unicode, ``\\r\\n`` and non-breaking spaces included):

* :func:`word_spans` - the tokens of NLTK's ``NLTKWordTokenizer`` (the tokenizer behind
  ``nltk.word_tokenize``, the one the SimpleOG trailing-content rule uses; it needs no
  data download).
* :func:`split_sentences` - a small rule-based splitter tuned for biomedical abstracts.
  NLTK's Punkt model needs a download that is not available at run time, and pysbd's
  ``char_span`` offsets are unreliable on repeated sentences and slow on long texts, so
  the rules live here and run in linear time.

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


# --------------------------------------------------------------------------- sentences

# Words after which a period does not end a sentence when a lower-case word or a digit
# follows (and, for the "never" set, whatever follows).
_NEVER_END = {
    "al", "fig", "figs", "eq", "eqs", "ref", "refs", "vs", "v", "cf", "ca", "approx",
    "dr", "mr", "mrs", "ms", "prof", "no", "nos", "vol", "pp", "p", "e.g", "i.e", "resp",
    "incl", "st", "dept", "univ", "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "min", "max", "sd", "sem",
    "tab", "suppl", "ed", "eds", "et", "viz",
}
# Multi-period abbreviations ("i.v.", "b.i.d.") that may still close a sentence when a
# typical sentence opener follows.
_SENTENCE_OPENERS = {
    "the", "this", "these", "those", "we", "in", "a", "an", "it", "there", "our", "all",
    "no", "of", "at", "after", "during", "among", "patients", "participants", "results",
    "conclusions", "however", "overall", "for", "to", "both", "each", "one", "two",
    "treatment", "mean", "median", "compared", "finally", "data",
}
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_HEADING_LINE = re.compile(r"^[A-Z][A-Z0-9 &/,\-]{1,60}:?$")


def _next_word(text: str, pos: int) -> tuple[int, str]:
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    end = pos
    while end < n and not text[end].isspace() and end - pos < 40:
        end += 1
    return pos, text[pos:end]


def _is_sentence_end(text: str, mark_start: int, mark_end: int) -> bool:
    nxt_pos, nxt = _next_word(text, mark_end)
    if not nxt:
        return False  # end of text: closed by the caller anyway
    first = nxt.lstrip("\"'“‘([")[:1] or nxt[:1]
    if text[mark_start] in "!?":
        return first.isupper() or first.isdigit() or not first.isalpha()
    starts_upper = first.isupper() or nxt[:1] in "\"'“‘(["
    # Lower-case words such as "mRNA" or "pH" may open a sentence.
    mixed_case = first.islower() and any(c.isupper() for c in nxt[1:6])
    if first.isdigit():
        starts_upper = False
    m = _WORD_BEFORE.search(text, max(0, mark_start - 40), mark_start + 1)
    word = m.group(1).lower() if m and m.end() == mark_start + 1 else ""
    if word in _NEVER_END or word.rstrip(".") in _NEVER_END:
        return False
    if "." in word:  # i.v., b.i.d., e.g. (handled above), U.S.
        return starts_upper and nxt.strip("\"'“‘([,;:").lower() in _SENTENCE_OPENERS
    if first.isdigit():
        # "... in 2019. 42 patients" is rare in abstracts; "p < 0.05. 12 of ..." too.
        # Only split when the previous word is clearly not a label like "Table".
        return word not in {"table", "figure", "step", "group", "arm", "week", "day"}
    return starts_upper or mixed_case


def _line_breaks(text: str) -> list[int]:
    """Positions after which a line break separates sentences.

    A blank line always does; a single line break does when the line before ends with
    terminal punctuation or ':' or is a heading (all capitals), so hard-wrapped prose is
    not cut mid-sentence.
    """
    cuts = []
    for m in re.finditer(r"\r?\n|\r", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        line = text[line_start:m.start()].strip()
        if not line:
            continue
        after = text[m.end():m.end() + 2]
        blank_follows = after[:1] in ("\n", "\r") or after == "\r\n"
        # The heading may share its line with the previous sentence ("... 2019). RESULTS").
        last_part = re.split(r"[.!?]\s+", line)[-1]
        if blank_follows or line[-1] in ".!?:;" or _HEADING_LINE.match(last_part):
            cuts.append(m.start())
    return cuts


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character offsets of the sentences of ``text`` (surrounding whitespace excluded).

    Rules, in order of precedence:

    * ``.``, ``!`` or ``?`` (plus closing quotes/brackets) followed by whitespace ends a
      sentence when the next word starts with a capital (or is mixed-case like "mRNA"),
      except after abbreviations such as "et al.", "Fig.", "vs.", "e.g.", "approx." and,
      for multi-period abbreviations like "i.v.", unless the next word is a typical
      sentence opener ("The", "We", ...). Decimal points are never followed by
      whitespace, so "2.5 mg/kg" and "78.9 ± 7.65 %" never split.
    * Headings: "METHODS: We ..." stays one sentence (a colon never ends a sentence);
      "METHODS. We ..." and a heading alone on its line become a sentence of their own.
    * Line breaks end a sentence after a blank line, after a line ending in terminal
      punctuation or ':' and after an all-capitals heading line; other single line
      breaks (hard-wrapped prose) do not.

    Runs in linear time; a 1 MB text takes well under a second.
    """
    cuts = set(_line_breaks(text))
    for m in _BOUNDARY.finditer(text):
        if _is_sentence_end(text, m.start(), m.end()):
            cuts.add(m.end())
    sentences = []
    start = 0
    for cut in sorted(cuts) + [len(text)]:
        s, e = start, cut
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            sentences.append((s, e))
        start = max(start, cut)
    return sentences
