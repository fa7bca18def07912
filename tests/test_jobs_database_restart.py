"""Issue 44, item 3: a job that meets the database restarting is handed back, not failed.

A worker runs a real job on a throw-away PostgreSQL server (tests/private_postgres.py); the
server is stopped while the job runs and started again. The job's query fails with the
driver's connection error, the worker waits for the database, hands the job back with a
back-off and the reason, claims it again and finishes it: state done, two attempts, the
first attempt's reason kept, the same worker throughout (it survived the outage)."""

from __future__ import annotations

import threading

from sqlalchemy import select

from annotator.db import Database
from annotator.models import Job
from annotator.operations import job_kinds
from annotator.operations.worker import Worker
from annotator.study import jobs
from annotator.study.projects import create_project

WAIT_SECONDS = 120  # an upper bound on each wait below, never a measured time


def test_a_job_running_through_a_database_restart_finishes(postgres, monkeypatch):
    database = Database(postgres.url)
    database.upgrade()
    with database.session() as session:
        project = create_project(session, "restart", "infolossqa")
        job_id = jobs.enqueue(session, "queue-refresh", project.id).id

    running, resume, met_error, finished = (threading.Event() for _ in range(4))
    owners, errors = [], []
    real = job_kinds.RUNNERS["queue-refresh"]

    def held_until_the_restart(session, job, progress):
        """The real queue refresh; on the first attempt it waits, inside the running job,
        until the test has stopped the server."""
        owners.append(job.lease_owner)
        if job.attempts == 1:
            session.execute(select(Job.id).where(Job.id == job.id))  # a live connection
            running.set()
            assert resume.wait(WAIT_SECONDS)
        try:
            result = real(session, job, progress)
        except Exception as exc:
            errors.append(exc)
            met_error.set()
            raise
        finished.set()
        return result

    monkeypatch.setitem(job_kinds.RUNNERS, "queue-refresh", held_until_the_restart)
    worker = Worker(database, poll_seconds=0.1, lease_seconds=60)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        assert running.wait(WAIT_SECONDS), "the worker did not start the job"
        postgres.stop()
        resume.set()
        assert met_error.wait(WAIT_SECONDS), "the job's query did not fail"
        assert jobs.is_transient(errors[0]), repr(errors[0])
        postgres.start()
        assert finished.wait(WAIT_SECONDS), "the job was not run again after the restart"
    finally:
        resume.set()
        worker.stop()
        thread.join(WAIT_SECONDS)
    assert not thread.is_alive()

    with database.session() as session:
        job = session.get(Job, job_id)
        assert (job.state, job.attempts, job.error) == ("done", 2, "")
        assert job.retry_reasons.startswith("attempt 1 at "), job.retry_reasons
        assert len(job.retry_reasons.splitlines()) == 1
        assert "Error" in job.retry_reasons  # the driver's error class, e.g. OperationalError
    assert owners == [worker.id, worker.id], "the same worker, which survived the outage"
    database.dispose()
