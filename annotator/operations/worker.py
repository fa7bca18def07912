"""The worker: claims jobs from the database (:mod:`annotator.study.jobs`) and runs them
(:mod:`annotator.operations.job_kinds`), one at a time.

``annotator worker`` runs one as a process; ``annotator serve`` runs one in a thread of
the server process, so a single machine needs no second command. While a job runs, a
heartbeat thread extends the job's lease and stores its progress every
``lease_seconds / 4`` (at most every 5 s); a worker killed with ``kill -9`` stops
extending, its lease expires and another worker claims the job again. Between jobs the
worker writes its own heartbeat row, which ``/healthz`` reads ("worker alive").

A worker asked to stop (SIGTERM, Ctrl+C, the server shutting down) hands its running job
back to the queue at the next progress report, so another worker continues it at once
instead of after the lease.

A job that fails with a transient database error (the database restarting, issue 44) is
handed back with a back-off (:func:`annotator.study.jobs.retry_later`) once the database
answers again; the worker waits for it, reconnecting (the engine's pool pings), and goes on.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
import traceback

from sqlalchemy.exc import SQLAlchemyError

from annotator.models import Job
from annotator.operations import work
from annotator.operations.job_kinds import RUNNERS
from annotator.study import jobs

log = logging.getLogger(__name__)

DEFAULT_LEASE_SECONDS = 60.0
DEFAULT_POLL_SECONDS = 2.0
MAX_HEARTBEAT_SECONDS = 5.0


class Stopping(RuntimeError):
    """The worker was asked to stop while a job ran."""


def worker_name() -> str:
    """``host:pid:random``: unique across servers and restarts."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class _Heartbeat(threading.Thread):
    """Extends one job's lease and stores its progress until stopped."""

    def __init__(self, worker: "Worker", job_id: int):
        super().__init__(name=f"annotator-job-{job_id}-heartbeat", daemon=True)
        self.worker, self.job_id = worker, job_id
        self.progress: tuple[int, int] | None = None
        self.lost = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        session = self.worker.database.sessions()
        try:
            while not self.done.wait(self.worker.heartbeat_seconds):
                try:
                    jobs.extend(session, self.job_id, self.worker.id,
                                self.worker.lease_seconds, self.progress)
                    jobs.beat(session, self.worker.id, self.job_id)
                except jobs.LeaseLost:
                    self.lost.set()
                    return
                except SQLAlchemyError:  # the database is away: try again next beat
                    session.rollback()
                    log.exception("heartbeat of job %s failed", self.job_id)
        finally:
            session.close()


class Worker:
    """One worker: ``run()`` polls until stopped (``once``: until nothing is ready)."""

    def __init__(self, database, *, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                 poll_seconds: float = DEFAULT_POLL_SECONDS, worker_id: str | None = None,
                 kinds: tuple[str, ...] | None = None):
        self.database = database
        self.kinds = kinds  # None: every kind
        self.lease_seconds = lease_seconds
        self.poll_seconds = poll_seconds
        self.heartbeat_seconds = min(lease_seconds / 4, MAX_HEARTBEAT_SECONDS)
        self.id = worker_id or worker_name()
        self.stopping = threading.Event()

    def stop(self) -> None:
        self.stopping.set()

    def run(self, *, once: bool = False) -> int:
        """Run jobs until stopped; returns how many ran."""
        ran = 0
        session = self.database.sessions()
        try:
            try:
                jobs.forget_silent_workers(session)
            except SQLAlchemyError:  # (the loop below reports a database that is away)
                session.rollback()
            while not self.stopping.is_set():
                try:
                    jobs.beat(session, self.id)
                    if self.run_one() is not None:
                        ran += 1
                        continue
                except SQLAlchemyError:  # the database is away: wait and try again
                    session.rollback()
                    log.exception("worker %s: database error, polling again", self.id)
                except Exception:  # nothing one row holds may end the worker (issue 41)
                    session.rollback()
                    log.exception("worker %s: unexpected error, polling again", self.id)
                if once:
                    break
                self._idle(session)
        finally:
            try:
                jobs.forget_worker(session, self.id)
            except SQLAlchemyError:
                log.warning("worker %s: could not remove its heartbeat row", self.id)
            session.close()
        return ran

    def _idle(self, session) -> None:
        """Wait ``poll_seconds`` for the next look at the queue, showing a heartbeat at
        least every :data:`MAX_HEARTBEAT_SECONDS` meanwhile (a long poll is no death)."""
        deadline = time.monotonic() + self.poll_seconds
        while not self.stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0 or self.stopping.wait(min(left, MAX_HEARTBEAT_SECONDS)):
                return
            if deadline - time.monotonic() > 0:
                try:
                    jobs.beat(session, self.id)
                except SQLAlchemyError:
                    session.rollback()

    def run_one(self) -> Job | None:
        """Claim one ready job and run it; None when nothing was ready."""
        session = self.database.sessions()
        try:
            job = jobs.claim(session, self.id, self.lease_seconds, kinds=self.kinds)
            if job is None:
                return None
            log.info("worker %s: job %s (%s, project %s), attempt %s", self.id, job.id,
                     job.kind, job.project_id, job.attempts)
            try:  # the queue pages count this worker busy at once (jobs.waiting_for)
                jobs.beat(session, self.id, job.id)
            except SQLAlchemyError:
                session.rollback()
            self._run(session, job)
            try:  # the job as it ended, for the caller (a rollback in _run expired it)
                session.refresh(job)
            except SQLAlchemyError:  # the database is away: the caller gets it expired
                session.rollback()
            return job
        finally:
            session.close()

    def _run(self, session, job: Job) -> None:
        # Read now: a rollback expires the row, and reading it again needs the database.
        job_id, kind = job.id, job.kind
        heartbeat = _Heartbeat(self, job_id)
        heartbeat.start()

        def progress(done: int, total: int) -> None:
            heartbeat.progress = (done, total)
            if heartbeat.lost.is_set():
                raise jobs.LeaseLost(f"job {job_id} was taken over by another worker")
            if self.stopping.is_set():
                raise Stopping(f"worker {self.id} is stopping")

        error = transient = None
        result: dict = {}
        try:
            runner = RUNNERS.get(kind)
            if runner is None:
                raise jobs.JobError(f"this version knows no job kind {kind!r}")
            result = runner(session, job, progress) or {}
            work.commit(session)  # a job that changed a document settles its queue entry
        except jobs.LeaseLost:
            session.rollback()
            log.warning("worker %s: lost job %s to another worker", self.id, job_id)
            return
        except Stopping:
            session.rollback()
            jobs.hand_back(session, job_id, self.id)
            return
        except Exception as exc:  # a job's failure is the job's, never the worker's
            session.rollback()
            if jobs.is_transient(exc):  # the database, not the job: run it again later
                transient = _first_line(exc)
                log.warning("worker %s: job %s (%s) met a database error, handing it back: "
                            "%s", self.id, job_id, kind, transient)
            else:
                error = self._failure(job_id, kind, exc)
        finally:
            heartbeat.done.set()
            heartbeat.join()
        if transient is not None:
            self._until_written(session, lambda: jobs.retry_later(
                session, job_id, self.id, transient))
        else:
            self._until_written(session, lambda: jobs.finish(
                session, job_id, self.id, error=error, result=result,
                progress=heartbeat.progress))

    def _failure(self, job_id: int, kind: str, exc: Exception) -> str:
        """The error a failed job keeps (a refusal: its message alone)."""
        if isinstance(exc, jobs.JobRefused):
            log.info("worker %s: job %s (%s) refused: %s", self.id, job_id, kind, exc)
            return str(exc)
        log.error("worker %s: job %s (%s) failed", self.id, job_id, kind, exc_info=exc)
        return "".join(traceback.format_exception_only(type(exc), exc)).strip()

    def _until_written(self, session, write) -> None:
        """Run ``write`` (a change of the held job), again while the database is away,
        waiting a growing while between tries; give up when the worker stops (the job's
        lease then expires and another worker takes it)."""
        tries = 0
        while True:
            try:
                write()
                return
            except Exception as exc:
                session.rollback()
                if not jobs.is_transient(exc):
                    raise
                tries += 1
                log.warning("worker %s: database away (%s), try %s", self.id,
                            _first_line(exc), tries)
                if self.stopping.wait(min(0.5 * tries, MAX_HEARTBEAT_SECONDS)):
                    return


def _first_line(exc: BaseException) -> str:
    """The driver's message of a database error (no SQL statement, no parameters)."""
    cause = getattr(exc, "orig", None) or exc
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}"


def start_in_thread(database, **options) -> tuple[Worker, threading.Thread]:
    """A worker in a daemon thread of this process (``annotator serve``); stop it with
    ``worker.stop()`` and join the thread a while, so its job goes back to the queue."""
    worker = Worker(database, **options)
    thread = threading.Thread(target=worker.run, name="annotator-worker", daemon=True)
    thread.start()
    return worker, thread
