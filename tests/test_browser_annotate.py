"""The annotation page in a real browser (Debian's Chromium through Playwright)."""

from __future__ import annotations

import json
import shutil

import pytest
from sqlalchemy import select

from annotator.align.text import split_sentences
from annotator.models import Assignment, Document, Suggestion
from tests.conftest import ARTIFACTS, PASSWORD, browser_login

pytestmark = pytest.mark.browser

ROOT = ARTIFACTS.parent

SOURCE = ("BACKGROUND: Opioid use after spinal fusion remains high.\r\n"
          "METHODS: In this double-blind, placebo-controlled trial, 124 adults with 𝛼-thalassemia 😀 "
          "received ketamine 0.5\u00a0mg/kg i.v. before surgery. Pain was measured with the "
          "Numeric Rating Scale (NRS) at 2, 24 and 48 h.\r\n"
          "RESULTS: Morphine use at 48 h was 41.3 mg with ketamine vs. 58.7 mg with placebo "
          "(p < 0.001).")
TARGET = ("Background: After back surgery, people often need strong painkillers.\r\n"
          "Methods: In this study, adults 😀 got the drug ketamine during the operation. "
          "Their pain was checked with a survey.\r\n"
          "Results: People who got ketamine needed less morphine. "
          "Here is the simplified version: I chose 'rephrase' as the strategy.")


def span(text: str, phrase: str, nth: int = 0) -> tuple[int, int]:
    """Code-point offsets (Python indices) of a phrase."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(phrase, start + 1)
    return start, start + len(phrase)


def prepare(database, assignment_id: int, source: str = SOURCE, target: str = TARGET,
            suggestions: list[dict] = ()) -> dict:
    """Give the assignment's document our texts (with sentence offsets) and suggestions."""
    with database.session() as session:
        assignment = session.get(Assignment, assignment_id)
        doc = assignment.document
        doc.source, doc.target = source, target
        doc.source_sentences = [list(s) for s in split_sentences(source)]
        doc.target_sentences = [list(s) for s in split_sentences(target)]
        ids = []
        for s in suggestions:
            row = Suggestion(document_id=doc.id, method=s.get("method", "test"),
                             score=s.get("score", 0.8), explanation=s.get("explanation", "why"),
                             kind=s["kind"], source_spans=s.get("source_spans", []),
                             target_spans=s.get("target_spans", []), category=s.get("category"))
            session.add(row)
            session.flush()
            ids.append(row.id)
        session.commit()
        return {"document_id": doc.id, "suggestions": ids}


def standard_suggestions():
    return [
        {"kind": "deletion", "source_spans": [list(span(SOURCE, "double-blind, placebo-controlled"))],
         "explanation": "Study-design terms with no counterpart in the simplification", "score": 0.91},
        {"kind": "oversimplification", "source_spans": [list(span(SOURCE, "Numeric Rating Scale (NRS)"))],
         "target_spans": [list(span(TARGET, "a survey"))],
         "explanation": "A named scale became a generic phrase", "score": 0.77},
        {"kind": "leaked_instruction",
         "target_spans": [list(span(TARGET, "Here is the simplified version: I chose 'rephrase' as the strategy."))],
         "explanation": "Matches a leaked-instruction pattern", "score": 0.95,
         "category": "leaked_instruction"},
    ]


def open_page(page, live_server, assignment_id):
    page.goto(f"{live_server}/assignments/{assignment_id}")
    page.wait_for_selector("#annotate[data-ready='1']")


def api_state(page, live_server, assignment_id):
    return page.request.get(f"{live_server}/api/assignments/{assignment_id}").json()


def watch_errors(page):
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error"
            and not msg.text.startswith("Failed to load resource") else None)
    return errors


def test_page_renders_texts_and_suggestions(page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    assert page.locator(".text[data-side=source]").inner_text().replace("\r", "") == SOURCE.replace("\r", "")
    assert page.locator(".seg.sugg").count() >= 3
    assert page.locator(".gutter[data-side=source] .num").count() >= 3
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate-initial.png"))
    assert errors == []
