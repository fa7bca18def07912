"""The data manager's stored rows and counts (issue 44) equal a fresh computation after
every kind of change: import, assign, start, save time, mark done, skip, reopen, reassign,
tie-break, adjudicate, adjudication reopened, a schema change; the counts per status add up
to the documents; a status filter returns exactly the documents of that status; "My
documents"' stored counts equal the assignments counted. Runs on the SQLite file and on
PostgreSQL (ANNOTATOR_TEST_POSTGRES_URL); the migration's SQL backfill is checked too."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import func, select, update

from annotator.adjudication.queue import project_changed
from annotator.annotate.assignment import assign_documents
from annotator.annotate.bulk import reassign, reopen
from annotator.migrations import downgrade, upgrade
from annotator.models import (
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    AssignmentCount,
    Document,
    Project,
    ProjectMember,
    ProjectStatusCount,
    TieBreakRequest,
)
from annotator.operations import work
from annotator.operations.document_table import STATUSES, document_page
from annotator.study.accounts import create_user
from annotator.study.document_status import add_entries
from annotator.study.projects import create_project
from annotator.study.queue_marks import document_changed
from tests.conftest import PASSWORD
from tests.test_document_table_sql import reference_rows


def _stored(session, project_id: int) -> dict[int, tuple]:
    return {e.document_id: (e.status, e.holders, e.seconds) for e in session.scalars(
        select(AdjudicationQueueEntry).where(AdjudicationQueueEntry.project_id == project_id))}


def check(database, project_id: int) -> Counter:
    """Stored rows and counts against the reference; returns the statuses counted."""
    with database.session() as session:
        reference = reference_rows(session, project_id)
        expected = {r["id"]: (r["status"], ", ".join(r["annotators"]), r["time"])
                    for r in reference}
        assert _stored(session, project_id) == expected
        statuses = Counter(r["status"] for r in reference)
        counts = dict(session.execute(select(ProjectStatusCount.status,
                                             ProjectStatusCount.documents).where(
            ProjectStatusCount.project_id == project_id, ProjectStatusCount.documents != 0)).all())
        assert counts == dict(statuses)
        project = session.get(Project, project_id)
        page = document_page(session, project, page_size=1000)
        assert sum(page.counts.values()) == page.total == len(reference)
        for status in STATUSES:
            shown = document_page(session, project, status=status, page_size=1000)
            assert [r.document.id for r in shown.rows] == [
                r["id"] for r in reference if r["status"] == status]
        held = dict(((u, s), (n, t)) for u, s, n, t in session.execute(
            select(Assignment.user_id, Assignment.status, func.count(),
                   func.sum(Assignment.seconds_spent)).join(Document)
            .where(Document.project_id == project_id)
            .group_by(Assignment.user_id, Assignment.status)))
        stored = {(c.user_id, c.status): (c.assignments, c.seconds) for c in session.scalars(
            select(AssignmentCount).where(AssignmentCount.project_id == project_id,
                                          AssignmentCount.assignments != 0))}
        assert stored == held
        return statuses


def _assignments(session, project_id: int, username: str) -> list[Assignment]:
    return session.scalars(select(Assignment).join(Document).where(
        Document.project_id == project_id, Assignment.user.has(username=username))
        .order_by(Document.position)).all()


def _add_documents(session, project, prefix: str, n: int) -> None:
    """Documents stored through the ORM, with their entries as every writer adds them."""
    added = [Document(project_id=project.id, external_id=f"{prefix}{i}", source=f"Source {i}.",
                      target=f"Target {i}.", position=i) for i in range(n)]
    session.add_all(added)
    session.flush()
    add_entries(session.connection(), project.id, [d.id for d in added])


def test_stored_rows_follow_every_change(database):
    """Rows changed directly (as a writer does) and marked with ``document_changed``, and
    the writers themselves (assign, reopen, reassign, a schema change), each committed
    through the commit helper that settles the marked entries."""
    with work.session(database) as session:
        lead = create_user(session, "lead", PASSWORD, "lead")
        people = [create_user(session, name, PASSWORD, "annotator")
                  for name in ("ana", "ben", "Cy")]
        project = create_project(session, "stored", "infolossqa", leads=[lead])
        session.add_all([ProjectMember(project_id=project.id, user_id=u.id, role="annotator")
                         for u in people])
        _add_documents(session, project, "d", 12)
        project_id = project.id
    assert check(database, project_id) == {"unassigned": 12}

    with work.session(database) as session:  # assign: two annotators per document
        assign_documents(session, session.get(Project, project_id), ["ana", "ben"],
                         per_document=2)
    assert check(database, project_id) == {"not started": 12}

    with work.session(database) as session:  # start, save time, finish, skip
        ana, ben = (_assignments(session, project_id, n) for n in ("ana", "ben"))
        for i in range(8):
            ana[i].status, ana[i].seconds_spent = "done", 30.0 + i
        for i in (0, 1, 2, 3):
            ben[i].status = "done"
        ben[4].status = "skipped"
        ben[5].status, ben[5].seconds_spent = "in_progress", 12.5
        ana[9].status = ben[9].status = "skipped"
        document_changed(session, *{a.document_id for a in (*ana, *ben)})
    assert check(database, project_id) == {"ready": 4, "partly skipped": 1, "in progress": 3,
                                           "skipped": 1, "not started": 3}

    with work.session(database) as session:  # tie-break: a third annotator on document 0
        document = session.scalar(select(Document).where(Document.external_id == "d0"))
        third = Assignment(document_id=document.id, user_id=people[2].id, status="assigned")
        session.add(third)
        session.flush()
        session.add(TieBreakRequest(document_id=document.id, assignment_id=third.id,
                                    level="document", item="", field="fluency"))
        document_changed(session, document.id)
    check(database, project_id)  # still ready: tie-breaks do not count

    with work.session(database) as session:  # adjudicate document 1; reopen document 2
        ids = {d.external_id: d.id for d in session.scalars(select(Document))}
        session.add(AdjudicationState(document_id=ids["d1"], status="complete"))
        document_changed(session, ids["d1"])
        reopen(session, session.get(Project, project_id), [ids["d2"]])
    statuses = check(database, project_id)
    assert statuses["adjudicated"] == 1 and statuses["ready"] == 2

    with work.session(database) as session:  # reassign an untouched document; reopen adjudication
        reassign(session, session.get(Project, project_id), [ids["d10"]], "ben", "Cy")
        session.execute(update(AdjudicationState).where(
            AdjudicationState.document_id == ids["d1"]).values(status="open"))
        project_changed(session, project_id)  # a schema change: every entry recomputed
    statuses = check(database, project_id)
    assert statuses["adjudicated"] == 0

    with work.session(database) as session:  # an assignment removed: back to fewer holders
        for held in session.scalars(select(Assignment).where(
                Assignment.document_id == ids["d11"])):
            session.delete(held)
        document_changed(session, ids["d11"])
    assert check(database, project_id)["unassigned"] == 1


def test_the_migration_backfills_what_the_code_computes(database):
    """Down to 0011 and up again: the SQL backfill writes the rows and counts the
    recomputation wrote (statuses, holders in code point order, times, counts)."""
    with work.session(database) as session:
        people = [create_user(session, name, PASSWORD, "annotator") for name in ("ana", "Ben")]
        project = create_project(session, "backfill", "infolossqa")
        session.add_all([ProjectMember(project_id=project.id, user_id=u.id, role="annotator")
                         for u in people])
        _add_documents(session, project, "b", 6)
        assign_documents(session, project, ["ana", "Ben"], per_document=2)
        project_id = project.id
    with work.session(database) as session:
        held = _assignments(session, project_id, "ana")
        held[0].status, held[0].seconds_spent = "done", 5.0
        held[1].status = "skipped"
        document_changed(session, held[0].document_id, held[1].document_id)
    check(database, project_id)
    with database.session() as session:
        before = _stored(session, project_id)
    downgrade(database.engine, "0011_jobs_lanes")
    upgrade(database.engine)
    with database.session() as session:
        assert _stored(session, project_id) == before
    check(database, project_id)


def test_imported_documents_are_unassigned_and_a_failed_import_takes_them_off(
        database, tmp_path, monkeypatch):
    """The importer's bulk insert writes each document's row and count in its batch's
    transaction; a batched import that fails midway deletes its documents and takes them
    off the counts."""
    from annotator.ingest import store
    from annotator.ingest.store import import_file
    from tests.helpers import pairs, write_jsonl

    monkeypatch.setattr(store, "BATCH_SIZE", 10)
    path = write_jsonl(tmp_path / "big.jsonl", pairs(45))

    def interrupted(done, total):
        if done == 35:  # three batches committed, then the import dies
            raise KeyboardInterrupt

    with database.session() as session:
        project_id = create_project(session, "imported", "infolossqa").id
    with database.session() as session:
        with pytest.raises(KeyboardInterrupt):
            import_file(session, session.get(Project, project_id), path, in_batches=True,
                        progress=interrupted)
    assert check(database, project_id) == {}
    with database.session() as session:
        assert document_page(session, session.get(Project, project_id)).counts == dict.fromkeys(
            STATUSES, 0)
        import_file(session, session.get(Project, project_id), path, in_batches=True)
    assert check(database, project_id) == {"unassigned": 45}


def test_the_annotation_api_keeps_the_stored_rows(database, study, ana, ben):
    """Saves through the JSON API as the annotation page sends them: an edit, time,
    done, skipped; the stored rows and counts follow each."""
    from tests.api_helpers import new_edit

    project_id = study["project_id"]
    first, second, third = study["assignments"]["ana"]
    ben_first, ben_second = study["assignments"]["ben"][:2]

    def status(api, aid, value):
        version = api.get(f"/api/assignments/{aid}").get_json()["assignment"]["version"]
        response = api.send("POST", f"/api/assignments/{aid}/status",
                            {"status": value, "version": version})
        assert response.status_code == 200, response.get_json()

    new_edit(ana, first)
    assert ana.send("POST", f"/api/assignments/{first}/time", {"seconds": 5}).status_code == 200
    assert check(database, project_id) == {"in progress": 1, "not started": 2}
    status(ana, first, "done")
    status(ben, ben_first, "done")
    status(ana, second, "skipped")
    status(ben, ben_second, "skipped")
    status(ana, third, "done")
    assert check(database, project_id) == {"ready": 1, "skipped": 1, "in progress": 1}
    with database.session() as session:  # the ready document's agreement is the queue's
        entry = session.scalar(select(AdjudicationQueueEntry).where(
            AdjudicationQueueEntry.status == "ready"))
        assert (entry.shown_agreement, entry.shown_open) == (entry.agreement, entry.open_total)
        assert entry.shown_agreement is not None


def test_an_annotation_import_keeps_the_stored_rows(env, database):
    """`annotator import` of a model's annotations (the InfoLossQA format) creates the
    documents it annotates and their assignments: stored rows and counts follow."""
    from pathlib import Path

    from click.testing import CliRunner

    from annotator.cli import main

    data = Path(__file__).parent / "data" / "interop" / "infolossqa"
    for args in (["project", "create", "loss", "--schema", "infolossqa"],
                 ["import", "loss", str(data), "--format", "infolossqa"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    with database.session() as session:
        project_id = session.scalar(select(Project.id).where(Project.name == "loss"))
    statuses = check(database, project_id)
    assert sum(statuses.values()) == 2 and "unassigned" not in statuses
