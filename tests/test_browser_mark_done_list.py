"""Mark done lists every problem at once, each a link to its place (issue 43).

One document with two edits that block "done" (answers missing, a span missing), a
question with two guidance warnings (yes/no; a word the simplification never gave) and three suggestions not reviewed: one Mark done
lists all of them; each entry opens its place and puts the focus there; once the blockers
are fixed, the warnings remain and "Mark done anyway" finishes.
"""

from __future__ import annotations

from playwright.sync_api import expect
from sqlalchemy import select

from annotator.models import Assignment
from tests.browser_helpers import (
    SOURCE,
    TARGET,
    add_edit,
    drag_select,
    open_page,
    prepare,
    span,
    standard_suggestions,
    wait_saved,
    watch_errors,
)
from tests.conftest import browser_login


def focused(page) -> dict:
    return page.evaluate("""() => {
        const a = document.activeElement;
        return {field: a.dataset.field || null, tag: a.tagName,
                side: a.closest('.span-row')?.dataset.side || null,
                card: !!a.closest('#suggestion-card'),
                focusSugg: window.annotator.state.focusSugg};
    }""")


def test_mark_done_lists_every_problem_at_once_each_a_link(page, live_server, study,
                                                            database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    suggestion_ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    add_edit(database, aid, "deletion", {}, [("source", *span(SOURCE, "124 adults"))])
    add_edit(database, aid, "oversimplification",
             {"question": "Was the trial blinded?", "answer": "Twice a day."},
             [("source", *span(SOURCE, "double-blind"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.click("#btn-done")
    box = page.locator("#missing")
    box.locator("li").first.wait_for()
    text = box.inner_text()
    head = box.locator(".missing-head strong").inner_text()
    assert head == ("Not done yet — 3 things missing · 3 suggestions not reviewed yet"
                    " · 2 warnings on your answers")
    entries = box.locator("li").all_inner_texts()
    assert entries[:3] == ["Deletion #1: Question is required",
                           "Deletion #1: Answer is required",
                           "Oversimplification #2: mark a span in the simplification"]
    assert len(entries) == 3 + 3 + 2
    assert entries[-2].startswith("Oversimplification #2: Question: This reads as a yes/no")
    assert entries[-1].startswith("Oversimplification #2: Question: Not given in the "
                                  "simplification: blinded.")
    assert "Mark done anyway" not in text  # something blocks: no way round it
    assert page.locator("#status").inner_text() != "done"

    # Each entry takes the annotator to its place.
    box.locator("li button", has_text="Deletion #1: Answer is required").click()
    assert focused(page)["field"] == "answer"
    page.keyboard.type("One hundred and twenty-four adults.")
    box.locator("li button", has_text="Deletion #1: Question is required").click()
    assert focused(page)["field"] == "question"
    page.keyboard.type("How many adults took part?")
    wait_saved(page)
    box.locator("li button", has_text="mark a span in the simplification").click()
    assert focused(page)["side"] == "target"
    box.locator("li button", has_text="yes/no").click()
    assert focused(page)["field"] == "question"
    second = box.locator("li.warns button").nth(1)  # the second suggestion
    second.click()
    assert focused(page)["card"] and focused(page)["focusSugg"] == suggestion_ids[1]
    # The fixed entries left the list; the rest stayed.
    expect(box).not_to_contain_text("Deletion #1")
    expect(box).to_contain_text("Oversimplification #2: mark a span")

    # The last blocker fixed (the span on the simplification), Mark done lists only what
    # warns, with the way to finish anyway.
    box.locator("li button", has_text="mark a span in the simplification").click()
    drag_select(page, "target", *span(TARGET, "strong painkillers"))
    page.click("#popover .pop-add")  # the selection joins the open edit
    wait_saved(page)
    page.click("#btn-done")
    expect(box.locator(".missing-head strong")).to_have_text(
        "3 suggestions not reviewed yet · 2 warnings on your answers")
    box.locator("button", has_text="Mark done anyway").click()
    page.wait_for_selector("#status.done")
    with database.session() as session:
        assert session.scalar(select(Assignment.status).where(Assignment.id == aid)) == "done"
    assert errors == []
