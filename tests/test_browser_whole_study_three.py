"""Issue 43's done-when: a whole study driven in Chromium with three annotators, every
count and state a page shows checked against the database, page by page.

The lead creates the project on the web page, imports four real InfoLossQA pairs, assigns
each to three annotators and has them pre-highlighted (a worker thread, as `annotator
serve` keeps one, with the real alignment engine and embedding model). Three annotators
work in their own browsers: accept a deletion suggestion and answer it, dismiss one, mark
done, skip. The lead reads the project page, the data manager, the agreement report and
the adjudication queue, adjudicates the document all three finished, and cuts a release.
No sleeps: every wait is on a condition."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from annotator.adjudication.store import is_ready
from annotator.agreement.store import bootstrap_settings
from annotator.models import (
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    Edit,
    Project,
    Suggestion,
    SuggestionAction,
    User,
)
from annotator.operations.worker import start_in_thread
from annotator.releases import list_releases
from annotator.study.accounts import create_user
from tests.browser_helpers import click_to_load, eventually, wait_for, wait_saved, watch_errors
from tests.conftest import PASSWORD, login_with_form
from tests.helpers import infolossqa_pairs, write_jsonl

pytestmark = pytest.mark.browser
ANNOTATORS = ("ana", "ben", "cam")
LOW_PRIORITY = {"insertion", "trailing_noise"}  # hidden at first (static/js/suggestions.js)
# What each annotator does with each document: the one with the most deletion suggestions
# becomes "ready" (all three finish it, two accept a deletion, one dismisses it), the others
# "partly skipped", "skipped" (by all three) and "not started" (nobody opens it).
PLAN = {
    "ana": {"partly": "done", "ready": "accept", "skipped": "skip"},
    "ben": {"partly": "done", "ready": "accept", "skipped": "skip"},
    "cam": {"partly": "skip", "ready": "dismiss", "skipped": "skip"},
}


def _person(chromium, live_server, username):
    context = chromium.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    login_with_form(page, live_server, username)
    return context, page


def _text_cells(row) -> list[str]:
    return [t.strip() for t in row.locator("td").all_inner_texts()]


def _assignment(session, pid: int, username: str, external_id: str) -> Assignment:
    return session.scalar(select(Assignment).join(Document).join(User).where(
        Document.project_id == pid, Document.external_id == external_id,
        User.username == username))


def _open_suggestions(session, assignment: Assignment) -> list[Suggestion]:
    acted = set(session.scalars(select(SuggestionAction.suggestion_id).where(
        SuggestionAction.user_id == assignment.user_id)))
    return [s for s in session.scalars(select(Suggestion).where(
        Suggestion.document_id == assignment.document_id).order_by(Suggestion.id))
        if s.id not in acted]


def _shown_to_review(suggestions: list[Suggestion]) -> int:
    """What the card counts: open suggestions with a kind switched on (the low-priority
    kinds start hidden; a box with two kinds shows while either is on)."""
    return sum(1 for s in suggestions
               if {s.kind, *(s.kind_scores or {})} - LOW_PRIORITY)


def _finish(page, status: str) -> None:
    """Mark done (through the unreviewed-suggestions warning) or skip, on the page."""
    if status == "skipped":
        page.click("#btn-skip")
    else:
        page.click("#btn-done")
        wait_for(page, "document.getElementById('status').textContent === 'done' || "
                       "[...document.querySelectorAll('#missing button')].some("
                       "(b) => b.textContent.startsWith('Mark done anyway'))", timeout=20)
        anyway = page.locator("#missing button", has_text="Mark done anyway")
        if anyway.count():
            anyway.click()
    expect(page.locator("#status")).to_have_text(status)


def _annotate(page, live_server, database, pid, username, external_id, action) -> None:
    with database.session() as session:
        assignment = _assignment(session, pid, username, external_id)
        aid = assignment.id
        waiting = _open_suggestions(session, assignment)
    page.goto(f"{live_server}/assignments/{aid}")
    page.wait_for_selector("#annotate[data-ready='1']")
    hint = page.locator("#suggestion-card p.hint")
    # The page's count is the database's: open suggestions of the kinds shown.
    assert hint.get_attribute("data-open") == str(_shown_to_review(waiting))
    for toggle in page.locator("#kind-toggles label.kind-toggle").all():
        kind = toggle.locator("input").get_attribute("data-kind")
        assert int(toggle.locator(".count").inner_text()) == sum(
            1 for s in waiting if kind in {s.kind, *(s.kind_scores or {})})
    if action in ("accept", "dismiss"):
        # Deletions only: switch the other kinds off, then take the first one.
        for box in page.locator("#kind-toggles input").all():
            if box.get_attribute("data-kind") != "deletion" and box.is_checked():
                box.uncheck()
        page.keyboard.press("j")
        expect(page.locator("#suggestion-card .kind-badge")).to_contain_text("Deletion")
        if action == "accept":
            page.keyboard.press("a")
            wait_for(page, "document.activeElement.dataset.field === 'question'")
            page.keyboard.type("What did the original say here?")
            page.fill("#edit-form [data-field=answer]", "The detail the summary left out.")
            wait_saved(page)
        else:
            page.keyboard.press("x")

        def acted() -> int:
            with database.session() as session:
                return session.scalar(select(func.count(SuggestionAction.id)).where(
                    SuggestionAction.user_id == session.get(Assignment, aid).user_id,
                    SuggestionAction.suggestion_id.in_([s.id for s in waiting])))
        assert eventually(acted, 1, timeout=10) == 1
    _finish(page, "skipped" if action == "skip" else "done")
    with database.session() as session:
        assignment = session.get(Assignment, aid)
        assert assignment.status == ("skipped" if action == "skip" else "done")
        left = _open_suggestions(session, assignment)
    # Finished: what is left is "not acted on", never "to review".
    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    card = page.locator("#suggestion-card").inner_text()
    assert "suggestions to review" not in card and "suggestion to review" not in card
    if left:
        assert f"with {len(left)} suggestion" in card and "not acted on" in card


def test_a_whole_study_with_three_annotators_says_what_is_stored(
        chromium, live_server, app, database, users, tmp_path, release_worker):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    with database.session() as session:
        create_user(session, "cam", PASSWORD, "annotator")
        session.commit()
    records = infolossqa_pairs(4)
    ids = [r["id"] for r in records]
    source_file = write_jsonl(tmp_path / "infolossqa.jsonl", records)
    lead_context, lead = _person(chromium, live_server, "lee")
    errors = watch_errors(lead)

    # The lead creates the project, imports, assigns three per document.
    lead.click("nav >> text=Projects")
    click_to_load(lead, "#new-project")
    lead.fill("#project-name", "three study")
    lead.select_option("#schema-builtin", "infolossqa")
    lead.fill("#per-doc", "3")
    click_to_load(lead, "#create-project")
    with database.session() as session:
        pid = session.scalar(select(Project.id).where(Project.name == "three study"))
    lead.set_input_files("#import-files", str(source_file))
    click_to_load(lead, "#import-form button[type=submit]")
    with database.session() as session:
        stored_documents = session.scalar(select(func.count(Document.id)).where(
            Document.project_id == pid))
    assert stored_documents == 4
    expect(lead.locator(".flash.ok")).to_contain_text(
        f"Imported {stored_documents} new documents from infolossqa.jsonl")
    expect(lead.locator("#import")).to_contain_text(f"{stored_documents} documents so far")
    for name in ANNOTATORS:
        lead.check(f"#assign-form input[value={name}]")
    lead.fill("#per-document", "3")
    click_to_load(lead, "#assign-form button[type=submit]")
    with database.session() as session:
        held = dict(session.execute(select(User.username, func.count(Assignment.id))
                                    .join(Assignment).join(Document)
                                    .where(Document.project_id == pid)
                                    .group_by(User.username)).all())
    assert held == {name: 4 for name in ANNOTATORS}
    expect(lead.locator("#assign-load")).to_have_text(
        "Now: " + ", ".join(f"{n} holds {held[n]}" for n in ANNOTATORS) + ".")

    # Pre-highlighting: the page follows the worker to the stored count.
    worker, _ = start_in_thread(database, poll_seconds=0.2, kinds=("prehighlight",))
    try:
        expect(lead.locator("#prehighlight-count")).to_have_text(
            "4 of 4 documents pre-highlighted", timeout=300_000)
        expect(lead.locator("#prehighlight")).to_have_attribute("data-state", "idle")
    finally:
        worker.stop()
    with database.session() as session:
        marked = session.scalar(select(func.count(Document.id)).where(
            Document.project_id == pid, Document.prehighlighted_at.is_not(None)))
        suggestions = session.scalar(select(func.count(Suggestion.id)).join(Document).where(
            Document.project_id == pid))
        deletions = dict(session.execute(
            select(Document.external_id, func.count(Suggestion.id)).join(Suggestion)
            .where(Document.project_id == pid, Suggestion.kind == "deletion")
            .group_by(Document.external_id)).all())
    assert marked == 4
    expect(lead.locator("#prehighlight-message")).to_contain_text(
        f"pre-highlighted 4 documents ({suggestions} suggestions)")
    assert lead.locator("#prehighlight-message time").get_attribute("datetime")
    assert lead.locator("#prehighlight-start").is_disabled()
    assert lead.locator("#prehighlight-start").get_attribute("title") == \
        "Every document (4) is pre-highlighted already."
    assert deletions, "the engine found no deletion in any document"
    ready_doc = max(ids, key=lambda i: (deletions.get(i, 0), -ids.index(i)))
    others = [i for i in ids if i != ready_doc]
    role = {"ready": ready_doc, "partly": others[0], "skipped": others[1], "untouched": others[2]}

    # Three annotators, each in their own browser.
    for name in ANNOTATORS:
        context, page = _person(chromium, live_server, name)
        person_errors = watch_errors(page)
        for which, action in PLAN[name].items():
            _annotate(page, live_server, database, pid, name, role[which], action)
        page.goto(f"{live_server}/my")
        with database.session() as session:
            mine = dict(session.execute(select(Assignment.status, func.count(Assignment.id))
                                        .join(User).where(User.username == name)
                                        .group_by(Assignment.status)).all())
        cells = _text_cells(page.locator("#my-progress tr[data-project='three study']"))
        assert cells[1:5] == [f"{mine.get('done', 0)} of 4", str(mine.get("in_progress", 0)),
                              str(mine.get("assigned", 0)), str(mine.get("skipped", 0))]
        assert person_errors == []
        context.close()

    # The project page: progress per annotator, the agreement summary, the resamples.
    lead.goto(f"{live_server}/projects/{pid}")
    with database.session() as session:
        by_status = {}
        for username, status, count in session.execute(
                select(User.username, Assignment.status, func.count(Assignment.id))
                .join(Assignment).join(Document).where(Document.project_id == pid)
                .group_by(User.username, Assignment.status)):
            by_status.setdefault(username, {})[status] = count
        edits = session.scalar(select(func.count(Edit.id)).join(Assignment).join(Document)
                               .where(Document.project_id == pid))
        resamples = bootstrap_settings(session.get(Project, pid))["bootstrap"]
    for name in ANNOTATORS:
        counts = by_status[name]
        cells = _text_cells(lead.locator(f"#progress tr[data-annotator={name}]"))
        assert cells[1:6] == [str(sum(counts.values())), str(counts.get("assigned", 0)),
                              str(counts.get("in_progress", 0)), str(counts.get("done", 0)),
                              str(counts.get("skipped", 0))], (name, cells)
    summary = lead.locator("#agreement-summary .meta").first.inner_text()
    assert f"· {edits} edits ·" in summary and edits == 2
    assert f"95% intervals from {resamples:,} bootstrap resamples" in summary

    # The data manager: each document's status from its assignments.
    click_to_load(lead, "#project-nav >> text=Documents (data manager)")
    expected = {role["partly"]: "partly skipped", role["ready"]: "ready",
                role["skipped"]: "skipped", role["untouched"]: "not started"}
    with database.session() as session:
        for external_id, status in expected.items():
            held = session.scalars(select(Assignment.status).join(Document).where(
                Document.project_id == pid, Document.external_id == external_id)).all()
            assert (status == "ready") == (set(held) == {"done"}), (external_id, held)
            assert (status == "skipped") == (set(held) == {"skipped"}), (external_id, held)
    for external_id, status in expected.items():
        expect(lead.locator(f"#data-manager tr[data-document='{external_id}']")).to_have_attribute(
            "data-status", status)
    expect(lead.locator("p.meta").first).to_contain_text(
        "4 documents: 0 unassigned, 1 not started, 0 in progress, 1 skipped, 1 partly skipped, "
        "1 ready, 0 adjudicated")

    # The agreement report's pre-highlighter table against the stored suggestions and actions.
    lead.goto(f"{live_server}/projects/{pid}/agreement")
    with database.session() as session:
        per_kind = dict(session.execute(select(Suggestion.kind, func.count(Suggestion.id))
                                        .join(Document).where(Document.project_id == pid)
                                        .group_by(Suggestion.kind)).all())
        actions = dict(session.execute(
            select(SuggestionAction.action, func.count(SuggestionAction.id))
            .join(Suggestion, Suggestion.id == SuggestionAction.suggestion_id).join(Document)
            .where(Document.project_id == pid, Suggestion.kind == "deletion")
            .group_by(SuggestionAction.action)).all())
    for kind, count in per_kind.items():
        cells = _text_cells(lead.locator(f"#agreement-report tr[data-kind='{kind}']"))
        suggested, reviews, accepted, dismissed, open_ = (int(c) for c in cells[1:6])
        assert suggested == count and reviews == 3 * count
        assert accepted + dismissed + open_ == reviews
        if kind == "deletion":
            assert (accepted, dismissed) == (actions.get("accepted", 0),
                                             actions.get("dismissed", 0)) == (2, 1)

    # The adjudication queue lists the one ready document; adjudicate it.
    lead.goto(f"{live_server}/projects/{pid}/adjudicate")
    with database.session() as session:
        ready = [d.external_id for d in session.scalars(select(Document).where(
            Document.project_id == pid)) if is_ready(list(d.assignments))]
    assert ready == [role["ready"]]
    rows = lead.locator("#adjudication-queue tbody tr")
    assert [r.get_attribute("data-document") for r in rows.all()] == ready
    with database.session() as session:
        ready_id = session.scalar(select(Document.id).where(
            Document.project_id == pid, Document.external_id == role["ready"]))
    lead.goto(f"{live_server}/projects/{pid}/adjudicate/{ready_id}")
    lead.locator("#adj-units [data-unit], #adj-unmatched [data-unit]").first.wait_for()
    reopen = lead.locator("#adj-reopen")
    wait_for(lead, "document.getElementById('adj-reopen').title !== ''")
    assert reopen.is_disabled() and "Not adjudicated yet" in reopen.get_attribute("title")
    lead.locator("#adj-auto:not([disabled])").wait_for()
    lead.click("#adj-auto")
    while lead.locator("#adj-complete[disabled]").count():
        undecided = lead.locator(".unit.undecided button.accept")
        assert undecided.count(), lead.locator("#adj-status").inner_text()
        before = lead.locator(".unit.undecided").count()
        undecided.first.click()
        wait_for(lead, f"document.querySelectorAll('.unit.undecided').length < {before}")
    with database.session() as session:
        open_total = session.scalar(select(AdjudicationQueueEntry.open_total).where(
            AdjudicationQueueEntry.document_id == ready_id))
    assert open_total == 0
    lead.click("#adj-complete")
    lead.locator("#adj-status", has_text="Adjudicated").wait_for()
    with database.session() as session:
        assert session.scalar(select(AdjudicationState.status).where(
            AdjudicationState.document_id == ready_id)) == "complete"
    assert reopen.is_enabled() and reopen.get_attribute("title") is None

    # The data manager now says adjudicated, with the queue's open decisions.
    lead.goto(f"{live_server}/projects/{pid}/documents")
    row = lead.locator(f"#data-manager tr[data-document='{role['ready']}']")
    expect(row).to_have_attribute("data-status", "adjudicated")
    assert _text_cells(row)[6] == "0"

    # A release: the suggested version, the counts, the time, then the next suggestion.
    lead.goto(f"{live_server}/projects/{pid}/releases")
    assert lead.locator("#release-version").input_value() == "v1.0"
    click_to_load(lead, "#release-form button[type=submit]")
    article = lead.locator("article[data-version='v1.0']")
    article.wait_for(timeout=120_000)
    with database.session() as session:
        (manifest,) = list_releases(session, session.get(Project, pid))
    counts = manifest["counts"]
    text = article.inner_text()
    assert (counts["documents_released"], counts["documents_in_project"],
            counts["documents_excluded"]) == (1, 4, 3)
    assert f"{counts['documents_released']} of {counts['documents_in_project']} documents" in text
    assert f"{counts['documents_excluded']} excluded" in text
    assert article.locator("h2 time").get_attribute("datetime")
    article.locator("h2 time[data-local]").wait_for()  # local_time.js has rewritten it
    assert not re.search(r"\d{4}-\d\d-\d\dT", article.locator("h2").inner_text())
    assert lead.locator("#release-version").input_value() == "v1.1"
    assert errors == []
    lead_context.close()
