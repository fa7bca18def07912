"""Issue 44, item 2: a project's pre-highlighting as chunks of documents any worker claims,
on a real database (SQLite, or PostgreSQL with ANNOTATOR_TEST_POSTGRES_URL) and the real
alignment engine: an import queues chunks of at most CHUNK_DOCUMENTS documents, and a
second import while they wait adds chunks for its new documents only; the set-up page's
status sums the chunks; a document two runs computed at once ends with one set of
suggestions."""

from __future__ import annotations

from sqlalchemy import delete, func, select

from annotator.align.store import prehighlight_project
from annotator.ingest import import_file
from annotator.models import Document, Job, Project, Suggestion, User
from annotator.operations.worker import Worker
from annotator.study import jobs
from annotator.study.prehighlight_queue import CHUNK_DOCUMENTS, queue_prehighlight
from annotator.study.projects import create_project
from annotator.web.formatting import times_local
from tests.conftest import login
from tests.helpers import pairs, write_jsonl


def _project(database, users) -> int:
    with database.session() as session:
        lead = session.get(User, users["lee"])
        return create_project(session, "chunks", "infolossqa", leads=[lead]).id


def _chunks(session, project_id) -> dict[int, list[int]]:
    ids = session.scalars(select(Job.id).where(Job.project_id == project_id,
                                               Job.kind == "prehighlight")).all()
    return {job_id: payload["document_ids"]
            for job_id, payload in jobs.stored_json(session, Job.payload, ids).items()}


def test_imports_queue_chunks_and_a_second_import_only_its_new_documents(
        database, users, tmp_path):
    project_id = _project(database, users)
    first = 2 * CHUNK_DOCUMENTS + 50
    with database.session() as session:
        project = session.get(Project, project_id)
        result = import_file(session, project, write_jsonl(tmp_path / "a.jsonl", pairs(first)))
    assert result.prehighlight_chunks == 3
    with database.session() as session:
        chunks = _chunks(session, project_id)
        documents = session.scalars(select(Document.id).where(
            Document.project_id == project_id).order_by(Document.id)).all()
    assert sorted(len(ids) for ids in chunks.values()) == [50, CHUNK_DOCUMENTS, CHUNK_DOCUMENTS]
    assert sorted(i for ids in chunks.values() for i in ids) == documents

    # While those wait: the same file again (every document replaced, all in waiting
    # chunks) queues nothing; a file with 30 new documents queues one chunk of those.
    with database.session() as session:
        project = session.get(Project, project_id)
        again = import_file(session, project, write_jsonl(tmp_path / "a.jsonl", pairs(first)),
                            update=True)
        more = import_file(session, project, write_jsonl(tmp_path / "b.jsonl",
                                                         pairs(30, prefix="n")))
    assert (again.updated, again.prehighlight_chunks, again.prehighlight_job) == (first, 0, None)
    assert more.prehighlight_chunks == 1
    with database.session() as session:
        new = set(session.scalars(select(Document.id).where(
            Document.project_id == project_id, Document.external_id.like("n%"))))
        assert set(_chunks(session, project_id)[more.prehighlight_job]) == new
        assert queue_prehighlight(session, project_id) == [], "every document is queued"


def test_workers_run_the_chunks_and_the_status_sums_them(app, database, users, tmp_path):
    project_id = _project(database, users)
    with database.session() as session:
        project = session.get(Project, project_id)
        import_file(session, project, write_jsonl(tmp_path / "d.jsonl", pairs(5)))
        session.execute(delete(Job))  # queued again below, two documents a chunk
        queued = [job.id for job in queue_prehighlight(session, project_id, chunk=2)]
    assert len(queued) == 3
    client = app.test_client()
    login(client, "lee")
    url = f"/projects/{project_id}/prehighlight/status"
    status = client.get(url).get_json()
    assert (status["state"], status["chunks"]["queued"], status["done"], status["total"]) == (
        "queued", 3, 0, 5)
    assert status["message"].endswith(": 3 chunks waiting for a worker (no worker running).")
    # the page shows the same sentence, its time as a <time> element (local time, issue 43)
    assert str(times_local(status["message"])) in client.get(
        f"/projects/{project_id}/setup").get_data(as_text=True)

    session = database.sessions()
    try:
        jobs.claim(session, "w1", 30)
    finally:
        session.close()
    status = client.get(url).get_json()
    assert status["state"] == "running"
    assert status["message"].endswith(": chunks 1 running, 2 queued, 0 done…")
    with database.session() as session:
        jobs.hand_back(session, queued[0], "w1")

    assert Worker(database, poll_seconds=0.1).run(once=True) == 3
    status = client.get(url).get_json()
    with database.session() as session:
        stored = session.scalar(select(func.count(Suggestion.id)).join(Document).where(
            Document.project_id == project_id))
    assert (status["running"], status["done"], status["total"]) == (False, 5, 5)
    assert status["chunks"] == {"queued": 0, "running": 0, "done": 3, "failed": 0}
    last = status["last_run"]
    assert (last["documents"], last["suggestions"], last["chunks"], last["error"]) == (
        5, stored, 3, None)
    assert status["message"].startswith(
        f"Done: the last run pre-highlighted 5 documents ({stored} suggestions) in 3 chunks")


def test_a_document_two_runs_compute_at_once_is_stored_once(database, users, tmp_path):
    project_id = _project(database, users)
    with database.session() as session:
        project = session.get(Project, project_id)
        import_file(session, project, write_jsonl(tmp_path / "d.jsonl", pairs(3)))
        ids = session.scalars(select(Document.id).where(
            Document.project_id == project_id)).all()
    inner = {}

    def meanwhile_another_run(done, total):
        """Called by the first run after its first document (each document is marked and
        stored in a transaction of its own): a second run (another worker that took the
        chunk over) stores the other documents first."""
        if not inner:
            with database.session() as other:
                inner["summary"] = prehighlight_project(
                    other, other.get(Project, project_id), document_ids=ids)

    first = database.sessions()
    try:
        summary = prehighlight_project(first, first.get(Project, project_id),
                                       document_ids=ids, progress=meanwhile_another_run)
    finally:
        first.close()
    assert inner["summary"].suggestions > 0
    # the first run stored its first document, the second run the two others; neither
    # stored over the other's
    assert (summary.documents, summary.by_another_run) == (3, 2)
    assert (inner["summary"].documents, inner["summary"].by_another_run) == (2, 0)  # 1 done
    with database.session() as session:
        rows = session.execute(select(Suggestion.document_id, Suggestion.kind,
                                      Suggestion.source_spans, Suggestion.target_spans)
                               .where(Suggestion.document_id.in_(ids))).all()
    assert len(rows) == inner["summary"].suggestions + summary.suggestions
    assert len({(d, k, str(s), str(t)) for d, k, s, t in rows}) == len(rows), "no duplicate"
