"""Issue 43, item 2: every figure a lead's page shows comes from the computation the report
and the database use. Each test reads a page (Flask test client on a real SQLite file) and
compares what it says with what is stored: the project page's resample count and skipped
column, the agreement page's pre-highlighter table and sentence-alpha wording, the data
manager's status of skipped documents, the releases page's suggested version; plus the
pieces behind the look (times as <time>, heading-only sentences unnumbered) and the
pre-highlight progress that moves document by document."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.agreement.names import describe
from annotator.agreement.store import bootstrap_settings, save_agreement_settings
from annotator.align.store import prehighlight_project
from annotator.align.text import split_sentences
from annotator.cli import main
from annotator.models import (
    Assignment,
    Document,
    Job,
    Project,
    Release,
    Suggestion,
    SuggestionAction,
    User,
)
from annotator.operations import work
from annotator.releases.browse import next_free_version
from annotator.study.queue_marks import document_changed
from annotator.web.documents import sentence_texts
from annotator.web.formatting import local_time
from tests.adjudication_fixtures import release
from tests.conftest import login, run_queued_jobs
from tests.test_live_agreement import complete_with_deletion


def _cells(page: str, row_attr: str) -> list[str]:
    row = re.search(rf"<tr {row_attr}>(.*?)</tr>", page, re.S)
    assert row, f"no row {row_attr}"
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>",
                                                                  row.group(1), re.S)]


def test_the_project_page_says_the_resamples_its_intervals_used(client, study, database):
    """It said "200 bootstrap resamples" (a constant in the template) while the report used
    the project's 1,000; now both come from the project's setting."""
    login(client, "lee")
    complete_with_deletion(database, [study["assignments"]["ana"][0],
                                      study["assignments"]["ben"][0]], 18, 27)
    url = f"/projects/{study['project_id']}"
    with database.session() as session:
        stored = bootstrap_settings(session.get(Project, study["project_id"]))
    page = client.get(url).get_data(as_text=True)
    shown = re.search(r'id="agreement-resamples">([\d,]+)<', page).group(1)
    assert int(shown.replace(",", "")) == stored["bootstrap"] == 1000
    report = client.get(f"{url}/agreement").get_data(as_text=True)
    assert f"document bootstrap, {stored['bootstrap']} resamples" in report
    assert '<span id="agreement-bootstrap">1,000 resamples, seed 0</span>' in report

    with database.session() as session:
        save_agreement_settings(session.get(Project, study["project_id"]), bootstrap=300,
                                seed=7)
        session.commit()
    page = client.get(url).get_data(as_text=True)
    assert re.search(r'id="agreement-resamples">([\d,]+)<', page).group(1) == "300"
    assert "(seed 7)" in page
    assert "document bootstrap, 300 resamples, seed 7" in client.get(
        f"{url}/agreement").get_data(as_text=True)


def test_sentence_alpha_says_which_side_it_measures():
    source = describe("spans.source.sentence_alpha.binary")
    target = describe("spans.target.sentence_alpha.binary")
    assert source["title"].endswith(", original") and "per original sentence" in source["about"]
    assert target["title"].endswith(", simplification")
    assert "per simplification sentence" in target["about"]
    assert "original" not in target["about"] and "evidence" not in target["about"]
    assert "per simplification sentence" in describe("spans.target.sentence_alpha.masi")["about"]


def test_the_pre_highlighter_table_adds_up(client, study, database, users, env):
    """Three annotators on one document with three suggestions: two accept the first, two
    dismiss the second, nobody acts on the third. The table said 3 suggestions beside
    2 accepted + 2 dismissed; now the page, the JSON report and the command's summary all
    say accepted + dismissed + not acted on = reviews (suggestions x annotators)."""
    with database.session() as session:
        cam = User(username="cam", password_hash=session.get(User, users["ana"]).password_hash,
                   role="annotator")
        session.add(cam)
        first = session.scalar(select(Assignment).where(
            Assignment.id == study["assignments"]["ana"][0])).document
        session.add(Assignment(document=first, user=cam))
        made = [Suggestion(document_id=first.id, method="t", score=0.9, explanation="e",
                           kind="deletion", source_spans=[[0, 5]], target_spans=[])
                for _ in range(3)]
        session.add_all(made)
        session.flush()
        for name, suggestion, action in (("ana", 0, "accepted"), ("ben", 0, "accepted"),
                                         ("cam", 1, "dismissed"), ("ana", 1, "dismissed")):
            user_id = cam.id if name == "cam" else users[name]
            session.add(SuggestionAction(suggestion_id=made[suggestion].id, user_id=user_id,
                                         action=action))
        session.commit()
        holders = session.scalar(select(func.count(Assignment.id)).where(
            Assignment.document_id == first.id))
        actions = dict(session.execute(select(SuggestionAction.action,
                                              func.count(SuggestionAction.id))
                                       .group_by(SuggestionAction.action)).all())
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}/agreement").get_data(as_text=True)
    cells = _cells(page, "data-kind='deletion'")
    suggestions, reviews, accepted, dismissed, open_, precision = cells[1:]
    assert int(suggestions) == 3 and int(reviews) == 3 * holders == 9
    assert int(accepted) == actions["accepted"] and int(dismissed) == actions["dismissed"]
    assert int(accepted) + int(dismissed) + int(open_) == int(reviews)
    assert float(precision) == 0.5
    result = CliRunner().invoke(main, ["agreement", "trial", "--no-embeddings",
                                       "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    assert (f"pre-highlighter deletion: precision 0.500 ({accepted} accepted, {dismissed} "
            f"dismissed, {open_} not acted on: {reviews} reviews of {suggestions} "
            "suggestions)") in result.output
    result = CliRunner().invoke(main, ["agreement", "trial", "--no-embeddings", "--json",
                                       "--bootstrap", "20"])
    entry = json.loads(result.output)["prehighlighters"]["deletion"]
    assert entry == {"suggestions": 3, "reviews": 9, "accepted": 2, "dismissed": 2, "open": 5,
                     "precision": 0.5}


def test_the_data_manager_says_skipped_when_everyone_skipped(client, study, database):
    ana, ben = study["assignments"]["ana"], study["assignments"]["ben"]
    with database.session() as session:
        for assignment_id, status in ((ana[0], "skipped"), (ben[0], "skipped"),
                                      (ana[1], "done"), (ben[1], "skipped"),
                                      (ana[2], "in_progress")):
            changed = session.get(Assignment, assignment_id)
            changed.status = status
            document_changed(session, changed.document_id)  # as the status writer does
        work.commit(session)
        statuses = {}
        for document in session.scalars(select(Document).order_by(Document.position)):
            statuses[document.external_id] = sorted(a.status for a in document.assignments)
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}/documents").get_data(as_text=True)
    shown = dict(re.findall(r'<tr data-document="([^"]+)" data-status="([^"]+)">', page))
    expected = {}
    for external_id, held in statuses.items():
        if set(held) == {"skipped"}:
            expected[external_id] = "skipped"
        elif set(held) == {"done", "skipped"}:
            expected[external_id] = "partly skipped"
        else:
            expected[external_id] = "in progress"
    assert shown == expected
    assert sorted(shown.values()) == ["in progress", "partly skipped", "skipped"]
    assert "3 documents: 0 unassigned, 0 not started, 1 in progress, 1 skipped, " \
           "1 partly skipped, 0 ready, 0 adjudicated" in page
    # The skipped filter lists exactly the documents everyone skipped.
    filtered = client.get(f"/projects/{study['project_id']}/documents?status=skipped")
    assert re.findall(r'<tr data-document="([^"]+)"', filtered.get_data(as_text=True)) == [
        k for k, v in expected.items() if v == "skipped"]


def test_the_progress_table_counts_every_status(client, study, database):
    ana = study["assignments"]["ana"]
    with database.session() as session:
        session.get(Assignment, ana[0]).status = "skipped"
        session.get(Assignment, ana[1]).status = "done"
        session.commit()
        stored = dict(session.execute(select(Assignment.status, func.count(Assignment.id))
                                      .join(User).where(User.username == "ana")
                                      .group_by(Assignment.status)).all())
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}").get_data(as_text=True)
    head = re.search(r'<table class="grid" id="progress">\s*<thead><tr>(.*?)</tr>', page, re.S)
    columns = re.findall(r"<th>([^<]*)</th>", head.group(1))
    cells = dict(zip(columns, _cells(page, 'data-annotator="ana"')))
    assert int(cells["Documents"]) == sum(stored.values()) == 3
    assert int(cells["Not started"]) == stored.get("assigned", 0)
    assert int(cells["Done"]) == stored["done"] and int(cells["Skipped"]) == stored["skipped"]


def test_the_releases_page_suggests_the_next_free_version(client, adjudicated, database):
    login(client, "lee")
    url = f"/projects/{adjudicated['project_id']}/releases"

    def suggested() -> str:
        page = client.get(url).get_data(as_text=True)
        return re.search(r'id="release-version" value="([^"]*)"', page).group(1)

    assert suggested() == "v1.0"
    release(database, adjudicated, version="v1.0")
    assert suggested() == "v1.1"
    release(database, adjudicated, version="v1.1")
    with database.session() as session:
        stored = set(session.scalars(select(Release.version)))
    assert stored == {"v1.0", "v1.1"} and suggested() == "v1.2"


def test_next_free_version_skips_taken_names():
    assert next_free_version([], set()) == "v1.0"
    assert next_free_version(["v1.0"], {"v1.0"}) == "v1.1"
    assert next_free_version(["v2"], {"v2", "v3"}) == "v4"
    assert next_free_version(["v1.9"], {"v1.9"}) == "v1.10"
    assert next_free_version(["2026-05"], {"2026-05"}) == "2026-06"
    assert next_free_version(["final"], {"final"}) == "final.1"
    assert next_free_version([], {"v1.0"}) == "v1.1"


def test_next_free_version_ends_on_any_versions():
    """Versions from rows changed by hand (a poisoned release job) or at the length limit:
    an answer, never an endless search (it hung the releases page)."""
    assert next_free_version(["bad version!", "v3"], set()) == "v4"
    assert next_free_version(["bad version!"], set()) == "v1.0"
    assert next_free_version(["v" + "9" * 63], set()) == ""  # v1000... is too long
    assert next_free_version(["x" * 64], set()) == ""


def test_stored_times_go_out_as_time_elements_in_utc():
    naive = datetime(2026, 11, 27, 22, 5, 9)  # SQLite keeps no offset: UTC
    assert str(local_time(naive)) == \
        '<time datetime="2026-11-27T22:05:09Z">2026-11-27T22:05:09Z</time>'
    aware = datetime(2026, 11, 27, 23, 5, 9, tzinfo=timezone.utc)
    assert 'datetime="2026-11-27T23:05:09Z"' in str(local_time(aware))
    assert 'datetime="2026-11-27T23:05:09Z"' in str(local_time("2026-11-27T23:05:09+00:00"))
    assert str(local_time(None)) == ""
    assert "&lt;b&gt;" in str(local_time("<b>"))  # not a time: shown as text, escaped


def test_a_heading_on_its_own_line_is_not_numbered_as_a_sentence():
    original = "BACKGROUND:\nOpioid use is high. It stays high.\nMETHODS:\nWe gave ketamine."
    simplified = "Background: Opioid use is high. Methods: We gave a drug."
    numbered = {}
    for name, text in (("original", original), ("simplification", simplified)):
        rows = sentence_texts(text, [list(s) for s in split_sentences(text)])
        numbered[name] = [(r["number"], r["text"]) for r in rows if r["text"].strip()]
    assert numbered["original"] == [(None, "BACKGROUND:"), (1, "Opioid use is high."),
                                    (2, "It stays high."), (None, "METHODS:"),
                                    (3, "We gave ketamine.")]
    assert [n for n, _ in numbered["simplification"]] == [1, 2]


def test_pre_highlight_progress_is_stored_document_by_document(database, study):
    """The set-up page counts stored marks; each progress report now follows the commit of
    its document, so another connection sees the count move one by one (it stalled for a
    whole chunk of 50 and then jumped)."""
    seen = []

    def progress(done: int, total: int) -> None:
        with database.session() as other:
            seen.append((done, total, other.scalar(select(func.count(Document.id)).where(
                Document.prehighlighted_at.is_not(None)))))

    with database.session() as session:
        session.execute(Document.__table__.update().values(prehighlighted_at=None))
        session.commit()
        prehighlight_project(session, session.get(Project, study["project_id"]),
                             progress=progress)
    assert seen == [(1, 3, 1), (2, 3, 2), (3, 3, 3)]


def test_lead_pages_send_stored_times_as_time_elements(client, study, database):
    """The set-up page's last run, the jobs panel and the settings page's last refit: each
    a <time> whose datetime is the stored UTC moment (static/js/local_time.js shows it in
    the reader's time zone), never a bare server-side time."""
    assert run_queued_jobs(database) >= 1  # the import's pre-highlight job, as a worker would
    with database.session() as session:
        project = session.get(Project, study["project_id"])
        project.settings = {**(project.settings or {}), "prehighlight": {
            "last_fit": {"completed": 2, "at": "2026-11-27T21:04:05+00:00"}}}
        session.commit()
        job = session.scalar(select(Job).where(Job.kind == "prehighlight"))
        created, finished = job.created_at, job.finished_at
    assert finished is not None
    login(client, "lee")
    settings = client.get(f"/projects/{study['project_id']}/settings").get_data(as_text=True)
    assert '<dd id="last-fit"><time datetime="2026-11-27T21:04:05Z">' in settings
    setup = client.get(f"/projects/{study['project_id']}/setup").get_data(as_text=True)
    message = re.search(r'id="prehighlight-message"[^>]*>(.*?)</p>', setup, re.S).group(1)
    assert message.startswith("Done: the last run pre-highlighted 3 documents")
    assert f"finished {local_time(finished)}." in message
    overview = client.get(f"/projects/{study['project_id']}").get_data(as_text=True)
    row = re.search(rf'<tr data-job="{job.id}".*?</tr>', overview, re.S).group(0)
    assert str(local_time(created)) in row and str(local_time(finished)) in row
    assert not re.search(r"<td>\d{4}-\d\d-\d\d \d", row)  # no bare server-side time
