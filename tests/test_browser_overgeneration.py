"""The overgeneration schema in the browser: mark appended text with its category and
answer the yes/no question per sentence pair."""

import pytest

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, User
from annotator.study.projects import create_project
from tests.browser_helpers import api_state, drag_select, open_page, wait_saved
from tests.conftest import ARTIFACTS, browser_login
from tests.helpers import write_jsonl

pytestmark = pytest.mark.browser

SOURCE = "Children with asthma used the inhaler twice a day for 8 weeks."
TARGET = ("Kids with asthma used an inhaler twice a day for 8 weeks. "
          "Here is the simplified version: I chose 'rephrase' as the strategy.")
LEAK = "Here is the simplified version: I chose 'rephrase' as the strategy."


def test_mark_trailing_content_and_rate_the_pair(page, live_server, database, users, tmp_path):
    with database.session() as session:
        project = create_project(session, "og", "overgeneration",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "og.jsonl", [
            {"id": "og-1", "sentences": [{"source": SOURCE, "target": TARGET}]}]))
        assign_documents(session, project, ["ana", "ben"])
        aid = session.query(Assignment).filter_by(user_id=users["ana"]).one().id
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
