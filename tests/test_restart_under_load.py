"""Issue 44, item 3, done when "a PostgreSQL restart during a load run loses no job and
answers no 500": `annotator serve` (gunicorn worker processes and the job worker in the
serving process) on a PostgreSQL server of the test's own (tests/private_postgres.py).
Three annotators save through the API while a pre-highlighting chunk runs (released once
they save, as a back-off releases a job: ``not_before``); the server is
stopped as an administrator restarts it (``pg_ctl -m fast``: every client is sent
AdminShutdown) and started again once a request got its 503 and the job met the error.

Asserted: no response is a 500 (503s all carry Retry-After); every save acknowledged,
before, during or after the outage, is stored; /healthz answers during the outage (503,
database unreachable) and after it (200, ok); the job is handed back and finishes: done,
with one attempt more than before and the reason of the interrupted one kept. The simulated
annotators are benchmarks/load_test.py's (a shortened run of the benchmark in a test)."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import func, select, update

from annotator.db import Database
from annotator.models import Document, Job
from annotator.study import jobs
from tests.waiting import wait_until as _until

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("load_test", ROOT / "benchmarks" / "load_test.py")
load_test = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_test)

ANNOTATORS = 3
DOCUMENTS = 40  # one pre-highlighting chunk, long enough to be running at the restart
WAIT_SECONDS = 300  # an upper bound on each wait (a busy machine), never a measured time
SECRET = "c81f0e5b9d2a47e3b6f1a09d8c7e52b4f3a6d1e0"
HANDED_BACK = "met a database error, handing it back"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health(base: str) -> tuple[int, dict] | None:
    try:
        answer = httpx.get(f"{base}/healthz", timeout=30)
    except httpx.HTTPError:
        return None
    return answer.status_code, answer.json()


def _chunk(database: Database) -> tuple[str, int, int, str, int]:
    """The pre-highlighting job (state, attempts, documents done, retry reasons) and how
    many documents are pre-highlighted."""
    with database.session() as session:
        job = session.scalars(select(Job).where(Job.kind == "prehighlight")).one()
        done = session.scalar(select(func.count()).select_from(Document).where(
            Document.prehighlighted_at.is_not(None)))
        return job.state, job.attempts, job.progress_done, job.retry_reasons, done


def _hold_the_chunk(database: Database, until) -> None:
    """Let the queued chunk be claimed from ``until`` on (None: at once), as a back-off
    does (``not_before``)."""
    with database.session() as session:
        session.execute(update(Job).where(Job.kind == "prehighlight").values(not_before=until))


def test_a_postgres_restart_under_load_loses_nothing_and_answers_no_500(postgres, tmp_path):
    load_test.prepare(postgres.url, ANNOTATORS, DOCUMENTS)  # queues one chunk of them all
    database = Database(postgres.url)
    # Held until the annotators are saving: on a quiet machine the chunk would otherwise be
    # done before they have logged in.
    _hold_the_chunk(database, jobs.now() + timedelta(days=1))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": postgres.url,
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance"),
           "ANNOTATOR_SECRET_KEY": SECRET, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    log = tmp_path / "serve.log"
    # Two worker processes, not the machine's auto count: the test shares a busy machine.
    server = subprocess.Popen([*load_test.serve_argv(port), "--workers", "2"], env=env,
                              stdout=log.open("w"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    ledger, stop = load_test.Ledger(), threading.Event()
    try:
        _until(lambda: (_health(base) or (0,))[0] == 200, WAIT_SECONDS,
               "the server and its job worker to be healthy")
        with ThreadPoolExecutor(ANNOTATORS) as pool:
            clients = [pool.submit(load_test.annotator_loop, base, f"load{i:02d}",
                                   time.monotonic() + 3 * WAIT_SECONDS, ledger, i, 0.1, stop)
                       for i in range(ANNOTATORS)]
            _until(lambda: len(ledger.acked) >= ANNOTATORS, WAIT_SECONDS, "some saves")
            _hold_the_chunk(database, None)
            # The restart comes while the chunk runs (a document already stored: the model
            # is loaded, so the job is between documents and reads and writes often).
            _until(lambda: _chunk(database)[0] == "running" and _chunk(database)[4] >= 1,
                   WAIT_SECONDS, "the chunk to be running")
            database.dispose()  # (its connections would be cut anyway)
            postgres.stop("fast")
            during = _health(base)
            assert during is not None and during[0] == 503, during
            assert during[1]["database"] == "unreachable", during
            _until(lambda: ledger.statuses["503"] >= 1, WAIT_SECONDS, "a save to get 503")
            _until(lambda: HANDED_BACK in log.read_text(errors="replace"), WAIT_SECONDS,
                   "the job to meet the outage")
            acked_at_restart = len(ledger.acked)
            postgres.start()
            _until(lambda: (_health(base) or (0,))[0] == 200, WAIT_SECONDS,
                   "/healthz to be ok again")
            after = _health(base)
            assert after[1]["database"] == "ok", after
            _until(lambda: len(ledger.acked) > acked_at_restart + ANNOTATORS, WAIT_SECONDS,
                   "saves after the restart")
            stop.set()
            for client in clients:
                client.result()  # an exception in a simulated annotator fails the test
        state, attempts, _, reasons, _ = _until(
            lambda: (found := _chunk(database))[0] in ("done", "failed") and found,
            WAIT_SECONDS, "the chunk to end")
    finally:
        stop.set()
        load_test.stop_serve(server)
    assert (state, attempts) == ("done", 2), (state, attempts, reasons)
    # The driver's error class and message: OperationalError (connection refused) or
    # AdminShutdown (the fast shut-down ended its session), the job failed for good.
    assert re.fullmatch(r"attempt 1 at \S+: \w+: .+", reasons), reasons
    assert _chunk(database)[4] == DOCUMENTS  # every document pre-highlighted

    assert ledger.statuses["503"] >= 1
    assert "500" not in ledger.statuses, ledger.statuses
    assert {s for s in ledger.statuses if s.startswith("5")} == {"503"}, ledger.statuses
    assert ledger.unavailable_without_retry_after == 0
    assert load_test.reconcile(postgres.url, ledger) == 0  # every acknowledged save stored
    assert ledger.stale_accepted == ledger.race_both_won == 0
    assert ledger.statuses["409"] >= 1  # the deliberate stale saves were refused
    database.dispose()
