"""The stored adjudication queue: equal to the full computation, updated when a document is
done, decided, completed or reopened, and never overwritten by a stale recomputation."""

from __future__ import annotations

import pytest

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.overview import adjudication_queue, complete
from annotator.adjudication.queue import refresh_stale, stored_queue
from annotator.models import AdjudicationQueueEntry, User
from annotator.operations import work
from annotator.study.queue_marks import mark_changed
from tests.adjudication_fixtures import load, mark_done, project_of
from tests.conftest import login


def _view(entries):
    return [(e.document.external_id, round(e.agreement, 6), e.open["total"], e.status,
             e.fields_in_dispute, e.annotators) for e in entries]


def test_stored_queue_equals_the_full_computation_and_follows_each_change(database, qa_study):
    with database.session() as session:
        project = project_of(session, qa_study)
        stored = stored_queue(session, project.id)
        assert _view(stored.entries) == _view(adjudication_queue(session, project))
        assert [e.document.external_id for e in stored.entries] == ["q1", "q2"]
        assert stored_queue(session, project.id, field_name="oversimplification").total == 1
        assert stored_queue(session, project.id, pair=("ana", "cy")).total == 0

    with work.session(database) as session:  # q3 done by both: it joins the queue
        mark_done(session, load(session, qa_study, "q3"), "ana", "ben")
    with database.session() as session:  # recomputed when that change committed
        assert refresh_stale(session, qa_study["project_id"]) == 0
        assert stored_queue(session, qa_study["project_id"]).total == 3

    with work.session(database) as session:  # q2 decided and completed: it moves down
        lee = session.get(User, qa_study["users"]["lee"])
        q2 = load(session, qa_study, "q2")
        (unit,) = store.current_units(session, q2)
        d.accept(session, q2, unit.edit_ids, unit.edit_ids[0], lee)
        complete(session, q2, lee)
    with database.session() as session:
        project = project_of(session, qa_study)
        entries = stored_queue(session, project.id).entries
        assert _view(entries) == _view(adjudication_queue(session, project))
        assert (entries[-1].document.external_id, entries[-1].status) == ("q2", "complete")

    with work.session(database) as session:  # reopened: open again
        lee = session.get(User, qa_study["users"]["lee"])
        d.reopen(session, load(session, qa_study, "q2"), lee, "second look")
    with database.session() as session:
        statuses = {e.document.external_id: e.status
                    for e in stored_queue(session, qa_study["project_id"]).entries}
        assert statuses["q2"] == "open"


def test_a_change_during_recomputation_keeps_the_entry_stale(database, qa_study,
                                                             monkeypatch):
    from annotator.adjudication import queue as queue_module

    q1 = qa_study["docs"]["q1"]
    compute = queue_module.document_entry

    def racing_entry(session, document):
        entry = compute(session, document)
        with database.session() as other:  # a save commits while we compute
            mark_changed(other.connection(), [document.id])
        return entry

    with database.session() as session:
        stored_queue(session, qa_study["project_id"])
        mark_changed(session.connection(), [q1])
    monkeypatch.setattr(queue_module, "document_entry", racing_entry)
    with database.session() as session:
        assert refresh_stale(session, qa_study["project_id"]) == 1
    with database.session() as session:
        entry = session.get(AdjudicationQueueEntry, q1)
        assert entry.computed < entry.changes  # still stale: the next view recomputes it
    monkeypatch.setattr(queue_module, "document_entry", compute)
    with database.session() as session:
        assert refresh_stale(session, qa_study["project_id"]) == 1
        entry = session.get(AdjudicationQueueEntry, q1)
        assert entry.computed == entry.changes


def _writes_during(database, action):
    """The INSERT / UPDATE / DELETE statements the engine runs while ``action()`` runs."""
    from sqlalchemy import event

    seen = []

    def record(_conn, _cursor, statement, *_args):
        if statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            seen.append(statement)

    event.listen(database.engine, "before_cursor_execute", record)
    try:
        action()
    finally:
        event.remove(database.engine, "before_cursor_execute", record)
    return seen


def test_the_queue_page_only_reads_and_changes_are_current_when_they_commit(
        app, client, database, qa_study):
    login(client, "lee")
    url = f"/projects/{qa_study['project_id']}/adjudicate"
    with work.session(database) as session:
        mark_done(session, load(session, qa_study, "q3"), "ana", "ben")
    pages = []
    writes = _writes_during(database, lambda: pages.append(client.get(url)))
    assert pages[0].status_code == 200 and 'data-document="q3"' in pages[0].get_data(True)
    assert writes == []


def test_a_failed_recomputation_keeps_the_save_and_is_shown_and_repaired(
        app, client, database, qa_study, monkeypatch, tmp_path, caplog):
    from click.testing import CliRunner

    from annotator.adjudication import queue as queue_module
    from annotator.cli import main

    def broken(session, document):
        raise RuntimeError("queue bug")

    monkeypatch.setattr(queue_module, "document_entry", broken)
    with work.session(database) as session:  # the save itself commits
        mark_done(session, load(session, qa_study, "q3"), "ana", "ben")
    assert "queue bug" in caplog.text
    with database.session() as session:
        statuses = {a.status for a in load(session, qa_study, "q3").assignments}
        assert statuses == {"done"}
        assert session.get(AdjudicationQueueEntry, qa_study["docs"]["q3"]).stale
    login(client, "lee")
    page = client.get(f"/projects/{qa_study['project_id']}/adjudicate").get_data(as_text=True)
    assert 'id="queue-stale"' in page and "1 changed document could not" in page

    monkeypatch.undo()
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", database.url)
    monkeypatch.setenv("ANNOTATOR_INSTANCE_PATH", str(tmp_path / "instance"))
    done = CliRunner().invoke(main, ["adjudicate", "refresh-queue", "qa"])
    assert done.exit_code == 0 and "1 queue entry recomputed for qa" in done.output
    page = client.get(f"/projects/{qa_study['project_id']}/adjudicate").get_data(as_text=True)
    assert 'id="queue-stale"' not in page and 'data-document="q3"' in page


def test_queue_page_pages_through_ready_documents(app, client, database, qa_study,
                                                  monkeypatch):
    from annotator.adjudication import queue as q

    monkeypatch.setattr(q, "PAGE_SIZE", 1)
    login(client, "lee")
    first = client.get(f"/projects/{qa_study['project_id']}/adjudicate").get_data(as_text=True)
    assert "page 1 of 2" in first and 'data-document="q1"' in first
    second = client.get(f"/projects/{qa_study['project_id']}/adjudicate?page=2")
    assert 'data-document="q2"' in second.get_data(as_text=True)
    with pytest.raises(AssertionError):
        assert 'data-document="q2"' in first


def _work_read_at_commit(database, qa_study, name: str) -> list[str]:
    """Add an edit to the first assignment of document ``name`` and return the statements
    of the commit (which recomputes the document's queue entry) that read annotators'
    work."""
    import re

    from sqlalchemy import event, select

    from annotator.models import Assignment, Edit
    from annotator.operations import work
    from annotator.study.queue_marks import document_changed

    statements: list[str] = []
    record = lambda *args: statements.append(args[2])  # noqa: E731  (statement text)
    with database.session() as session:
        document = load(session, qa_study, name)
        assignment = session.scalars(select(Assignment).where(
            Assignment.document_id == document.id).order_by(Assignment.id)).first()
        session.add(Edit(assignment_id=assignment.id, edit_type="deletion",
                         fields={"question": f"added on {name}"}))
        session.flush()
        document_changed(session, document.id)  # as the edit writer marks it
        event.listen(database.engine, "before_cursor_execute", record)
        try:
            work.commit(session)  # settles the marked entry, then commits
        finally:
            event.remove(database.engine, "before_cursor_execute", record)
    assert statements  # the commit did recompute the entry
    return [s for s in statements if re.search(r"\bFROM (edits|spans|ratings)\b", s)]


def test_a_save_on_a_document_still_annotated_reads_none_of_its_work(database, qa_study):
    """Issue 44: the queue entry of a document not ready (q3: nobody marked it done) is
    known to be empty from its assignments' statuses; the save's commit loads none of the
    document's edits, spans or ratings, and the stored queue still equals the full
    computation. A ready document (q1) is recomputed from its work as before."""
    assert _work_read_at_commit(database, qa_study, "q3") == []
    assert _work_read_at_commit(database, qa_study, "q1") != []
    with database.session() as session:
        project = project_of(session, qa_study)
        assert refresh_stale(session, project.id) == 0
        assert _view(stored_queue(session, project.id).entries) == _view(
            adjudication_queue(session, project))
