"""Issue 31: background work as claimed jobs in the database. The queue on a real database
(SQLite, or PostgreSQL with ANNOTATOR_TEST_POSTGRES_URL): one queued copy per kind and
project, one claim per job, a lease that expires so another worker takes the job over,
one running job per project, a cap on workers dying; the worker runs real jobs, shows
failures, and hands its job back when stopped; an import queues pre-highlighting."""

from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text, update

from annotator.cli import main
from annotator.core.vocabulary import JOB_KINDS
from annotator.db import Database
from annotator.ingest import IngestError, import_file
from annotator.models import Document, Job, Project, User
from annotator.operations.job_kinds import RUNNERS
from annotator.operations.worker import Worker
from annotator.study import jobs
from annotator.study.projects import create_project
from tests.conftest import login
from tests.helpers import pairs, write_jsonl


@pytest.fixture
def projects(database, users):
    with database.session() as session:
        lead = session.get(User, users["lee"])
        return {name: create_project(session, name, "infolossqa", leads=[lead]).id
                for name in ("alpha", "beta")}


def _job(database, job_id) -> Job:
    with database.session() as session:
        return session.get(Job, job_id)


def _expire(database, job_id) -> None:
    with database.session() as session:
        session.execute(update(Job).where(Job.id == job_id).values(
            lease_expires_at=jobs.now() - timedelta(seconds=1)))


def test_every_kind_has_a_runner():
    assert set(RUNNERS) == set(JOB_KINDS)


def test_one_queued_copy_one_claim_and_an_expired_lease_is_taken_over(database, projects):
    alpha = projects["alpha"]
    with database.session() as session:
        first = jobs.enqueue(session, "refit", alpha).id
        assert jobs.enqueue(session, "refit", alpha).id == first  # queued once
        with pytest.raises(jobs.JobError, match="got 'nosuch'"):
            jobs.enqueue(session, "nosuch", alpha)
    one, two = database.sessions(), database.sessions()
    try:
        claimed = jobs.claim(one, "w1", 30)
        assert (claimed.id, claimed.state, claimed.attempts, claimed.lease_owner) == (
            first, "running", 1, "w1")
        assert jobs.claim(two, "w2", 30) is None, "a job is claimed once"
        # Once claimed, the same work may be queued again (it runs after this one).
        with database.session() as session:
            again = jobs.enqueue(session, "refit", alpha).id
        assert again != first
        assert jobs.claim(two, "w2", 30) is None, "one running job per project"

        _expire(database, first)  # w1 died: no heartbeat
        taken = jobs.claim(two, "w2", 30)
        assert (taken.id, taken.attempts, taken.lease_owner) == (first, 2, "w2")
        with pytest.raises(jobs.LeaseLost):
            jobs.extend(one, first, "w1", 30, (3, 9))
        assert not jobs.finish(one, first, "w1"), "the old owner cannot finish it"
        jobs.extend(two, first, "w2", 30, (4, 9))
        assert jobs.finish(two, first, "w2", result={"documents": 9}, progress=(9, 9))
    finally:
        one.close()
        two.close()
    done = _job(database, first)
    assert (done.state, done.progress_done, done.progress_total, done.result, done.error,
            done.lease_owner) == ("done", 9, 9, {"documents": 9}, "", None)
    assert _job(database, again).state == "queued"


def test_projects_run_side_by_side_and_a_job_killing_its_workers_stops(database, projects):
    with database.session() as session:
        a1 = jobs.enqueue(session, "refit", projects["alpha"]).id
        a2 = jobs.enqueue(session, "prehighlight", projects["alpha"]).id
        b1 = jobs.enqueue(session, "refit", projects["beta"]).id
    session = database.sessions()
    try:
        assert jobs.claim(session, "w1", 30).id == a1
        assert jobs.claim(session, "w2", 30).id == b1, "another project's job runs beside"
        assert jobs.claim(session, "w3", 30) is None
        with database.session() as writing:
            writing.execute(update(Job).where(Job.id == a1).values(
                attempts=jobs.MAX_ATTEMPTS))
        _expire(database, a1)
        assert jobs.claim(session, "w3", 30).id == a2, "the fifth death fails the job"
    finally:
        session.close()
    failed = _job(database, a1)
    assert failed.state == "failed" and "stopped 5 times" in failed.error


def test_an_import_queues_pre_highlighting_with_its_documents_or_not_at_all(
        database, projects, tmp_path):
    good = write_jsonl(tmp_path / "good.jsonl", pairs(3))
    bad = write_jsonl(tmp_path / "bad.jsonl", [*pairs(2, prefix="n"), {"id": "x"}])
    with database.session() as session:
        project = session.get(Project, projects["alpha"])
        with pytest.raises(IngestError):
            import_file(session, project, bad)
    with database.session() as session:
        assert session.scalars(select(Job)).all() == []
        project = session.get(Project, projects["alpha"])
        result = import_file(session, project, good)
    job = _job(database, result.prehighlight_job)
    assert (job.kind, job.project_id, job.state) == ("prehighlight", projects["alpha"],
                                                     "queued")


def test_the_worker_pre_highlights_and_a_failure_shows_on_the_project_page(
        app, database, projects, tmp_path):
    alpha = projects["alpha"]
    with database.session() as session:
        project = session.get(Project, alpha)
        import_file(session, project, write_jsonl(tmp_path / "d.jsonl", pairs(4)))
        # A job this version cannot run (queued by a newer server, say) fails, shown.
        session.execute(text("INSERT INTO jobs (project_id, kind, payload, state, "
                             "progress_done, progress_total, error, result, attempts, "
                             "created_at) VALUES (:p, 'from-the-future', '{}', 'queued', 0, "
                             "0, '', '{}', 0, :now)"), {"p": alpha, "now": jobs.now()})
    client = app.test_client()
    login(client, "lee")
    page = client.get(f"/projects/{alpha}").get_data(as_text=True)
    assert 'data-kind="prehighlight" data-state="queued"' in page
    assert 'id="jobs-no-worker"' in page, "queued work and no worker: the page says so"

    assert Worker(database, poll_seconds=0.1).run(once=True) == 2
    with database.session() as session:
        assert all(d.prehighlighted_at is not None for d in session.scalars(
            select(Document).where(Document.project_id == alpha)))
        states = {j.kind: (j.state, j.progress_done, j.progress_total, j.error)
                  for j in session.scalars(select(Job))}
    assert states["prehighlight"] == ("done", 4, 4, "")
    assert states["from-the-future"][0] == "failed"
    assert "knows no job kind 'from-the-future'" in states["from-the-future"][3]
    page = client.get(f"/projects/{alpha}").get_data(as_text=True)
    assert 'data-kind="prehighlight" data-state="done"' in page and "4 / 4" in page
    assert "knows no job kind &#39;from-the-future&#39;" in page
    assert 'id="jobs-no-worker"' not in page


def test_a_stopping_worker_hands_its_job_back(database, projects, tmp_path):
    with database.session() as session:
        project = session.get(Project, projects["beta"])
        job_id = import_file(session, project, write_jsonl(tmp_path / "d.jsonl",
                                                           pairs(3))).prehighlight_job
    worker = Worker(database, poll_seconds=0.1)
    worker.stop()  # asked to stop: the first progress report ends the run
    assert worker.run_one().id == job_id
    job = _job(database, job_id)
    assert (job.state, job.lease_owner, job.attempts) == ("queued", None, 1)
    assert Worker(database, poll_seconds=0.1).run(once=True) == 1
    job = _job(database, job_id)
    # The first run stored its first document before reporting progress (one commit per
    # document, issue 43): the second run continues with the other two.
    assert (job.state, job.attempts, job.progress_done, job.progress_total) == ("done", 2, 2, 2)


def test_worker_command_runs_the_queue_once(env, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["project", "create", "cli", "--schema",
                                "infolossqa"]).exit_code == 0
    imported = runner.invoke(main, ["import", "cli", str(write_jsonl(tmp_path / "d.jsonl",
                                                                     pairs(2)))])
    assert imported.exit_code == 0, imported.output
    assert "pre-highlighting queued (1 chunk from job 1)" in imported.output
    result = runner.invoke(main, ["worker", "--once", "--poll", "0.1"])
    assert result.exit_code == 0, result.output
    assert "stopped after 1 job" in result.output
    assert runner.invoke(main, ["worker", "--poll", "0"]).exit_code == 2


def test_a_queue_refresh_queued_from_the_command_line_runs_in_the_worker(env, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["project", "create", "q", "--schema",
                                "infolossqa"]).exit_code == 0
    queued = runner.invoke(main, ["adjudicate", "refresh-queue", "q", "--background"])
    assert queued.exit_code == 0, queued.output
    assert "queue refresh of q queued (job 1)" in queued.output
    assert runner.invoke(main, ["worker", "--once"]).exit_code == 0
    database = Database(env["ANNOTATOR_DATABASE_URL"])
    with database.session() as session:
        job = session.get(Job, 1)
        assert (job.kind, job.state, job.result) == ("queue-refresh", "done", {"entries": 0})
    database.dispose()
