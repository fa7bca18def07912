"""A lead resolves a disagreement in the browser and cuts a release (Debian's Chromium
through Playwright). The README screenshot comes from a clean document, in
test_browser_adjudicate_workbench.py."""

from __future__ import annotations

import json

import pytest

from annotator.models import Document, Project, Suggestion
from annotator.releases import release_file
from tests.adjudication_fixtures import TARGET
from tests.conftest import browser_login

pytestmark = pytest.mark.browser
PAYLOAD = " <script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"


@pytest.fixture
def browser_study(app, database, qa_study):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    with database.session() as session:
        q1 = session.get(Document, qa_study["docs"]["q1"])
        q1.target = TARGET + PAYLOAD  # untrusted model output after every marked span
        start = q1.source.index("placebo-controlled")
        session.add(Suggestion(document_id=q1.id, kind="deletion", method="content_classes",
                               score=0.7, explanation="study-design term missing",
                               source_spans=[[start, start + len("placebo-controlled")]],
                               target_spans=[]))
    return qa_study


def test_lead_resolves_a_disagreement_then_cuts_a_release(browser_study, live_server, page,
                                                          database, release_worker):
    pid = browser_study["project_id"]
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{pid}")
    page.click("#project-nav >> text=Adjudication queue")
    rows = page.locator("#adjudication-queue tbody tr")
    assert rows.first.get_attribute("data-document") == "q1"  # least agreement first
    rows.first.locator("text=Adjudicate").click()

    unit = page.locator("#adj-units [data-unit]").first
    unit.wait_for()
    assert unit.locator(".edit").count() == 2
    assert page.locator("#text-source .seg.marked").count() >= 2
    assert page.locator("#text-source .seg.pre").count() == 1
    assert PAYLOAD.strip() in page.locator("#text-target").inner_text()
    assert page.evaluate("window.__pwned") is None
    assert "2 decision(s) open" in page.locator("#adj-status").inner_text()

    unit.locator("input.note").fill("ben's question is the plainer one")
    unit.locator("text=Accept ben's").click()
    page.locator("#adj-units .unit.decided").wait_for()
    decided = page.locator("#adj-units .unit.decided").inner_text()
    assert "Decided: accept ben's edit by lee" in decided

    page.locator("#adj-unmatched [data-unit] >> text=Reject").click()
    page.locator("#adj-unmatched .unit.decided").wait_for()
    page.locator("#adj-complete:not([disabled])").wait_for()  # CSP: no string evaluation
    page.click("#adj-complete")
    page.locator("#adj-status", has_text="Adjudicated (round 1)").wait_for()
    kinds = page.locator("#adj-history li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds == ["regroup", "accept", "reject", "complete"]

    page.click("text=Releases")
    page.fill("input[name=version]", "v1")
    page.fill("input[name=notes]", "first adjudicated document")
    page.click("#release-form button[type=submit]")
    # Queued, built by a worker, and shown when stored (the page follows the job).
    assert "Release v1 queued" in page.locator(".flash").inner_text()
    page.locator("article[data-version=v1]").wait_for()
    assert "1 of 3 documents" in page.locator("article[data-version=v1]").inner_text()
    assert "2 excluded" in page.locator("article[data-version=v1]").inner_text()
    assert page.locator(".release-pending").count() == 0
    assert page.locator("article[data-version=v1] a", has_text="gold.jsonl").count() == 1
    with database.session() as session:
        project = session.get(Project, pid)
        gold = release_file(session, project, "v1", "gold.jsonl").decode()
        manifest = json.loads(release_file(session, project, "v1", "MANIFEST.json"))
    (record,) = [json.loads(x) for x in gold.splitlines()]
    assert record["id"] == "q1"
    assert record["edits"][0]["fields"]["question"] == "What dose did patients receive?"
    assert manifest["notes"] == "first adjudicated document"
