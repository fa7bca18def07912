"""The overgeneration schema in the browser: mark appended text with its category and
answer the yes/no question per sentence pair."""


import pytest

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, User
from annotator.study.projects import create_project
from tests.browser_helpers import (
    OVERGEN_LEAK,
    OVERGEN_SOURCE,
    OVERGEN_TARGET,
    api_state,
    drag_select,
    hold_first_rating_save,
    open_page,
    wait_saved,
    wait_settled,
)
from tests.conftest import ARTIFACTS, browser_login
from tests.helpers import write_jsonl

pytestmark = pytest.mark.browser

SOURCE, TARGET, LEAK = OVERGEN_SOURCE, OVERGEN_TARGET, OVERGEN_LEAK


def _ana_overgeneration_assignment(database, users, tmp_path) -> int:
    """One overgeneration pair assigned to ana and ben; ana's assignment id."""
    with database.session() as session:
        project = create_project(session, "og", "overgeneration",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "og.jsonl", [
            {"id": "og-1", "sentences": [{"source": SOURCE, "target": TARGET}]}]))
        assign_documents(session, project, ["ana", "ben"])
        return session.query(Assignment).filter_by(user_id=users["ana"]).one().id


def test_mark_trailing_content_and_rate_the_pair(page, live_server, database, users, tmp_path):
    aid = _ana_overgeneration_assignment(database, users, tmp_path)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)

    start = TARGET.index(LEAK)
    drag_select(page, "target", start + 2, start + len(LEAK) - 3)
    page.click("#popover [data-type=overgeneration]")
    page.locator("#edit-form label.choice", has_text="Leaked model instruction").click()
    row = page.locator(".rating-row[data-item='0']")
    row.locator("[data-rating$='|overgenerated'] label", has_text="Yes").click()
    wait_saved(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#status.done")

    data = api_state(page, live_server, aid)
    assert [(e["edit_type"], e["fields"], e["spans"]) for e in data["edits"]] == [
        ("overgeneration", {"category": "leaked_instruction"},
         # Snapping to words takes whole words; the final full stop stays outside.
         [{"side": "target", "start": start, "end": start + len(LEAK) - 1}])]
    assert [(r["level"], r["item"], r["field"], r["value"]) for r in data["ratings"]] == [
        ("pair", "0", "overgenerated", "yes")]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate-overgeneration.png"))


def test_two_quick_clicks_on_one_rating_are_saved_in_turn(page, live_server, database, users,
                                                          tmp_path):
    """Two values of one rating clicked in quick succession on a fresh document, with a slow
    server: the second save waits for the first's answer (the new rating's version), so
    nothing conflicts and the second value is the one stored."""
    aid = _ana_overgeneration_assignment(database, users, tmp_path)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)

    def click(text):
        page.evaluate("""(text) => [...document.querySelectorAll(
            ".rating-row[data-item='0'] [data-rating$='|overgenerated'] label")]
            .find((l) => l.textContent.trim() === text).click()""", text)

    saves = hold_first_rating_save(page, lambda: click("Yes"))
    click("No")  # the first answer is still on its way (held)
    assert page.locator("#save-state").get_attribute("data-state") == "saving"
    saves.release()
    wait_settled(page)

    assert page.locator("#banner.conflict").count() == 0
    assert page.locator("#save-state").get_attribute("data-state") == "saved"
    # The second request carried the version the first one got back, never null.
    assert [(b["value"], b["version"] is None) for b in saves.sent] == [("yes", True),
                                                                        ("no", False)]
    data = api_state(page, live_server, aid)
    assert [(r["level"], r["item"], r["field"], r["value"]) for r in data["ratings"]] == [
        ("pair", "0", "overgenerated", "no")]
