"""A loss box carrying both kinds on the annotation page (issue #29): the card and the
tooltip say "Oversimplification or deletion" with each kind's probability; accepting it
creates the edit of the primary kind, linked to the suggestion."""

from __future__ import annotations

import pytest

from tests.browser_helpers import (
    SOURCE,
    TARGET,
    api_state,
    open_page,
    prepare,
    span,
    wait_for,
    wait_saved,
    watch_errors,
)
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


def _suggestions() -> list[dict]:
    """A single-kind deletion, then a box carrying both kinds (oversimplification first)."""
    single = {"kind": "deletion", "score": 0.91,
              "source_spans": [list(span(SOURCE, "double-blind, placebo-controlled"))],
              "explanation": "Study-design terms with no counterpart in the simplification"}
    both = {"kind": "oversimplification", "score": 0.42,
            "kind_scores": {"oversimplification": 0.42, "deletion": 0.31},
            "source_spans": [list(span(SOURCE, "Numeric Rating Scale (NRS)"))],
            "target_spans": [list(span(TARGET, "a survey"))],
            "explanation": "Lost or blurred information"}
    return [single, both]


def test_a_two_kind_box_names_both_kinds_and_accepts_as_its_primary_kind(
        page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)

    page.keyboard.press("j")
    card = page.locator("#suggestion-card")
    assert " or " not in card.inner_text().lower()   # the single-kind box keeps its label
    assert "score 0.91" in card.inner_text()
    page.keyboard.press("j")
    text = card.inner_text()
    assert "oversimplification or deletion" in text.lower()   # the badge is in capitals
    assert "oversimplification 0.42 · deletion 0.31" in text
    assert page.locator("[aria-label*='Oversimplification or deletion suggestion']").count() >= 1

    page.keyboard.press("a")
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    page.keyboard.type("What was used to measure pain?")
    wait_saved(page)
    data = api_state(page, live_server, aid)
    [edit] = data["edits"]
    assert edit["edit_type"] == "oversimplification"
    assert edit["suggestion_id"] == ids[1]
    stored = next(s for s in data["suggestions"] if s["id"] == ids[1])
    assert stored["kind_scores"] == {"oversimplification": 0.42, "deletion": 0.31}
    assert next(s for s in data["suggestions"] if s["id"] == ids[0])["kind_scores"] is None
    assert errors == []


def test_a_two_kind_box_shows_while_either_of_its_kinds_is_switched_on(
        page, live_server, study, database):
    """A lead who looks at deletions only still sees the boxes that may be deletions."""
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=_suggestions())
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    toggle = "#kind-toggles label.sg-{} input"
    count = "#kind-toggles label.sg-{} .count"
    assert page.locator(count.format("deletion")).inner_text() == "2"
    assert page.locator(count.format("oversimplification")).inner_text() == "1"
    boxed = "[aria-label*='Oversimplification or deletion suggestion']"
    page.locator(toggle.format("oversimplification")).uncheck()
    assert page.locator(boxed).count() >= 1   # deletion is still on
    page.locator(toggle.format("deletion")).uncheck()
    assert page.locator(boxed).count() == 0
    assert page.locator("[aria-label*='Deletion suggestion']").count() == 0
    page.locator(toggle.format("oversimplification")).check()
    assert page.locator(boxed).count() >= 1
    assert errors == []
