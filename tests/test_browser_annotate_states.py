"""The annotation page shows what is true (issue 35) in Debian's Chromium: saved edits do not
look like pending suggestions, a selection joins an open edit only when asked to, and the
form, the missing list and the unreviewed warning follow what the annotator did."""

from __future__ import annotations

import pytest

from tests.browser_helpers import (
    SOURCE,
    add_edit,
    drag_select,
    open_page,
    prepare,
    span,
    standard_suggestions,
)
from tests.conftest import browser_login

pytestmark = pytest.mark.browser

LOOK = """e => { const s = getComputedStyle(e);
    return {outline: s.outlineStyle, line: s.textDecorationLine, fill: s.backgroundColor}; }"""


def open_with_a_new_deletion(page, live_server, study, database):
    """Ana's first document, with a deletion of "124 adults" made from a selection, open."""
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    drag_select(page, "source", *span(SOURCE, "124 adults"))
    page.locator("#popover [data-type=deletion]").click()


def test_saved_edit_is_not_drawn_like_a_pending_suggestion(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    add_edit(
        database, aid, "oversimplification", {"question": "Q?"},
        [("source", *span(SOURCE, "Pain was measured"))],
    )
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    pending = page.locator(".seg.sugg.sg-oversimplification", has_text="Numeric").first
    saved = page.locator(".seg.has-edit", has_text="Pain was").first
    pending_look, saved_look = pending.evaluate(LOOK), saved.evaluate(LOOK)
    # Pending suggestions are boxed with a dashed line (not yet anyone's decision); saved
    # edits are bars under the text, with no box and no text underline of their own.
    assert pending_look["outline"] == "dashed", pending_look
    assert saved_look["outline"] == "none", saved_look
    assert saved_look["line"] == "none", saved_look
    assert pending_look != saved_look


def test_a_selection_while_an_edit_is_open_asks_before_joining_it(page, live_server, study,
                                                                  database):
    open_with_a_new_deletion(page, live_server, study, database)
    assert page.locator("#edit-form .chip").count() == 1
    drag_select(page, "source", *span(SOURCE, "double-blind"))
    # Nothing joined yet: the menu asks, offering the open edit first.
    join = page.locator("#popover .pop-add")
    join.wait_for()
    assert "Add to the open Deletion edit" in join.inner_text()
    assert page.locator("#edit-form .chip").count() == 1
    join.click()
    assert page.locator("#edit-form .chip").count() == 2


def test_after_a_type_change_the_form_describes_the_new_type(page, live_server, study, database):
    open_with_a_new_deletion(page, live_server, study, database)
    described = "t => window.annotator.state.typesByName[t].description"
    old, new = page.evaluate(described, "deletion"), page.evaluate(described, "oversimplification")
    assert old and new and old != new
    help_text = page.locator("#edit-form > p.help")
    assert help_text.inner_text() == old
    page.locator("#edit-form .types .choice", has_text="Oversimplification").click()
    assert help_text.inner_text() == new


def test_the_unreviewed_count_follows_the_reviews(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("Control+Enter")
    box = page.locator("#missing")
    box.locator("text=3 suggestions not reviewed yet").wait_for()
    page.evaluate("id => window.annotator.suggestions.dismiss(id)", ids[0])
    box.locator("text=2 suggestions not reviewed yet").wait_for()
    for sid in ids[1:]:
        page.evaluate("id => window.annotator.suggestions.dismiss(id)", sid)
    page.wait_for_selector("#missing", state="hidden")
    assert "not reviewed" not in box.inner_text()


def test_the_missing_list_drops_what_was_filled_in(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    add_edit(database, aid, "deletion", {}, [("source", *span(SOURCE, "124 adults"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("Control+Enter")
    box = page.locator("#missing")
    box.locator("text=missing").first.wait_for()
    before = box.locator("li").count()
    assert before >= 1 and "Question is required" in box.inner_text()
    page.locator("#missing li button", has_text="Question").click()
    page.keyboard.type("How many adults took part?")
    # The answered item leaves the list; the typing kept its focus.
    page.wait_for_function(
        "n => document.getElementById('missing').hidden"
        " || document.querySelectorAll('#missing li').length < n", arg=before)
    assert "Question is required" not in box.inner_text()
    assert page.evaluate("document.activeElement.dataset.field") == "question"


def test_disabled_undo_and_redo_look_disabled(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    undo = page.locator("#btn-undo")
    assert undo.is_disabled()
    faded = "e => Number(getComputedStyle(e).opacity)"
    assert undo.evaluate(faded) < 0.6
    assert page.locator("#btn-help").evaluate(faded) == 1
