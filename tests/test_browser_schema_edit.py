"""Issue 35 (item 12) in a real browser (Debian's Chromium through Playwright): a lead revises
a running project's schema without the command line. Adding an optional question previews
as valid, applies, and the annotation page asks it; removing an edit type that has
annotations is refused, listing each one, and nothing changes, also when the annotation
came in between the preview and the click on Apply."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.api_helpers import Api, new_edit
from tests.browser_helpers import click_to_load, open_page, wait_saved, watch_errors
from tests.conftest import browser_login, login_with_form
from tests.test_browser_lead_study import screenshot
from tests.test_project_schema_web import current_text, stored, with_topic, without_comment_type

pytestmark = pytest.mark.browser


def preview(page, text: str) -> None:
    page.fill("#schema-text", text)
    click_to_load(page, "#schema-preview-button")


def test_a_lead_adds_a_question_and_cannot_remove_an_edit_type_in_use(
        page, live_server, app, database, study, chromium):
    errors = watch_errors(page)
    pid = study["project_id"]
    aid = study["assignments"]["ana"][0]
    new_edit(Api(app, "ana"), aid)  # a deletion: fits both revisions below
    login_with_form(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{pid}")
    click_to_load(page, "#project-nav >> text=Settings and schema")
    expect(page.locator("#schema-current")).to_contain_text(
        "comment (Comment): document-level (no spans)")
    original = page.input_value("#schema-text")
    assert original == current_text(database, pid)

    # An optional question for comments: every annotation fits, so it applies.
    preview(page, with_topic(original))
    expect(page.locator("#schema-changes li")).to_have_text(["comment: field topic added"])
    expect(page.locator("#schema-fits")).to_be_visible()
    expect(page.locator("#schema-revised")).to_contain_text("topic: choice ['dose', 'risk']")
    assert current_text(database, pid) == original  # the preview changed nothing
    screenshot(page, "project_schema.png")
    click_to_load(page, "#schema-apply")
    expect(page.locator(".flash.ok")).to_have_text(
        "Schema revised (now infolossqa): comment: field topic added.")
    expect(page.locator("#schema-current")).to_contain_text("topic: choice ['dose', 'risk']")
    revised = current_text(database, pid)
    assert revised == with_topic(original)

    # Removing the comment type previews as valid while nobody has written a comment...
    preview(page, without_comment_type(revised))
    expect(page.locator("#schema-changes li")).to_have_text(["edit type comment removed"])
    expect(page.locator("#schema-apply")).to_be_visible()

    # ... then ana writes one, and the annotation page asks the new question.
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    ana = context.new_page()
    browser_login(ana, live_server, "ana")
    open_page(ana, live_server, aid)
    ana.click("#new-edit [data-type=comment]")
    form = ana.locator("#edit-form")
    topic = form.locator(".field[data-name=topic]")
    expect(topic).to_contain_text("Topic")
    topic.locator("label", has_text="Dose").click()
    form.locator("[data-field=comment_text]").fill("The dose is gone.")
    form.locator("[data-field=comment_text]").blur()
    wait_saved(ana)
    comment = ana.request.get(f"{live_server}/api/assignments/{aid}").json()["edits"]
    (comment,) = [e for e in comment if e["edit_type"] == "comment"]
    assert comment["fields"] == {"comment_text": "The dose is gone.", "topic": "dose"}
    context.close()

    # Apply from the old preview: checked again on the server, refused, each edit listed.
    before = stored(database, pid)
    with page.expect_navigation() as answer:
        page.click("#schema-apply")
    assert answer.value.status == 422
    expect(page.locator("#schema-error strong")).to_contain_text(
        "Schema not changed: 1 stored annotation(s) would not fit the new schema")
    expect(page.locator("#schema-error li")).to_have_text(
        [f"edit {comment['id']} (comment, ana on d1): no such edit type in the new schema"])
    assert stored(database, pid) == before
    expect(page.locator("#schema-current")).to_contain_text("comment (Comment)")

    # Previewing it again says so before any click, and offers no Apply.
    preview(page, without_comment_type(revised))
    expect(page.locator("#schema-breaks li")).to_have_text(
        [f"edit {comment['id']} (comment, ana on d1): no such edit type in the new schema"])
    expect(page.locator("#schema-revision-preview")).to_have_attribute("data-applies", "no")
    assert page.locator("#schema-apply").count() == 0
    assert stored(database, pid) == before
    assert errors == []
