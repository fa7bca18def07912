"""Section headings of structured abstracts ("BACKGROUND:", "Results:") kept out of
suggestion spans (pure).

A heading is a label, not content: a pre-highlight that starts at "METHODS: In this
double-blind trial" asks the annotator to trim the label off by hand, and an accepted
suggestion carried it into the gold edit (issue 35). A heading is what the annotation page
draws as one (``static/js/render.js``, ``headingRanges``: the browser's spelling of the
same pattern): one to four words, the first capitalised, ending in a colon, at the start
of a line; or, where an abstract runs its sections together on one line ("... disease.
METHODS: In this trial"), one to four words in capitals with a colon right after the end
of a sentence.
"""

from __future__ import annotations

import re

from annotator.align.suggestions import Suggestion

Span = tuple[int, int]

_HEADING = re.compile(r"(?m)^[ \t]*([A-Z][A-Za-z]+(?:[ /&-][A-Za-z]+){0,3}):"
                      r"|(?<=[.!?])\s+([A-Z]{2,}(?:[ /&-][A-Z]{2,}){0,3}):")


def heading_ranges(text: str) -> list[Span]:
    """(start, end) of each heading label with its colon and the blanks after it."""
    ranges = []
    for m in _HEADING.finditer(text):
        label = 1 if m.group(1) is not None else 2
        end = m.end()
        while end < len(text) and text[end] in " \t":
            end += 1
        ranges.append((m.start(label), end))
    return ranges


def trim_span(span: Span, headings: list[Span], text: str) -> list[Span]:
    """The parts of ``span`` outside every heading, without blanks at either end; a span
    that is nothing but headings and blanks has no part."""
    start, end = span
    parts, at = [], start
    for h_start, h_end in headings:
        if h_end <= at or h_start >= end:
            continue
        parts.append((at, h_start))
        at = max(at, h_end)
    parts.append((at, end))
    out = []
    for a, b in parts:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


# Kinds whose simplification spans are the model's own appended or repeated text: a
# "Note:" that opens a leaked instruction is part of what is marked, so their target spans
# stay whole. Original-side spans are trimmed for every kind.
_WHOLE_TARGET_KINDS = frozenset({"trailing", "trailing_noise", "insertion", "leaked_instruction",
                                 "repetition", "semantic_outlier"})


def without_headings(suggestions: list[Suggestion], source: str,
                     target: str) -> list[Suggestion]:
    """The suggestions with heading labels cut out of their spans (in the original for
    every kind; in the simplification for the information-loss kinds); one left with no
    span at all (it marked only a heading) is dropped."""
    marks = {"source": heading_ranges(source), "target": heading_ranges(target)}
    if not marks["source"] and not marks["target"]:
        return suggestions
    kept = []
    for sug in suggestions:
        had = bool(sug.source_spans or sug.target_spans)
        sug.source_spans = [p for s in sug.source_spans
                            for p in trim_span(tuple(s), marks["source"], source)]
        if sug.kind not in _WHOLE_TARGET_KINDS:
            sug.target_spans = [p for s in sug.target_spans
                                for p in trim_span(tuple(s), marks["target"], target)]
        if sug.source_spans or sug.target_spans or not had:
            kept.append(sug)
    return kept
