"""The lead's data manager: rows, search, filters, sort, and bulk actions that change all or
nothing (on the real database: SQLite file, or PostgreSQL when configured)."""

from __future__ import annotations

import json

from sqlalchemy import select

from annotator.models import Assignment, AuditEvent, Document, User
from annotator.operations import work
from annotator.study.accounts import create_user
from annotator.study.queue_marks import document_changed
from annotator.web.formatting import duration
from tests.conftest import PASSWORD, csrf_token, login
from tests.helpers import row_counts


def rows_of(page: str) -> list[str]:
    return [chunk.split('"', 1)[0] for chunk in page.split('<tr data-document="')[1:]]


def test_duration_reads_as_people_say_it():
    assert duration(0) == "0 s"
    assert duration(40.4) == "40 s"
    assert duration(725) == "12 min 5 s"
    assert duration(3600 + 180 + 9) == "1 h 3 min"
    assert duration(None) == "0 s"


def test_rows_status_agreement_open_decisions_and_time(client, qa_study, database):
    with work.session(database) as session:  # a writer's change: marked, settled
        q3 = session.scalar(select(Assignment).join(Document).join(User).where(
            Document.external_id == "q3", User.username == "ana"))
        q3.seconds_spent = 725
        document_changed(session, q3.document_id)
    login(client, "lee")
    page = client.get(f"/projects/{qa_study['project_id']}/documents").get_data(as_text=True)
    assert rows_of(page) == ["q1", "q2", "q3"]
    q1 = page.split('data-document="q1"', 1)[1].split("</tr>", 1)[0]
    assert 'data-status="ready"' in q1 and "ana · done" in q1 and "ben · done" in q1
    assert "Adjudicate" in q1
    assert ">0.50<" in q1  # one unit both marked, one only ben marked
    q3_row = page.split('data-document="q3"', 1)[1].split("</tr>", 1)[0]
    assert 'data-status="not started"' in q3_row and "12 min 5 s" in q3_row
    assert "2 ready, " in page


def test_search_filter_and_sort(client, qa_study):
    login(client, "lee")
    base = f"/projects/{qa_study['project_id']}/documents"
    assert rows_of(client.get(f"{base}?q=Q2").get_data(as_text=True)) == ["q2"]
    assert rows_of(client.get(f"{base}?status=ready").get_data(as_text=True)) == ["q1", "q2"]
    # Least agreement first when sorting by agreement; q3 (no value yet) comes last.
    by_agreement = client.get(f"{base}?sort=agreement").get_data(as_text=True)
    assert rows_of(by_agreement) == ["q1", "q2", "q3"]
    assert rows_of(client.get(f"{base}?sort=agreement&dir=desc").get_data(as_text=True)) == \
        ["q2", "q1", "q3"]
    assert rows_of(client.get(f"{base}?sort=document&dir=desc").get_data(as_text=True)) == \
        ["q3", "q2", "q1"]
    page = client.get(f"{base}?sort=nonsense&status=nonsense").get_data(as_text=True)
    assert rows_of(page) == ["q1", "q2", "q3"]


def bulk(client, project_id, action, docs, **form):
    token = csrf_token(client, f"/projects/{project_id}/documents")
    return client.post(f"/projects/{project_id}/documents/bulk",
                       data={"csrf_token": token, "action": action, "doc": docs, **form},
                       follow_redirects=True)


def test_bulk_assign_reassign_reopen(client, qa_study, database):
    pid, docs = qa_study["project_id"], qa_study["docs"]
    with database.session() as session:
        create_user(session, "cy", PASSWORD, "annotator")
        create_user(session, "dee", PASSWORD, "annotator")
    login(client, "lee")
    page = bulk(client, pid, "assign", [docs["q3"]], to="cy").get_data(as_text=True)
    assert "1 document(s) assigned to cy." in page
    page = bulk(client, pid, "reassign", [docs["q3"]],
                **{"from": "cy", "to": "dee"}).get_data(as_text=True)
    assert "1 document(s) moved from cy to dee." in page
    page = bulk(client, pid, "reopen", [docs["q1"], docs["q3"]],
                **{"from": "ana"}).get_data(as_text=True)
    assert "1 assignment(s) reopened." in page
    with database.session() as session:
        held = {(a.document.external_id, a.user.username): a.status
                for a in session.scalars(select(Assignment))}
        assert held[("q3", "dee")] == "assigned" and ("q3", "cy") not in held
        assert held[("q1", "ana")] == "in_progress" and held[("q1", "ben")] == "done"
        kinds = [e.action for e in session.scalars(select(AuditEvent).order_by(AuditEvent.id))]
        assert "documents.reassigned" in kinds


def test_refused_bulk_action_changes_nothing_and_says_why(client, qa_study, database):
    pid, docs = qa_study["project_id"], qa_study["docs"]
    with database.session() as session:
        create_user(session, "cy", PASSWORD, "annotator")
    login(client, "lee")
    with database.session() as session:
        before = row_counts(session)
    # ana started q1 and q2: moving started work is refused for the whole selection.
    page = bulk(client, pid, "reassign", [docs["q3"], docs["q1"]],
                **{"from": "ana", "to": "cy"}).get_data(as_text=True)
    assert "Not done: reassign refused, nothing changed: q1: ana has started it (done)" in page
    page = bulk(client, pid, "assign", [docs["q1"], docs["q3"]], to="ben").get_data(as_text=True)
    assert "q1: ben holds it already; q3: ben holds it already" in page
    page = bulk(client, pid, "assign", [], to="cy").get_data(as_text=True)
    assert "no document chosen" in page
    page = bulk(client, pid, "assign", [docs["q1"]], to="nobody").get_data(as_text=True)
    assert "no active user named &#39;nobody&#39;" in page
    page = bulk(client, pid, "reopen", [docs["q3"]]).get_data(as_text=True)
    assert "none of the chosen documents is done" in page
    page = bulk(client, pid, "assign", [999999], to="cy").get_data(as_text=True)
    assert "999999 are not in project qa" in page
    with database.session() as session:
        assert row_counts(session) == before
        assert session.scalar(select(Assignment).join(User).where(User.username == "cy")) is None


def test_export_selection_is_jsonl_of_the_chosen_documents(client, qa_study):
    pid, docs = qa_study["project_id"], qa_study["docs"]
    login(client, "lee")
    token = csrf_token(client, f"/projects/{pid}/documents")
    response = client.post(f"/projects/{pid}/documents/bulk", data={
        "csrf_token": token, "action": "export", "doc": [docs["q1"]]})
    assert response.status_code == 200
    assert "qa-selection.jsonl" in response.headers["Content-Disposition"]
    records = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    held = sorted((r["document_id"], r["annotator"]) for r in records)
    assert held == [("q1", "ana"), ("q1", "ben")]
    assert {len(r["edits"]) for r in records} == {1, 2}


def test_bulk_without_csrf_is_refused(client, qa_study):
    login(client, "lee")
    response = client.post(f"/projects/{qa_study['project_id']}/documents/bulk",
                           data={"action": "assign", "doc": [qa_study["docs"]["q3"]], "to": "ana"})
    assert response.status_code == 400
