"""Annotation guidelines: Markdown files in guidelines/, rendered for the annotation page.

Raw HTML in a guideline is not passed through (markdown-it's commonmark preset with
``html`` off), so a guideline file cannot inject script into the page.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt

from annotator.core.resources import guidelines_dir


class GuidelineNotFound(LookupError):
    pass


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


def guideline_html(name: str) -> str:
    return _render(guideline_markdown(name))
