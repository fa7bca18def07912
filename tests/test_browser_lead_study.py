"""Issue 35 (items 7 and 12) in a real browser (Debian's Chromium through Playwright): a
lead runs a whole study without the command line, from an empty project to a release;
the schema preview of an uploaded file and of a bad one; the project page's agreement
under readable names, n/a rows last, and the full report with its plots."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotator.models import Assignment, Document, Project
from annotator.operations.worker import start_in_thread
from tests.api_helpers import Api, new_edit
from tests.browser_helpers import click_to_load, watch_errors
from tests.conftest import ARTIFACTS, UPDATE_SCREENSHOTS, browser_login, login_with_form
from tests.helpers import pairs, write_jsonl
from tests.test_lead_study_web import THRESH
from tests.test_live_agreement import complete_with_deletion

pytestmark = pytest.mark.browser
DOCS = ARTIFACTS.parent / "docs" / "screenshots"


def screenshot(page, name: str, full_page: bool = True) -> None:
    """Into test-artifacts/; with UPDATE_SCREENSHOTS=1 also the README's copy in docs/."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full_page)
    if UPDATE_SCREENSHOTS:
        shutil.copy(ARTIFACTS / name, DOCS / name)


def mark_done(api: Api, assignment_id: int) -> None:
    version = api.get(f"/api/assignments/{assignment_id}").get_json()["assignment"]["version"]
    answer = api.send("POST", f"/api/assignments/{assignment_id}/status",
                      {"status": "done", "version": version})
    assert answer.status_code == 200, answer.get_json()


def test_a_lead_runs_a_whole_study_in_the_browser_only(page, live_server, app, database, users,
                                                       tmp_path, config, release_worker):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    errors = watch_errors(page)
    good = write_jsonl(tmp_path / "abstracts.jsonl", pairs(12))
    bad_records = pairs(2, prefix="x")
    bad_records[1]["source"] = 42
    bad = write_jsonl(tmp_path / "more.jsonl", bad_records)

    # Log in, and create the project from a built-in schema, after its preview.
    login_with_form(page, live_server, "lee")
    page.click("nav >> text=Projects")
    click_to_load(page, "#new-project")
    page.fill("#project-name", "trial study")
    page.select_option("#schema-builtin", "infolossqa")
    expect(page.locator("#preview-lines")).to_contain_text(
        "schema YAML: infolossqa (Information loss (InfoLossQA))")
    expect(page.locator("#preview-lines")).to_contain_text(
        "deletion (Deletion): original, several spans per side")
    page.fill("#per-doc", "2")
    assert page.locator("#lead-choice input[value=lee]").is_checked()
    screenshot(page, "project_new.png")
    click_to_load(page, "#create-project")
    expect(page.locator(".flash.ok")).to_contain_text("Project trial study created")
    with database.session() as session:
        pid, slug = session.execute(select(Project.id, Project.slug).where(
            Project.name == "trial study")).one()

    # Import a file; a bad one is refused with FILE:LINE and imports nothing.
    page.set_input_files("#import-files", str(good))
    click_to_load(page, "#import-form button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text(
        "Imported 12 new documents from abstracts.jsonl.")
    page.set_input_files("#import-files", str(bad))
    click_to_load(page, "#import-form button[type=submit]")
    expect(page.locator("#import-problems")).to_contain_text("Nothing was imported")
    expect(page.locator("#import-problems li")).to_have_text(
        ["more.jsonl:2: field 'source': must be a string, got int"])
    expect(page.locator("#import")).to_contain_text("12 documents so far")

    # Assign to two annotators.
    page.check("#assign-form input[value=ana]")
    page.check("#assign-form input[value=ben]")
    page.fill("#per-document", "2")
    click_to_load(page, "#assign-form button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text(
        "Created 24 assignments; ana holds 12, ben holds 12.")

    # The import queued the pre-highlights; a worker (as `annotator serve` keeps one) runs
    # them while the page follows the progress to the total.
    expect(page.locator("#prehighlight-count")).to_have_text(
        "0 of 12 documents pre-highlighted")
    expect(page.locator("#prehighlight")).to_have_attribute("data-state", "running")
    expect(page.locator("#prehighlight-message")).to_contain_text("waiting for a worker")
    expect(page.locator("#prehighlight-start")).to_be_disabled()
    worker, _ = start_in_thread(database, poll_seconds=0.2)
    expect(page.locator("#prehighlight-count")).to_have_text(
        "12 of 12 documents pre-highlighted", timeout=180_000)
    expect(page.locator("#prehighlight")).to_have_attribute("data-state", "idle")
    expect(page.locator("#prehighlight-message")).to_contain_text(
        "Done: the last run pre-highlighted 12 documents")
    assert page.locator("#prehighlight-bar").evaluate("b => [b.value, b.max]") == [12, 12]
    worker.stop()
    screenshot(page, "project_setup.png")
    with database.session() as session:
        marked = session.scalar(select(func.count(Document.id)).where(
            Document.project_id == pid, Document.prehighlighted_at.is_not(None)))
        assert marked == 12

    # The annotators annotate the first document alike and mark it done.
    with database.session() as session:
        first = session.scalar(select(Document).where(Document.project_id == pid,
                                                      Document.external_id == "d1"))
        held = {a.user.username: a.id for a in session.scalars(
            select(Assignment).where(Assignment.document_id == first.id))}
        first_id = first.id
    for name in ("ana", "ben"):
        api = Api(app, name)
        new_edit(api, held[name])
        mark_done(api, held[name])

    # The agreement report, from the project page.
    page.goto(f"{live_server}/projects/{pid}")
    click_to_load(page, "#full-report")
    expect(page.locator(".agreement-report h1")).to_have_text("Agreement report")
    expect(page.locator(".agreement-report")).to_contain_text(
        "12 documents, 2 annotators, 2 edits")
    assert page.locator(".agreement-report img").count() >= 2

    # Adjudicate the finished document and cut a release.
    page.goto(f"{live_server}/projects/{pid}/adjudicate/{first_id}")
    page.locator("#adj-units [data-unit]").first.wait_for()
    page.locator("#adj-auto:not([disabled])").wait_for()
    page.click("#adj-auto")
    page.locator("#adj-complete:not([disabled])").wait_for()
    page.click("#adj-complete")
    page.locator("#adj-status", has_text="Adjudicated").wait_for()
    page.goto(f"{live_server}/projects/{pid}")
    click_to_load(page, "#project-nav >> text=Releases")
    page.fill("input[name=version]", "v1")
    click_to_load(page, "#release-form button[type=submit]")
    page.locator("article[data-version=v1]").wait_for()  # built by the worker, page follows
    assert "1 of 12 documents" in page.locator("article[data-version=v1]").inner_text()
    assert "11 excluded" in page.locator("article[data-version=v1]").inner_text()
    # The release downloads as one zip, as the lead would fetch it from this page.
    download = page.request.get(f"{live_server}/projects/{pid}/releases/v1.zip")
    assert download.status == 200
    with zipfile.ZipFile(io.BytesIO(download.body())) as bundle:
        gold = next(n for n in bundle.namelist() if n.endswith("gold.jsonl"))
        (record,) = [json.loads(line) for line in bundle.read(gold).decode().splitlines()]
    assert record["id"] == "d1" and record["edits"][0]["fields"]["question"] == "What dose?"
    assert errors == []


def test_the_preview_shows_an_uploaded_typology_and_says_why_a_file_is_refused(
        page, live_server, users, tmp_path, database):
    typology = tmp_path / "omissions.yml"
    typology.write_text(THRESH, encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("edit_types: [\n", encoding="utf-8")
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/new")
    expect(page.locator("#project-form")).to_have_attribute("data-preview", "ok")
    page.set_input_files("#schema-file", str(typology))
    assert page.locator("input[name=schema_source][value=file]").is_checked()
    expect(page.locator("#preview-lines")).to_contain_text("Thresh typology: omissions")
    expect(page.locator("#preview-lines")).to_contain_text(
        "severity: ordinal ['minor'=1, 'somewhat'=2, 'a lot'=3]")
    expect(page.locator("#preview-lines")).to_contain_text(
        "not used (Thresh page layout only): display")

    page.set_input_files("#schema-file", str(broken))
    expect(page.locator("#project-form")).to_have_attribute("data-preview", "error")
    expect(page.locator("#preview-state")).to_contain_text(
        "broken.yaml: key 'line 2': expected valid YAML")
    assert page.locator("#preview-lines").is_hidden()
    page.fill("#project-name", "broken")
    click_to_load(page, "#create-project")
    expect(page.locator("#create-error")).to_contain_text("Not created: broken.yaml")
    with database.session() as session:
        assert session.scalar(select(func.count(Project.id))) == 0


def test_the_project_page_names_agreement_and_opens_the_full_report(page, live_server, study,
                                                                      database):
    complete_with_deletion(database, [study["assignments"]["ana"][0],
                                      study["assignments"]["ben"][0]], 18, 27)
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{study['project_id']}")
    rows = page.locator("#agreement-rows tbody tr")
    names = rows.locator("td:first-child").all_inner_texts()
    assert "Span F1 (exact), original, macro" in names
    assert not [n for n in names if n.startswith(("edit_fields.", "fields.", "spans."))]
    values = rows.locator("td:nth-child(2)").all_inner_texts()
    first_na = values.index("n/a")
    assert first_na > 0 and all(v == "n/a" for v in values[first_na:])  # n/a rows last
    click_to_load(page, "#full-report")
    assert page.url.endswith(f"/projects/{study['project_id']}/agreement")
    expect(page.locator(".agreement-report h2").first).to_have_text("Summary")
    summary = page.locator(".agreement-report table").first.locator("tbody tr")
    values = summary.locator("td:nth-child(2)").all_inner_texts()
    first_na = values.index("n/a")
    assert first_na > 0 and all(v == "n/a" for v in values[first_na:])  # n/a rows last
    plots = page.locator(".agreement-report img")
    assert plots.count() >= 2
    assert plots.first.evaluate("img => img.complete && img.naturalWidth > 0")
    assert page.evaluate("window.__pwned") is None  # document 3's script stayed text
    screenshot(page, "agreement.png", full_page=False)  # the top: the report is long
