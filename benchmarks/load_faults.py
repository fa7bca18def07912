"""The parts of benchmarks/load_test.py for issue 44 (items 3 and 4): the app started the
way a user starts it (`annotator serve` with no flags but a free port: gunicorn with its
default worker processes and the job worker in the serving process), a PostgreSQL server
the run owns and restarts mid-run (``pg_ctl -m fast``, as an administrator's restart: every
client is sent AdminShutdown), a probe of /healthz every 0.5 s, and the reconciliation of
the jobs after the run (by state and attempts; none failed for good, no imported document
left without a job)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

PROBE_EVERY_SECONDS = 0.5
# A probe's own time-out: far above /healthz's budget, so a slow answer is measured, not
# counted as a connection error.
PROBE_TIMEOUT_SECONDS = 10.0
# The longest the restart waits for the measured part of the run to start (logins first).
BEGIN_WAIT_SECONDS = 900.0


def serve_argv(port: int) -> list[str]:
    """`annotator serve` as the README starts it; only the port is given (a free one)."""
    return [str(Path(sys.executable).with_name("annotator")), "serve", "--port", str(port)]


class HealthProbe:
    """GET /healthz every :data:`PROBE_EVERY_SECONDS` from :meth:`start` to :meth:`finish`:
    each answer's time, status, ``database`` field and ``checked_in_ms`` (a connection
    error counts as its own status). In a process of its own (forked before the annotators'
    threads start): in the load generator's, its timings would include waits for the
    generator's own GIL, busy with 50 annotators."""

    def __init__(self, base: str, path: str = "/healthz"):
        context = multiprocessing.get_context("fork")
        self._stop = context.Event()
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_probe, args=(base, path, self._stop, send),
                                        name="healthz-probe", daemon=True)
        self.samples: list[tuple[float, str, str]] = []  # (seconds, status, database)
        self.checked_ms: list[float] = []  # the checks' own time inside the server

    def start(self) -> None:
        self._process.start()

    def finish(self) -> None:
        self._stop.set()
        self.samples, self.checked_ms = self._receive.recv()
        self._process.join()

    def summary(self) -> dict:
        times = sorted(seconds for seconds, _, _ in self.samples)
        return {"probes": len(times),
                "max_ms": round(times[-1] * 1000, 1) if times else None,
                "p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000, 1) if times
                else None,
                "max_checked_in_server_ms": max(self.checked_ms, default=None),
                "p50_checked_in_server_ms": sorted(self.checked_ms)[len(self.checked_ms) // 2]
                if self.checked_ms else None,
                "statuses": dict(Counter(status for _, status, _ in self.samples)),
                "database": dict(Counter(database for _, _, database in self.samples)),
                "max_ms_by_database": {
                    state: round(max(s for s, _, d in self.samples if d == state) * 1000, 1)
                    for state in sorted({d for _, _, d in self.samples})}}


def _probe(base: str, path: str, stop, send) -> None:
    samples, checked = [], []
    with httpx.Client(base_url=base, timeout=PROBE_TIMEOUT_SECONDS) as client:
        while not stop.wait(PROBE_EVERY_SECONDS):
            started = time.perf_counter()
            try:
                response = client.get(path)
                status = str(response.status_code)
                try:
                    body = response.json()
                    database = body.get("database", "?")
                    checked.append(body.get("checked_in_ms", 0.0))
                except ValueError:
                    database = "not JSON"
            except httpx.HTTPError as exc:
                status, database = "connection error", type(exc).__name__
            samples.append((time.perf_counter() - started, status, database))
    send.send((samples, checked))


def restart_postgres(postgres, at: float, down: float, begun: threading.Event,
                     events: dict) -> None:
    """At ``at`` seconds after ``begun`` is set (the measured part of the run starts), stop
    ``postgres`` (fast mode) and start it again ``down`` seconds later; the moments (seconds
    after that start) go into ``events``."""
    if not begun.wait(BEGIN_WAIT_SECONDS):
        events["skipped"] = "the annotators never all logged in"
        return
    started = time.monotonic()
    time.sleep(at)
    events["stopping_at_s"] = round(time.monotonic() - started, 1)
    postgres.stop("fast")
    events["stopped_at_s"] = round(time.monotonic() - started, 1)
    time.sleep(down)
    postgres.start()
    events["started_again_at_s"] = round(time.monotonic() - started, 1)


def own_postgres():
    """A throw-away PostgreSQL server the run may stop (tests/private_postgres.py)."""
    from tests.private_postgres import PrivatePostgres

    server = PrivatePostgres()
    server.start()
    return server


def drop_postgres(server) -> None:
    try:
        server.stop("immediate")
    except subprocess.CalledProcessError:
        pass  # already stopped
    shutil.rmtree(server.folder, ignore_errors=True)


def stop_serve(process: subprocess.Popen, wait: float = 30.0) -> None:
    """SIGTERM to `annotator serve`, as a supervisor stops it: it passes it to gunicorn and
    hands its running job back to the queue."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def job_report(database_url: str) -> dict:
    """The jobs after the run: counts by kind, state and attempts; every job failed (its
    error's first line); and imported documents neither pre-highlighted nor in a waiting
    chunk (a lost job: must be 0)."""
    from sqlalchemy import func, select

    from annotator.db import Database
    from annotator.models import Document, Job
    from annotator.study.prehighlight_queue import waiting_document_ids

    database = Database(database_url)
    try:
        with database.session() as session:
            rows = session.execute(select(Job.kind, Job.state, Job.attempts, func.count())
                                   .group_by(Job.kind, Job.state, Job.attempts)).all()
            failed = [f"job {job_id} ({kind}, {attempts} attempts): "
                      f"{(error or '').strip().splitlines()[-1:] or ['?']}"
                      for job_id, kind, attempts, error in session.execute(
                          select(Job.id, Job.kind, Job.attempts, Job.error)
                          .where(Job.state == "failed"))]
            retried = session.scalar(select(func.count()).select_from(Job).where(
                Job.retry_reasons != ""))
            reasons = [r for (r,) in session.execute(select(Job.retry_reasons).where(
                Job.retry_reasons != "").limit(3))]
            prehighlighted = session.scalar(select(func.count()).select_from(Document).where(
                Document.prehighlighted_at.is_not(None)))
            documents = session.scalar(select(func.count()).select_from(Document))
            without_job = 0
            for (project_id,) in session.execute(select(Document.project_id).where(
                    Document.prehighlighted_at.is_(None)).distinct()):
                covered = waiting_document_ids(session, project_id)
                if covered is None:
                    continue  # a waiting job covers every document
                pending = session.scalars(select(Document.id).where(
                    Document.project_id == project_id, Document.prehighlighted_at.is_(None)))
                without_job += sum(1 for i in pending if i not in covered)
    finally:
        database.dispose()
    return {"by_kind_state_attempts": {f"{kind} {state} attempts={attempts}": count
                                       for kind, state, attempts, count in sorted(rows)},
            "states": dict(sum((Counter({state: count}) for _, state, _, count in rows),
                               Counter())),
            "retried": retried, "retry_reasons_sample": reasons, "failed": failed,
            "documents_prehighlighted": f"{prehighlighted} of {documents}",
            "documents_without_job": without_job}


def server_tracebacks(log: Path) -> dict:
    """How many tracebacks the server logged, and the exception line of the last few."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    count, last, inside = 0, [], False
    for line in lines:
        if line.startswith("Traceback"):
            count, inside = count + 1, True
        elif inside and line and not line.startswith(" "):
            last.append(line[:200])  # the exception's own line ends the traceback
            inside = False
    return {"count": count, "last": last[-5:],
            # gunicorn's arbiter killed a worker that did not check in (a busy machine):
            # its requests are cut and a new worker pays the app's start-up again.
            "worker_timeouts": sum("WORKER TIMEOUT" in line for line in lines)}
