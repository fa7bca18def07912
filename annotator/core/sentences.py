"""Sentences with exact character offsets: a small rule-based splitter tuned for biomedical
abstracts.

NLTK's Punkt model needs a download that is not available at run time, and pysbd's
``char_span`` offsets are unreliable on repeated sentences and slow on long texts, so the
rules live here and run in linear time. Shared by the import (``ingest``: a document's
sentence offsets are stored with it) and the pre-highlighters (``align.text``: word spans
within sentences), so it sits on the floor both stand on.
"""

from __future__ import annotations

import re

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
