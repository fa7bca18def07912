"""Issue 30: the adjudication queue's wiring is declared, not global. The hooks that keep
the stored queue current sit on the project's own session class only (SQLAlchemy's
``Session`` carries none, so no other session in the process runs adjudication code), and
a schema revision, which no flush shows, marks and recomputes the project's entries by a
named call."""

from __future__ import annotations

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from annotator.adjudication import queue
from annotator.adjudication.overview import document_entry
from annotator.models import AdjudicationQueueEntry, Assignment, Document, Project
from annotator.operations.schema_revision import revise_schema
from annotator.schemas import parse_schema
from annotator.schemas.files import load_schema

HOOKS = (("before_flush", queue._touched), ("after_flush", queue._mark),
         ("before_commit", queue._refresh_marked), ("after_rollback", queue._forget_marks))


def entries(session) -> dict[int, tuple[int, int, bool]]:
    return {e.document_id: (e.changes, e.computed, e.stale)
            for e in session.scalars(select(AdjudicationQueueEntry))}


def test_no_hook_on_sqlalchemys_session_class_only_on_the_projects(database, qa_study):
    for name, hook in HOOKS:
        assert not event.contains(Session, name, hook)
        assert event.contains(queue.QueueKeepingSession, name, hook)
    with database.session() as session:
        assert isinstance(session, queue.QueueKeepingSession)


def test_a_foreign_session_runs_no_adjudication_code(database, qa_study):
    with database.session() as session:
        before = entries(session)
    q3 = qa_study["docs"]["q3"]
    with Session(database.engine) as foreign:  # e.g. a library's own session
        for a in foreign.scalars(select(Assignment).where(Assignment.document_id == q3)):
            a.status = "done"
        foreign.commit()
    with database.session() as session:
        assert entries(session) == before  # nothing marked: only our sessions mark
        queue.mark_changed(session.connection(), [q3])  # what a service of ours would do
    with database.session() as session:
        assert entries(session)[q3][2] is True  # marked, left for the next refresh


def test_a_schema_revision_marks_and_recomputes_every_entry_of_the_project(database,
                                                                          qa_study):
    with database.session() as session:
        before = entries(session)
        project = session.get(Project, qa_study["project_id"])
        text = load_schema("infolossqa").source_text.replace(
            "prehighlighters:", "  - name: praise\n    sides: [target]\nprehighlighters:")
        revise_schema(session, project, parse_schema(text, "revised.yaml"))
    with database.session() as session:
        after = entries(session)
        assert set(after) == {d.id for d in session.scalars(select(Document))}
        for document_id, (changes, computed, stale) in after.items():
            assert changes == before.get(document_id, (0,))[0] + 1
            assert (computed, stale) == (changes, False)
            entry = document_entry(session, session.get(Document, document_id))
            stored = session.get(AdjudicationQueueEntry, document_id)
            assert stored.ready == (entry is not None)


def test_the_command_line_reads_the_stored_queue_the_page_reads(env, database, qa_study):
    from click.testing import CliRunner

    from annotator.adjudication.overview import adjudication_queue
    from annotator.cli import main

    q1 = qa_study["docs"]["q1"]
    with database.session() as session:
        queue.mark_changed(session.connection(), [q1])  # left stale, as a failed recompute
    result = CliRunner().invoke(main, ["adjudicate", "status", "qa"])
    assert result.exit_code == 0, result.output
    listed = [line.split("\t")[0] for line in result.output.splitlines()]
    with database.session() as session:
        assert entries(session)[q1][2] is False  # the command recomputed it first
        page = queue.stored_queue(session, qa_study["project_id"])
        project = session.get(Project, qa_study["project_id"])
        fresh = adjudication_queue(session, project)  # from scratch, the reference
        assert listed == [e.document.external_id for e in page.entries] == [
            e.document.external_id for e in fresh] == ["q1", "q2"]
