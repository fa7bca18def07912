"""Load and crash test: simulated annotators against a gunicorn-served app, then a
reconciliation of the database against every save the clients saw acknowledged.

    python benchmarks/load_test.py --seconds 60 --annotators 20            # SQLite
    python benchmarks/load_test.py --database-url postgresql://...         # PostgreSQL
    python benchmarks/load_test.py --crash                                 # SIGKILL mid-run
    python benchmarks/load_test.py --import-documents 250000 --seconds 300 # import meanwhile
    python benchmarks/load_test.py --think 2                               # people's pace
    python benchmarks/load_test.py --serve --annotators 50 --think 1       # `annotator serve`
    python benchmarks/load_test.py --serve --restart-postgres-at 40 --import-documents 300

Each simulated annotator logs in, loads its documents, creates edits, updates them with
the version it was given, and deliberately sends conflicting saves: a save with an old
version, and two "tabs" saving the same edit with the same version at the same moment
(exactly one may win). Traffic goes to 127.0.0.1 only; every loop is bounded in time.

Prints requests, latency percentiles, errors by status, acknowledged saves missing from
the database (must be 0) and stale saves wrongly accepted (must be 0); exits 1 otherwise.
With ``--import-documents N`` an `annotator import` of N generated documents into another
project runs while the annotators save; the 5xx count and the p95 of saves (PUT of an edit)
during the import are printed too.

``--serve`` starts the app as a user does, `annotator serve` with no flags but a free port
(gunicorn with its default worker processes, and the job worker that runs the import's
pre-highlighting chunks); without it, gunicorn runs directly with ``--workers``.
``--restart-postgres-at S`` runs its own PostgreSQL server, stops it (``pg_ctl -m fast``)
S seconds into the run and starts it again ``--down`` seconds later. Every run probes
/healthz every 0.5 s (the largest time is printed) and reconciles the jobs: by kind, state
and attempts; it fails when a job failed for good or an imported document has no job, when
a response is a 500, or a 503 without Retry-After (503s with it are counted: the outage).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load_faults import (  # noqa: E402  (a sibling script, found through the path above)
    HealthProbe,
    drop_postgres,
    job_report,
    own_postgres,
    restart_postgres,
    serve_argv,
    server_tracebacks,
    stop_serve,
)

PASSWORD = "load-test-password"
# How long the logins before the measured part may take, at most (a bound, not a wait).
LOGIN_SECONDS = 600


class Ledger:
    """What the clients saw acknowledged, and what went wrong."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.by_method: dict[str, list[float]] = {}  # reads (GET) against writes
        self.connection_errors: Counter = Counter()  # what the client saw, by message
        self.saves: list[tuple[float, float]] = []  # (finished at, seconds) of each save
        self.statuses: Counter[str] = Counter()
        self.unavailable_without_retry_after = 0  # 503s that do not say when to try again
        self.acked: dict[int, tuple[int, str]] = {}  # edit id -> (version, question)
        self.stale_accepted = 0
        self.stale_statuses: Counter[int] = Counter()  # answers to the deliberately stale saves
        self.race_both_won = 0
        self.login_seconds: list[float] = []
        # The measured part starts when every annotator has logged in (:meth:`begin`): a
        # login is a deliberately slow password hash, and 50 at once would otherwise fill
        # the first half of the run (load_logins_and_saves.py measures login bursts).
        self.begun = threading.Event()
        self.begun_at = self.deadline = 0.0

    def begin(self, seconds: float) -> None:
        self.begun_at = time.monotonic()
        self.deadline = self.begun_at + seconds
        self.begun.set()

    def request(self, status: str, seconds: float, method: str = ""):
        with self.lock:
            self.latencies.append(seconds)
            self.statuses[status] += 1
            self.by_method.setdefault(method, []).append(seconds)

    def ack(self, edit: dict):
        with self.lock:
            known = self.acked.get(edit["id"])
            if known is None or edit["version"] > known[0]:
                self.acked[edit["id"]] = (edit["version"], edit["fields"].get("question", ""))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(database_url: str, annotators: int, documents: int) -> None:
    from annotator.annotate.assignment import assign_documents
    from annotator.core.records import DocumentRecord
    from annotator.db import Database
    from annotator.ingest import store_documents
    from annotator.study.accounts import create_user
    from annotator.study.projects import create_project

    database = Database(database_url)
    database.upgrade()
    with database.session() as session:
        for i in range(annotators):
            create_user(session, f"load{i:02d}", PASSWORD, "annotator")
        project = create_project(session, "load", "infolossqa")
        records = [DocumentRecord(
            external_id=f"doc{i}", line=i + 1,
            source=f"Patients (n = {40 + i}) received {i % 9 + 1}.5 mg/kg i.v. daily for "
                   f"{i % 12 + 2} weeks in a double-blind, placebo-controlled trial. "
                   "The primary outcome was the Short IBD Questionnaire score.",
            target="Patients got a drug for a few weeks. The study looked at quality of life.",
        ) for i in range(documents)]
        store_documents(session, project, records, "generated")
        assign_documents(session, project, [f"load{i:02d}" for i in range(annotators)])
    database.dispose()


class Server:
    """gunicorn run directly with ``workers`` processes, or (``serve``) `annotator serve`
    with no flags but the port; its output goes to ``log`` (a file)."""

    def __init__(self, env: dict, port: int, workers: int, *, serve: bool = False,
                 log: Path | None = None):
        self.env, self.port, self.workers, self.serve = env, port, workers, serve
        self.log = log
        self.process: subprocess.Popen | None = None

    def argv(self) -> list[str]:
        from annotator.commands.serve import gunicorn_argv

        if self.serve:
            return serve_argv(self.port)
        return [*gunicorn_argv(self.workers, f"127.0.0.1:{self.port}", access_log=False),
                "--graceful-timeout", "1"]

    def start(self):
        output = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(self.argv(), env=self.env, stdout=output,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        if self.log:
            output.close()  # the child holds its own copy
        deadline = time.monotonic() + 180  # `serve` migrates, then starts its workers
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/login", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("the server did not come up")

    def kill(self):
        """SIGKILL the whole process group: no graceful shutdown, no flush."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.serve and self.process:
            stop_serve(self.process)
        elif self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)


def annotator_loop(base: str, username: str, deadline: float, ledger: Ledger, seed: int,
                   think: float = 0.0, stop: threading.Event | None = None,
                   logged_in: threading.Barrier | None = None):
    """One simulated annotator, until ``deadline`` (a monotonic time) or ``stop`` is set;
    with ``logged_in``, it logs in, waits for the others, and goes on until the ledger's
    deadline (the barrier's action sets it: :meth:`Ledger.begin`).
    ``think`` is the mean pause (seconds, drawn uniformly between half and one and a half
    times it) before each action, as a person reads and types; 0 hammers the server as
    fast as it answers (a stress test, not a workload)."""
    rng = random.Random(seed)
    stop = stop or threading.Event()

    def pause():
        if think:
            time.sleep(min(max(0.0, deadline - time.monotonic()),
                           rng.uniform(0.5 * think, 1.5 * think)))

    with httpx.Client(base_url=base, timeout=15, follow_redirects=False) as client:
        started = time.perf_counter()
        token = login(client, username, deadline)
        if token is None:
            if logged_in is not None:
                logged_in.abort()  # the others stop waiting; the run reports it
            return
        with ledger.lock:
            ledger.login_seconds.append(time.perf_counter() - started)
        if logged_in is not None:
            try:
                logged_in.wait()
            except threading.BrokenBarrierError:
                return
            deadline = ledger.deadline
        headers = {"X-CSRFToken": token}
        assignments = []
        while time.monotonic() < deadline and not stop.is_set():
            try:
                if not assignments:
                    page = call(client, ledger, "GET", "/my")
                    assignments = [int(x) for x in _assignment_ids(page.text)]
                    continue
                assignment = rng.choice(assignments)
                pause()
                call(client, ledger, "GET", f"/api/assignments/{assignment}")
                pause()
                created = call(client, ledger, "POST", f"/api/assignments/{assignment}/edits",
                               headers=headers, json={
                                   "edit_type": "deletion",
                                   "fields": {"question": f"q-{username}-{rng.random():.6f}"},
                                   "spans": [{"side": "source", "start": 0, "end": 8}]})
                if created.status_code != 201:
                    continue
                edit = created.json()["edit"]
                ledger.ack(edit)
                stale_version = edit["version"]
                pause()
                updated = save(client, ledger, headers, edit, f"u-{rng.random():.6f}")
                if updated is None:
                    continue
                # A save based on the version before the update must be refused.
                stale = call(client, ledger, "PUT", f"/api/edits/{edit['id']}", headers=headers,
                             json={"version": stale_version, "fields": {"question": "stale"}})
                with ledger.lock:
                    ledger.stale_statuses[stale.status_code] += 1
                if stale.status_code == 200:
                    with ledger.lock:
                        ledger.stale_accepted += 1
                    ledger.ack(stale.json()["edit"])
                # Two tabs save the same version at the same moment: one may win.
                race(client, ledger, headers, updated)
            except httpx.HTTPError:
                time.sleep(0.2)  # server down (crash test): retry until it is back


def login(client, username, deadline):
    while time.monotonic() < deadline:
        try:
            page = client.get("/login")
            token = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
            response = client.post("/login", data={"username": username, "password": PASSWORD,
                                                   "csrf_token": token})
            if response.status_code == 302:
                home = client.get("/my")
                return home.text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
            time.sleep(0.5)  # refused (the database away: 503): try again
        except (httpx.HTTPError, IndexError):
            time.sleep(0.2)
    return None


def call(client, ledger, method, path, **kwargs):
    started = time.perf_counter()
    try:
        response = client.request(method, path, **kwargs)
    except httpx.HTTPError as exc:
        ledger.request("connection error", time.perf_counter() - started, method)
        with ledger.lock:
            ledger.connection_errors[f"{type(exc).__name__}: {exc}"[:120]] += 1
        raise
    ledger.request(str(response.status_code), time.perf_counter() - started, method)
    if response.status_code == 503:
        # The database is away: a person reads "try again in a few seconds" and does.
        wait = response.headers.get("Retry-After", "")
        if not wait.isdigit():
            with ledger.lock:
                ledger.unavailable_without_retry_after += 1
        time.sleep(min(int(wait or 1), 5) if wait.isdigit() else 1)
    return response


def save(client, ledger, headers, edit, question):
    started = time.perf_counter()
    response = call(client, ledger, "PUT", f"/api/edits/{edit['id']}", headers=headers,
                    json={"version": edit["version"], "fields": {"question": question}})
    with ledger.lock:
        ledger.saves.append((time.monotonic(), time.perf_counter() - started))
    if response.status_code != 200:
        return None
    updated = response.json()["edit"]
    ledger.ack(updated)
    return updated


def race(client, ledger, headers, edit):
    results = []

    def tab(label):
        try:
            results.append(save(client, ledger, headers, edit, f"race-{label}-{time.time()}"))
        except httpx.HTTPError:
            results.append(None)

    threads = [threading.Thread(target=tab, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if sum(r is not None for r in results) > 1:
        with ledger.lock:
            ledger.race_both_won += 1


def _assignment_ids(html: str):
    marker = 'href="/assignments/'
    for chunk in html.split(marker)[1:]:
        yield chunk.split('"', 1)[0]


def reconcile(database_url: str, ledger: Ledger) -> int:
    """Acknowledged saves that the database lost (missing edit or older content)."""
    from annotator.db import Database
    from annotator.models import Edit

    database = Database(database_url)
    missing = 0
    with database.session() as session:
        for edit_id, (version, question) in ledger.acked.items():
            edit = session.get(Edit, edit_id)
            if edit is None or edit.version < version:
                missing += 1
            elif edit.version == version and edit.fields.get("question") != question:
                missing += 1
    database.dispose()
    return missing


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000 if ordered else 0.0


def run_import(env: dict, tmp: str, count: int, window: dict) -> None:
    """`annotator import bulk FILE` of ``count`` generated documents, timed into ``window``."""
    from scale import generate

    path = Path(tmp) / "bulk.jsonl"
    generate(path, count)
    annotator = Path(sys.executable).with_name("annotator")
    subprocess.run([str(annotator), "project", "create", "bulk", "--schema", "infolossqa"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    window["start"] = time.monotonic()
    done = subprocess.run([str(annotator), "import", "bulk", str(path)], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    window["end"] = time.monotonic()
    window["returncode"] = done.returncode
    window["error"] = done.stderr[-500:] if done.returncode else ""


def run(database_url: str | None = None, *, annotators: int = 20, seconds: float = 60,
        workers: int = 4, documents: int = 60, crash: bool = False,
        import_documents: int = 0, think: float = 0.0, serve: bool = False,
        restart_postgres_at: float | None = None, down: float = 3.0) -> dict:
    postgres = own_postgres() if restart_postgres_at is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="annotator-load-") as tmp:
            database_url = (postgres.url if postgres else database_url) or \
                f"sqlite:///{tmp}/load.sqlite3"
            result = _run(database_url, tmp, annotators=annotators, seconds=seconds,
                          workers=workers, documents=documents, crash=crash,
                          import_documents=import_documents, think=think, serve=serve,
                          postgres=postgres, restart_at=restart_postgres_at, down=down)
    finally:
        if postgres is not None:
            drop_postgres(postgres)
    return result


def _run(database_url: str, tmp: str, *, annotators, seconds, workers, documents, crash,
         import_documents, think, serve, postgres, restart_at, down) -> dict:
    load_before = os.getloadavg()
    prepare(database_url, annotators, documents)
    port = free_port()
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": database_url,
           "ANNOTATOR_INSTANCE_PATH": tmp, "ANNOTATOR_SECRET_KEY": "load-test-secret",
           "PYTHONPATH": str(ROOT)}
    # An installed tool has its bytecode compiled (pip does it); a server told not to write
    # it compiles the app's source again in every worker process it starts.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    log = Path(tmp) / "server.log"
    server = Server(env, port, workers, serve=serve, log=log)
    server.start()
    ledger = Ledger()
    started = time.monotonic()
    # Logins may take minutes on a busy machine (50 password hashes at once); the measured
    # ``seconds`` start after the last (Ledger.begin).
    login_deadline = started + seconds + LOGIN_SECONDS
    logged_in = threading.Barrier(annotators, action=lambda: ledger.begin(seconds))
    base = f"http://127.0.0.1:{port}"
    window: dict = {}
    restart: dict = {}
    # gunicorn run directly has no job worker: its /healthz would say "missing" (503).
    probe = HealthProbe(base, "/healthz" if serve else "/healthz?skip=worker")
    probe.start()
    try:
        with ThreadPoolExecutor(max_workers=annotators + 2) as pool:
            if import_documents:
                importing = pool.submit(run_import, env, tmp, import_documents, window)
            if postgres is not None:
                restarting = pool.submit(restart_postgres, postgres, restart_at, down,
                                         ledger.begun, restart)
            futures = [pool.submit(annotator_loop, base, f"load{i:02d}", login_deadline,
                                   ledger, i, think, None, logged_in)
                       for i in range(annotators)]
            if crash and ledger.begun.wait(LOGIN_SECONDS):
                time.sleep(seconds / 2)
                server.kill()
                time.sleep(1)
                server.start()
            for future in futures:
                future.result()
            if import_documents:
                importing.result()
            if postgres is not None:
                restarting.result()
    finally:
        probe.finish()
        server.stop()
    missing = reconcile(database_url, ledger)
    jobs = job_report(database_url)
    load_after = os.getloadavg()
    during = [s for t, s in ledger.saves
              if window.get("start", 0) <= t <= window.get("end", float("inf"))]
    return {
        "database": database_url.split(":", 1)[0], "annotators": annotators, "seconds": seconds,
        "server": "annotator serve (no flags but --port)" if serve
        else f"gunicorn --workers {workers}",
        "crash": crash, "think_seconds": think,
        "logins": {"count": len(ledger.login_seconds),
                   "p50_ms": percentile(ledger.login_seconds, 50),
                   "max_ms": percentile(ledger.login_seconds, 100),
                   "all_logged_in_after_s": round(ledger.begun_at - started, 1)
                   if ledger.begun.is_set() else None},
        "requests": len(ledger.latencies),
        "load_average_1_5_15": {"before": [round(x, 2) for x in load_before],
                                "after": [round(x, 2) for x in load_after]},
        "latency_ms": {"p50": percentile(ledger.latencies, 50),
                       "p95": percentile(ledger.latencies, 95),
                       "p99": percentile(ledger.latencies, 99)},
        "latency_ms_by_method": {method: {"requests": len(values),
                                          "p50": percentile(values, 50),
                                          "p95": percentile(values, 95)}
                                 for method, values in sorted(ledger.by_method.items())},
        "statuses": dict(sorted(ledger.statuses.items())),
        "connection_errors": dict(ledger.connection_errors),
        "acknowledged_edits": len(ledger.acked),
        "acknowledged_saves_missing": missing,
        "stale_saves_accepted": ledger.stale_accepted + ledger.race_both_won,
        "5xx": sum(n for status, n in ledger.statuses.items() if status.startswith("5")),
        "503_without_retry_after": ledger.unavailable_without_retry_after,
        "saves_p95_ms": percentile([s for _, s in ledger.saves], 95),
        "postgres_restart": restart or None,
        "healthz": probe.summary(),
        "jobs": jobs,
        "server_log_tracebacks": server_tracebacks(log),
        "import": {"documents": import_documents,
                   "seconds": round(window["end"] - window["start"], 1) if "end" in window
                   else None, "exit_code": window.get("returncode"),
                   "error": window.get("error"), "saves_during": len(during),
                   "saves_during_p95_ms": percentile(during, 95)} if import_documents else None,
    }


def failures(result: dict) -> list[str]:
    """What makes the run fail (empty: it passed)."""
    statuses, jobs = result["statuses"], result["jobs"]
    allowed_503 = statuses.get("503", 0) if result["postgres_restart"] else 0
    problems = {
        "acknowledged saves missing": result["acknowledged_saves_missing"],
        "stale saves accepted": result["stale_saves_accepted"],
        "responses 500": statuses.get("500", 0),
        "other 5xx": result["5xx"] - statuses.get("500", 0) - allowed_503,
        "503 without Retry-After": result["503_without_retry_after"],
        "annotators who could not log in": result["annotators"] - result["logins"]["count"],
        "jobs failed": len(jobs["failed"]),
        "imported documents without a job": jobs["documents_without_job"],
        "import failed": bool(result["import"] and result["import"]["exit_code"] != 0),
    }
    return [f"{what}: {count}" for what, count in problems.items() if count]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=4,
                        help="gunicorn worker processes (not with --serve: its default)")
    parser.add_argument("--documents", type=int, default=60)
    parser.add_argument("--crash", action="store_true", help="SIGKILL the server mid-run")
    parser.add_argument("--import-documents", type=int, default=0,
                        help="run an import of this many documents during the load")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds an annotator pauses before each action (0: no "
                             "pause, a stress test)")
    parser.add_argument("--serve", action="store_true",
                        help="start `annotator serve` with no flags (but a free port) instead "
                             "of gunicorn directly")
    parser.add_argument("--restart-postgres-at", type=float, metavar="SECONDS",
                        help="run an own PostgreSQL server and restart it (pg_ctl -m fast) "
                             "this many seconds into the run (not with --database-url)")
    parser.add_argument("--down", type=float, default=3.0,
                        help="seconds PostgreSQL stays stopped (with --restart-postgres-at)")
    args = parser.parse_args(argv)
    if args.restart_postgres_at is not None and args.database_url:
        parser.error("--restart-postgres-at runs its own PostgreSQL server: leave out "
                     "--database-url")
    result = run(args.database_url, annotators=args.annotators, seconds=args.seconds,
                 workers=args.workers, documents=args.documents, crash=args.crash,
                 import_documents=args.import_documents, think=args.think, serve=args.serve,
                 restart_postgres_at=args.restart_postgres_at, down=args.down)
    print(json.dumps(result, indent=2))
    problems = failures(result)
    print("FAILED: " + "; ".join(problems) if problems else
          "OK: no acknowledged save lost, no stale save accepted, no 500, no job failed")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
