"""The minimal pages in a real browser (Debian's Chromium through Playwright)."""

import pytest

from tests.browser_helpers import click_to_load
from tests.conftest import ARTIFACTS, browser_login, login_with_form

pytestmark = pytest.mark.browser


def test_lead_logs_in_and_sees_progress(page, live_server, study):
    login_with_form(page, live_server, "lee")
    assert page.url.endswith("/projects/")
    click_to_load(page, "text=trial")
    rows = page.locator("#progress tbody tr")
    assert rows.count() == 2
    assert page.locator("#progress tr[data-annotator=ana] td").nth(1).inner_text() == "3"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "project-overview.png"), full_page=True)


def test_planted_script_does_not_run(page, live_server, study):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    browser_login(page, live_server, "ana")
    page.goto(f"{live_server}/assignments/{study['assignments']['ana'][2]}")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    assert (
        "<script>window.__pwned = 1</script>"
        in page.locator(".text[data-side=target]").inner_text()
    )
