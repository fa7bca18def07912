"""Annotation guidelines: Markdown files in guidelines/, rendered for the annotation page.

A schema's ``guideline`` is either the name of such a file (``infolossqa.md``, the built-in
schemas) or the guideline's text itself: what a Thresh typology's ``instructions``, a Label
Studio config's headers or a YAML schema's ``guideline`` text say (issue 43: it was
dropped). A schema without one falls back to the file named after it.

Raw HTML in a guideline is not passed through (markdown-it's commonmark preset with
``html`` off), so a guideline file cannot inject script into the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from annotator.core.resources import guidelines_dir

# A guideline that is one file name (no spaces, no line breaks, ``.md``) names a file.
FILE_NAME = re.compile(r"[\w.-]+\.md")


class GuidelineNotFound(LookupError):
    pass


@dataclass(frozen=True)
class SchemaGuideline:
    """A schema's guideline: its Markdown (None: it has none), the file it came from (None:
    the schema's own text), and a file the schema names that is not there (or None)."""

    markdown: str | None
    file: str | None = None
    missing_file: str | None = None


def schema_guideline(schema) -> SchemaGuideline:
    """The guideline of ``schema`` (anything with ``guideline`` and ``name``)."""
    named = (schema.guideline or "").strip()
    if named and not FILE_NAME.fullmatch(named):
        return SchemaGuideline(schema.guideline)
    name = named or f"{schema.name}.md"
    try:
        return SchemaGuideline(guideline_markdown(name), file=name)
    except GuidelineNotFound:
        return SchemaGuideline(None, missing_file=named or None)


def guideline_path(name: str):
    path = (guidelines_dir() / name).resolve()
    if path.parent != guidelines_dir().resolve() or path.suffix != ".md" or not path.is_file():
        raise GuidelineNotFound(name)
    return path


def guideline_markdown(name: str) -> str:
    return guideline_path(name).read_text(encoding="utf-8")


@lru_cache(maxsize=32)
def _render(text: str) -> str:
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def markdown_html(text: str) -> str:
    """Guideline Markdown as HTML (raw HTML in it not passed through)."""
    return _render(text)
