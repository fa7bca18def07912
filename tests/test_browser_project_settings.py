"""The project's settings page in a real browser (Debian's Chromium through Playwright):
a lead reaches it from the project page, switches the automatic pre-highlight refresh on
with its own N, sees a refused value explained, and switches it off again."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.models import AuditEvent, Project
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


def test_lead_switches_the_automatic_refresh(page, live_server, database, study):
    project_id = study["project_id"]
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{project_id}")
    page.click("#project-nav >> text=Settings")
    expect(page.locator("#refresh-state")).to_have_text("off")
    expect(page.locator("#last-fit")).to_have_text("never")
    expect(page.locator("#refit-every")).to_have_value("5")

    page.check("#auto-learn")
    page.fill("#refit-every", "3")
    page.click("#auto-refresh-form button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text(
        "Automatic refresh on: refit after every 3 newly completed documents.")
    expect(page.locator("#refresh-state")).to_have_text("on")
    expect(page.locator("#auto-learn")).to_be_checked()
    expect(page.locator("#refit-every")).to_have_value("3")

    # The browser refuses 0 itself (min=1); a hand-made request is refused by the server.
    page.fill("#refit-every", "0")
    page.click("#auto-refresh-form button[type=submit]")
    assert page.locator("#refit-every").evaluate("e => e.validity.rangeUnderflow")

    page.fill("#refit-every", "3")
    page.uncheck("#auto-learn")
    page.click("#auto-refresh-form button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text("Automatic refresh off.")
    with database.session() as session:
        settings = session.get(Project, project_id).settings["prehighlight"]
        assert settings["auto_learn"] is False and settings["refit_every"] == 3
        actions = session.scalars(select(AuditEvent.action).where(
            AuditEvent.project_id == project_id,
            AuditEvent.action == "prehighlight.auto_learn")).all()
        assert len(actions) == 2
