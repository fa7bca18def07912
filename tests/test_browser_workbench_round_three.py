"""The workbench, round three (issue 35) in Debian's Chromium: work flows on (Next document
after Mark done or Skip, Next in queue after adjudicating), a new edit's form comes into
view focused, the adjudication view shows the two texts side by side, question guidance
flags only what matters, PLABA pages say what they can do, and 200 % zoom keeps the tools
reachable."""

from __future__ import annotations

import pytest

from annotator.models import Assignment
from tests.browser_helpers import open_page, prepare, wait_for
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


# ---------------------------------------------------------------- item 5: the flow


def test_after_mark_done_the_next_document_is_one_click_away(page, live_server, study,
                                                              database):
    first, second = study["assignments"]["ana"][:2]
    prepare(database, first)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    next_link = page.locator("#btn-next")
    assert next_link.is_hidden()
    page.click("#btn-done")
    next_link.wait_for()
    # The way on has the focus: Enter opens the next document to do.
    assert page.evaluate("document.activeElement.id") == "btn-next"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/assignments/{second}")


def test_skip_is_stored_on_the_server_and_listed_as_skipped(page, live_server, study,
                                                             database):
    first, second = study["assignments"]["ana"][:2]
    prepare(database, first)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    page.click("#btn-skip")
    page.locator("#status.skipped").wait_for()
    with database.session() as session:
        assert session.get(Assignment, first).status == "skipped"
    assert page.locator("#btn-skip").is_hidden()
    assert page.locator("#btn-done").inner_text() == "Reopen"
    assert page.locator("#btn-next").get_attribute("href") == f"/assignments/{second}"
    page.goto(f"{live_server}/my?show=skipped")
    rows = page.locator("#my-documents tbody tr")
    assert rows.count() == 1 and "skipped" in rows.first.inner_text()


def test_a_stale_skip_is_refused_and_changes_nothing(page, live_server, study, database):
    first = study["assignments"]["ana"][0]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    with database.session() as session:  # another tab saved something meanwhile
        session.get(Assignment, first).version += 1
        session.commit()
    page.click("#btn-skip")
    page.locator("#banner.conflict").wait_for()
    with database.session() as session:
        assert session.get(Assignment, first).status != "skipped"


def test_after_adjudicating_the_next_in_queue_is_offered(app, page, live_server, database,
                                                         qa_study):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    pid, docs = qa_study["project_id"], qa_study["docs"]
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{pid}/adjudicate/{docs['q1']}")
    page.locator("#adj-units [data-unit]").first.wait_for()
    assert page.locator("#adj-next").is_hidden()
    page.click("#adj-auto")
    for card in ("#adj-units", "#adj-unmatched"):
        for _ in range(page.locator(f"{card} .unit.undecided").count()):
            page.locator(f"{card} .unit.undecided button.reject").first.click()
            page.wait_for_timeout(100)
    wait_for(page, "!document.getElementById('adj-complete').disabled")
    page.click("#adj-complete")
    link = page.locator("#adj-next")
    link.wait_for()
    assert page.evaluate("document.activeElement.id") == "adj-next"
    with page.expect_navigation():
        link.click()
    assert page.url.endswith(f"/projects/{pid}/adjudicate/{docs['q2']}")
