"""The adjudication queue's wiring is explicit (issue 45; issue 30 declared it): the
project's sessions are plain SQLAlchemy sessions with no hook; a writer marks the documents
it changes (``study.queue_marks.document_changed``) and the commit helper
(``operations.work``) settles them; a write that no writer function shows, a schema
revision, marks the project's entries by a named call."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication import queue
from annotator.adjudication.overview import document_entry
from annotator.annotate import bulk
from annotator.models import AdjudicationQueueEntry, Assignment, Document, Project
from annotator.operations import work
from annotator.operations.schema_revision import revise_schema
from annotator.schemas import parse_schema
from annotator.schemas.files import load_schema
from annotator.study.queue_marks import mark_changed


def entries(session) -> dict[int, tuple[int, int, bool]]:
    return {e.document_id: (e.changes, e.computed, e.stale)
            for e in session.scalars(select(AdjudicationQueueEntry))}


def test_a_writer_marks_and_only_the_commit_helper_settles(database, qa_study):
    """The project's session is SQLAlchemy's own; the writer bumps ``changes`` in its
    transaction, whoever commits; the entry is recomputed only where the commit helper
    settles it."""
    q1, project_id = qa_study["docs"]["q1"], qa_study["project_id"]
    with database.session() as session:
        assert type(session).__bases__ == (Session,)  # sessionmaker's own subclass, no hooks
        before = entries(session)[q1]
        bulk.reopen(session, session.get(Project, project_id), [q1], username="ana")
    with database.session() as session:
        changes, computed, stale = entries(session)[q1]
        assert (changes, computed, stale) == (before[0] + 1, before[1], True)
    with work.session(database) as session:
        bulk.reopen(session, session.get(Project, project_id), [q1], username="ben")
    with database.session() as session:
        assert entries(session)[q1] == (before[0] + 2, before[0] + 2, False)


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
        mark_changed(session.connection(), [q3])  # what a writer of ours would do
    with database.session() as session:
        assert entries(session)[q3][2] is True  # marked, left for the next refresh


def test_a_schema_revision_marks_and_recomputes_every_entry_of_the_project(database,
                                                                          qa_study):
    with database.session() as session:
        before = entries(session)
    with work.session(database) as session:
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
        mark_changed(session.connection(), [q1])  # left stale, as a failed recompute
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
