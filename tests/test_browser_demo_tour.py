"""Issue 47 item 3: the README's five-minute tour of the demo, walked in a real browser
(Debian's Chromium through Playwright) on a demo built by its own builder, each page
checked against the database: the project page's and the report's agreement counts, the
queue's order and open decisions, deciding demo-04's open unit, the releases v0.1 and a
newly cut v0.2, and ana's remaining work."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotator.adjudication.queue import stored_queue
from annotator.annotate.next_up import next_to_do
from annotator.models import (
    AdjudicationDecision,
    AdjudicationState,
    Assignment,
    Document,
    Edit,
    Project,
    Release,
    User,
)
from annotator.operations.demo import DEMO_USERS, create_demo
from annotator.releases import release_file
from tests.browser_helpers import click_to_load, watch_errors
from tests.conftest import browser_login

pytestmark = pytest.mark.browser
PASSWORDS = {name: password for name, _, password in DEMO_USERS}
PROJECT = "demo-infoloss"


@pytest.fixture
def demo(app, database):
    # The rules froze every ready document's units when the demo was built; the view needs
    # no embedding model to show them.
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    with database.session() as session:
        create_demo(session)
        return session.scalar(select(Project.id).where(Project.name == PROJECT))


def released(database, pid: int, version: str) -> int:
    """Documents in the release, from its manifest in the database."""
    with database.session() as session:
        project = session.get(Project, pid)
        manifest = json.loads(release_file(session, project, version, "MANIFEST.json"))
    return manifest["counts"]["documents_released"]


def test_the_readme_tour_of_the_demo(demo, database, live_server, page, release_worker):
    pid = demo
    errors = watch_errors(page)
    with database.session() as session:
        in_project = Document.project_id == pid
        total = session.scalar(select(func.count()).select_from(Document).where(in_project))
        done = session.execute(select(Assignment.document_id).join(Document).where(
            in_project, Assignment.status == "done")).scalars().all()
        two = sum(1 for d in set(done) if done.count(d) >= 2)
        edits = session.scalar(select(func.count()).select_from(Edit).join(Assignment).join(
            Document).where(in_project))
        annotators = session.scalar(select(func.count(func.distinct(Assignment.user_id)))
                                    .join(Document).where(in_project))
        queue = [(e.document.external_id, e.status, e.open["total"])
                 for e in stored_queue(session, pid).entries]
        lee = session.scalar(select(User.id).where(User.username == "lee"))
    assert two and edits and {s for _, s, _ in queue} == {"open", "complete"}

    # 1. The lead's project page and the agreement report.
    browser_login(page, live_server, "lee", PASSWORDS["lee"])
    page.goto(f"{live_server}/projects/")
    click_to_load(page, f"a[href='/projects/{pid}']")
    expect(page.locator("#agreement-summary")).to_contain_text(
        f"{two} of {total} documents done by two or more annotators · {edits} edits")
    click_to_load(page, "#project-nav >> text=Agreement report")
    report = page.locator(".agreement-report")
    expect(report).to_contain_text(f"{total} documents, {annotators} annotators, {edits} edits")
    for name in ("Krippendorff", "Fleiss", "Randolph", "Cohen", "exact F1"):
        expect(report).to_contain_text(name)
    assert page.locator(".agreement-report img").count() >= 1

    # 2. The queue: what the database holds, in its order, open documents first.
    page.goto(f"{live_server}/projects/{pid}")
    click_to_load(page, "#project-nav >> text=Adjudication queue")
    shown = page.locator("#adjudication-queue tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.document, r.dataset.status, "
        "r.querySelector('.open-count').textContent.trim()])")
    assert [(doc, status, int(count.split()[0])) for doc, status, count in shown] == queue
    assert queue[0][1] == "open" and queue[-1][1] == "complete"

    # 3. demo-04: ana's lone deletion; accept it, then mark the document adjudicated.
    row = page.locator("#adjudication-queue tbody tr[data-document='demo-04']")
    with page.expect_navigation():
        row.locator("text=Adjudicate").click()
    unit = page.locator("#adj-unmatched [data-unit]")
    unit.first.wait_for()
    expect(unit).to_have_count(1)
    expect(unit).to_contain_text("Which KCCQ score was the outcome?")
    unit.locator("text=Accept ana's").click()
    page.locator("#adj-unmatched .unit.decided").wait_for()
    page.locator("#adj-complete:not([disabled])").wait_for()
    page.click("#adj-complete")
    page.locator("#adj-status", has_text="Adjudicated").wait_for()
    with database.session() as session:
        doc = session.scalar(select(Document).where(in_project, Document.external_id == "demo-04"))
        assert session.scalar(select(AdjudicationState.status).where(
            AdjudicationState.document_id == doc.id)) == "complete"
        kinds = session.scalars(select(AdjudicationDecision.kind).where(
            AdjudicationDecision.document_id == doc.id, AdjudicationDecision.user_id == lee)
            .order_by(AdjudicationDecision.id)).all()
        assert kinds == ["accept", "complete"]
        adjudicated = session.scalar(select(func.count()).select_from(AdjudicationState).join(
            Document).where(in_project, AdjudicationState.status == "complete"))

    # 4. Releases: v0.1 as built with the demo; v0.2 cut here, built by the worker.
    page.goto(f"{live_server}/projects/{pid}")
    click_to_load(page, "#project-nav >> text=Releases")
    expect(page.locator("article[data-version='v0.1']")).to_contain_text(
        f"{released(database, pid, 'v0.1')} of {total} documents")
    page.fill("input[name=version]", "v0.2")
    click_to_load(page, "#release-form button[type=submit]")
    page.locator("article[data-version='v0.2']").wait_for()
    assert released(database, pid, "v0.2") == adjudicated == released(database, pid, "v0.1") + 1
    expect(page.locator("article[data-version='v0.2']")).to_contain_text(
        f"{adjudicated} of {total} documents")
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Release).where(
            Release.project_id == pid)) == 2

    # 5. ana: the work she has left, and the way back into it.
    page.context.clear_cookies()
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/my")
    with database.session() as session:
        ana = session.scalar(select(User.id).where(User.username == "ana"))
        statuses = session.scalars(select(Assignment.status).join(Document).where(
            in_project, Assignment.user_id == ana)).all()
        next_up = next_to_do(session, ana)
        next_doc = session.get(Assignment, next_up).document.external_id
    cells = page.locator(f"#my-progress tr[data-project='{PROJECT}'] td").all_inner_texts()
    assert cells[1:5] == [f"{statuses.count('done')} of {len(statuses)}",
                          str(statuses.count("in_progress")), str(statuses.count("assigned")),
                          str(statuses.count("skipped"))]
    assert statuses.count("in_progress") + statuses.count("assigned") > 0
    click_to_load(page, "a.next-up")
    assert page.url.endswith(f"/assignments/{next_up}")
    page.wait_for_selector("#annotate[data-ready='1']")
    assert next_doc == "demo-07"  # where the README's tour says she left off
    assert errors == []
