"""Abstract sections ("BACKGROUND:", "Methods:" ...) of a structured abstract: which section
a character offset falls in. Used to stratify the QA sample and group results."""

from __future__ import annotations

import re

# A heading: a capitalised word or two at the start of a line, followed by a colon.
HEADING = re.compile(r"(?m)^[ \t]*([A-Z][A-Za-z]+(?: [A-Za-z]+)?)[ \t]*:")
CANONICAL = {
    "background": "background", "introduction": "background", "objective": "objective",
    "objectives": "objective", "aim": "objective", "aims": "objective", "purpose": "objective",
    "methods": "methods", "method": "methods", "design": "methods",
    "materials and": "methods", "results": "results", "findings": "results",
    "conclusion": "conclusions", "conclusions": "conclusions",
}
NONE = "none"


def headings(text: str) -> list[tuple[int, str]]:
    """(offset, canonical section name) of every heading, in order."""
    found = []
    for m in HEADING.finditer(text):
        name = m.group(1).lower()
        found.append((m.start(1), CANONICAL.get(name, name)))
    return found


def section_at(text: str, offset: int | None) -> str:
    """The section holding ``offset`` ('none' when the text has no heading before it or
    the item has no evidence span)."""
    if offset is None:
        return NONE
    current = NONE
    for start, name in headings(text):
        if start > offset:
            break
        current = name
    return current
