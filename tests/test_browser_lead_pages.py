"""The lead's pages and the annotator's list in a real browser (Debian's Chromium through
Playwright): the data manager, My documents, user management, error pages, the favicon,
the queue's Disputed column and the duplicate-release message."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.adjudication.overview import apply_automatic
from annotator.models import Assignment, Document, User
from annotator.operations import work
from annotator.study.accounts import create_user
from annotator.study.queue_marks import document_changed
from tests.browser_helpers import click_to_load
from tests.conftest import ARTIFACTS, PASSWORD, browser_login, login_with_form

pytestmark = pytest.mark.browser


@pytest.fixture
def lead_study(app, database, qa_study):
    """qa_study plus an idle annotator cy, and 12 min 5 s of ana's time on q3."""
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    with work.session(database) as session:  # a writer's change: marked, settled
        create_user(session, "cy", PASSWORD, "annotator")
        q3 = session.scalar(select(Assignment).join(Document).join(User).where(
            Document.external_id == "q3", User.username == "ana"))
        q3.seconds_spent = 725
        q3.status = "in_progress"
        document_changed(session, q3.document_id)
    return qa_study


def ids_in_table(page, table: str) -> list[str]:
    return [r.get_attribute("data-document") for r in page.locator(f"{table} tbody tr").all()]


def test_data_manager_filters_sorts_and_assigns_in_bulk(page, live_server, lead_study):
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{lead_study['project_id']}")
    click_to_load(page, "#project-nav >> text=Documents (data manager)")
    table = "#data-manager"
    assert ids_in_table(page, table) == ["q1", "q2", "q3"]
    row = page.locator(f"{table} tr[data-document=q3]")
    assert "12 min 5 s" in row.inner_text() and "in progress" in row.inner_text()
    assert page.locator(f"{table} tr[data-document=q1] td").nth(5).inner_text() == "0.50"

    page.get_by_label("Status").select_option("ready")
    click_to_load(page, "#dm-filters button[type=submit]")
    assert ids_in_table(page, table) == ["q1", "q2"]
    click_to_load(page, f"{table} th >> text=Agreement")  # ascending: least agreement first
    assert ids_in_table(page, table) == ["q1", "q2"]
    click_to_load(page, f"{table} th >> text=Agreement")
    assert ids_in_table(page, table) == ["q2", "q1"]
    assert page.locator(f"{table} th[aria-sort=descending]").inner_text().startswith("Agreement")

    page.goto(f"{live_server}/projects/{lead_study['project_id']}/documents?q=q3")
    assert ids_in_table(page, table) == ["q3"]
    page.check("#select-all")
    assert page.locator(f"{table} input[name=doc]:checked").count() == 1
    page.select_option("#bulk-action", "assign")
    page.select_option("#bulk-form select[name=to]", "cy")
    click_to_load(page, "#bulk-form button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text("1 document(s) assigned to cy.")
    assert ids_in_table(page, table) == ["q3"]  # back on the same search
    assert "cy · assigned" in page.locator(f"{table} tr[data-document=q3]").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{live_server}/projects/{lead_study['project_id']}/documents?sort=agreement")
    page.screenshot(path=str(ARTIFACTS / "datamanager.png"), full_page=True)


def test_my_documents_project_filter_progress_and_time(page, live_server, lead_study):
    browser_login(page, live_server, "ana")
    page.goto(f"{live_server}/my")
    progress = page.locator("#my-progress tr[data-project=qa]")
    assert "2 of 3" in progress.inner_text() and "12 min 5 s" in progress.inner_text()
    assert ids_in_table(page, "#my-documents") == ["q1", "q2", "q3"]  # done stay in place
    assert "12 min 5 s" in page.locator("#my-documents tr[data-document=q3]").inner_text()
    page.get_by_label("Show").select_option("todo")
    click_to_load(page, "#my-filters button[type=submit]")
    assert ids_in_table(page, "#my-documents") == ["q3"]
    projects = page.locator("#my-filters select[name=project] option").all_inner_texts()
    assert projects == ["all", "qa"]
    page.get_by_label("Show").select_option("all")
    click_to_load(page, "#my-filters button[type=submit]")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "my_documents.png"), full_page=True)
    page.click("text=Next to do →")
    page.wait_for_selector("#annotate")


def test_lead_manages_an_annotator_account(page, live_server, lead_study, chromium):
    ARTIFACTS.mkdir(exist_ok=True)
    login_with_form(page, live_server, "lee")
    page.click("nav >> text=Users")
    form = page.locator("#create-user")
    form.get_by_label("Username").fill("dee")
    form.get_by_label("Password").fill("dee-first-password")
    form.get_by_label("E-mail (optional)").fill("dee@example.org")
    form.get_by_label("Project").select_option(label="qa")
    form.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_have_text("Account dee (annotator) created.")
    card = page.locator("[data-user=dee]")
    assert "qa (annotator)" in card.locator(".memberships").inner_text()
    assert card.get_by_label("E-mail").input_value() == "dee@example.org"
    card.get_by_label("New password").fill("dee-second-password")
    card.locator("text=Reset password").click()
    expect(page.locator(".flash.ok")).to_contain_text("Password of dee reset")

    other = chromium.new_context()
    second = other.new_page()
    login_with_form(second, live_server, "dee", "dee-second-password")
    assert "My documents" in second.locator("h1").inner_text()
    other.close()

    page.screenshot(path=str(ARTIFACTS / "users.png"), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())  # "Deactivate dee?" (issue 35)
    page.locator("[data-user=dee] >> text=Deactivate").click()
    expect(page.locator(".flash.ok")).to_contain_text("dee deactivated")
    assert page.locator("[data-user=dee] .status.inactive").count() == 1
    other = chromium.new_context()
    second = other.new_page()
    login_with_form(second, live_server, "dee", "dee-second-password")
    assert second.url.endswith("/login") or "/login" in second.url
    other.close()


def test_error_pages_sit_in_the_layout_with_a_way_back(page, live_server, lead_study):
    browser_login(page, live_server, "ana")
    page.goto(f"{live_server}/my")
    response = page.goto(f"{live_server}/no/such/page")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert page.locator(".topbar >> text=My documents").count() == 1  # inside the layout
    page.click("#error-home")
    assert page.url.endswith("/my")
    response = page.goto(f"{live_server}/users/")
    assert response.status == 403 and page.locator("h1").inner_text() == "Not allowed"
    assert page.locator("#error-home").inner_text() == "My documents"
    # The favicon: linked from every page and served at the address browsers ask for.
    assert page.locator("link[rel=icon]").get_attribute("href").endswith("favicon.svg")
    icon = page.request.get(f"{live_server}/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"].startswith("image/svg+xml")


def test_queue_lists_severity_ties_and_duplicate_release_hides_the_folder(
        page, live_server, lead_study, config, database, release_worker):
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{lead_study['project_id']}/adjudicate")
    disputed = page.locator("#adjudication-queue tr[data-document=q1] td.disputed").inner_text()
    assert "deletion severity" in disputed  # ana: 2 (major), ben: 1 (minor)
    page.select_option("select[name=field]", "deletion.severity")
    click_to_load(page, ".filters button[type=submit]")
    assert ids_in_table(page, "#adjudication-queue") == ["q1"]

    with database.session() as session:  # q2: identical edits, adjudicated by the rules
        q2 = session.get(Document, lead_study["docs"]["q2"])
        lee = session.get(User, lead_study["users"]["lee"])
        assert apply_automatic(session, q2, lee)["completed"]
    for _ in range(2):
        page.goto(f"{live_server}/projects/{lead_study['project_id']}/releases")
        page.fill("input[name=version]", "v1")
        page.click("#release-form button[type=submit]")
        page.locator("article[data-version=v1], .flash.error").first.wait_for()
    message = page.locator(".flash.error").inner_text()
    assert "release v1 of qa exists already" in message
    assert str(config.exports_path) not in message and "/" not in message


def test_adjudication_actions_wait_for_the_state(page, live_server, lead_study):
    """The action buttons are disabled until the document's state has loaded: a click
    before it raced the first read and failed on the unique adjudication state."""
    url = f"{live_server}/projects/{lead_study['project_id']}/adjudicate/{lead_study['docs']['q2']}"
    browser_login(page, live_server, "lee")
    html = page.request.get(url).text()
    for button in ("adj-auto", "adj-complete", "adj-reopen"):
        assert f'id="{button}" disabled' in html
    page.goto(url)
    page.click("#adj-auto")  # Playwright waits until it is enabled
    expect(page.locator("#adj-status")).to_contain_text("0 decision(s) open")
    page.click("#adj-complete")
    expect(page.locator("#adj-status")).to_have_text("Adjudicated (round 1).")
