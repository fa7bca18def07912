"""Load run of issue 41: bursts of 50 simultaneous logins while 20 annotators save edits,
against `annotator serve` (one process, threaded, with its own job worker), then checks.

    python benchmarks/load_logins_and_saves.py                 # 120 s, the done-when run
    python benchmarks/load_logins_and_saves.py --seconds 20    # shorter

`annotator serve` runs as a subprocess on a temporary SQLite database holding a small
project (``load_test.prepare``: 20 annotators and their documents) and 50 more accounts
that only log in. For ``--seconds``:

- the 20 annotators run ``load_test.annotator_loop``: create edits, save them with the
  version they were given, send a deliberately stale save and two simultaneous saves of
  the same version;
- login bursts: 50 fresh clients are released together by a barrier, each GETs the login
  form and POSTs the correct password; the next burst starts when the last answered.
  (Correct passwords: wrong ones from the one address 127.0.0.1 would lock the address
  out after 20, by design, and turn every later login into a 429.)

Then it checks: no answer 5xx (nor a refused or reset connection; a client that gave up
waiting, on a busy machine, is counted and shown, not failed), every login answered 302,
401 or 429, every acknowledged save is in the database (``load_test.reconcile``), every stale save
was refused with 409 (none accepted). Prints the figures as JSON; exits 1 if a check
fails. Traffic goes to 127.0.0.1 only; every loop is bounded by the deadline, bursts also
by :data:`MAX_BURSTS`, and each request by a client timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
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

import load_test  # noqa: E402  (benchmarks/ is not a package)

LOGINS = 50
MAX_BURSTS = 10_000
LOGIN_OK = {302, 401, 429}
MAX_LOGINS = 240  # one loopback address each, 127.0.0.10 to 127.0.0.249
# How long a login client waits for its answer: long, so that a busy machine's slow
# answers are seen (and counted) rather than abandoned; still a bound.
REQUEST_TIMEOUT = 300.0


def prepare(database_url: str, annotators: int, documents: int, logins: int) -> None:
    """The project and annotators of ``load_test.prepare``, and ``logins`` accounts."""
    from annotator.db import Database
    from annotator.study.accounts import create_user

    load_test.prepare(database_url, annotators, documents)
    database = Database(database_url)
    with database.session() as session:
        for i in range(logins):
            create_user(session, f"login{i:02d}", load_test.PASSWORD, "annotator")
    database.dispose()


class Serve:
    """`annotator serve --port P` as a child process in its own session."""

    def __init__(self, env: dict, port: int, log: Path):
        self.env, self.port, self.log = env, port, log
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        annotator = Path(sys.executable).with_name("annotator")
        # Its log (a line per request) goes to a file: a pipe nobody reads would fill up
        # and stop the server.
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(annotator), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"annotator serve exited: {self.output()[-2000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/login",
                             timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("annotator serve did not come up within 60 s")

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> str:
        """SIGTERM (the server hands its job back and exits); its log."""
        if self.process is None:
            return ""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.output()


def one_login(base: str, number: int, start: threading.Barrier,
              ledger) -> tuple[int | str, float]:
    """A fresh client: the form, then the correct password; the status (or the error),
    and the seconds from the barrier's release to the answer of the POST.
    Each login account connects from its own loopback address (127.0.0.10 + number), as
    50 people log in from 50 machines: from one address, more than the throttle's
    per-address limit of attempts in flight at once are answered 429 by design."""
    transport = httpx.HTTPTransport(local_address=f"127.0.0.{10 + number}")
    began = None
    try:
        start.wait()
        began = time.perf_counter()
        with httpx.Client(base_url=base, timeout=REQUEST_TIMEOUT, transport=transport,
                          follow_redirects=False) as client:
            page = load_test.call(client, ledger, "GET", "/login")
            token = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
            status = load_test.call(client, ledger, "POST", "/login", data={
                "username": f"login{number:02d}", "password": load_test.PASSWORD,
                "csrf_token": token}).status_code
            return status, time.perf_counter() - began
    except (httpx.HTTPError, IndexError, threading.BrokenBarrierError) as exc:
        return (f"{type(exc).__name__}: {exc}"[:120],
                time.perf_counter() - (began or time.perf_counter()))


def login_bursts(base: str, deadline: float, logins: int, ledger, outcomes: Counter,
                 seconds: list[float], waits: list[float]) -> int:
    """Bursts of ``logins`` simultaneous logins until the deadline; how many bursts."""
    bursts = 0
    with ThreadPoolExecutor(max_workers=logins) as pool:
        while time.monotonic() < deadline and bursts < MAX_BURSTS:
            start = threading.Barrier(logins, timeout=REQUEST_TIMEOUT)
            began = time.perf_counter()
            results = list(pool.map(lambda i: one_login(base, i, start, ledger),
                                    range(logins)))
            seconds.append(time.perf_counter() - began)
            outcomes.update(str(status) for status, _ in results)
            waits.extend(waited for _, waited in results)
            bursts += 1
    return bursts


def run(*, seconds: float = 120, annotators: int = 20, logins: int = LOGINS,
        documents: int = 40) -> dict:
    with tempfile.TemporaryDirectory(prefix="annotator-logins-") as tmp:
        database_url = f"sqlite:///{tmp}/load.sqlite3"
        prepare(database_url, annotators, documents, logins)
        port = load_test.free_port()
        env = {**os.environ, "ANNOTATOR_DATABASE_URL": database_url,
               "ANNOTATOR_INSTANCE_PATH": tmp, "ANNOTATOR_EXPORTS_PATH": f"{tmp}/exports",
               "PYTHONPATH": str(ROOT)}
        server = Serve(env, port, Path(tmp) / "serve.log")
        server.start()
        base = f"http://127.0.0.1:{port}"
        saves, logs = load_test.Ledger(), load_test.Ledger()
        outcomes: Counter = Counter()
        burst_seconds: list[float] = []
        login_waits: list[float] = []
        deadline = time.monotonic() + seconds
        try:
            with ThreadPoolExecutor(max_workers=annotators + 1) as pool:
                bursts = pool.submit(login_bursts, base, deadline, logins, logs, outcomes,
                                     burst_seconds, login_waits)
                loops = [pool.submit(load_test.annotator_loop, base, f"load{i:02d}", deadline,
                                     saves, i) for i in range(annotators)]
                for loop in loops:
                    loop.result()
                burst_count = bursts.result()
        finally:
            errors = server.stop()
        missing = load_test.reconcile(database_url, saves)
    statuses = saves.statuses + logs.statuses
    stale = dict(sorted((str(k), v) for k, v in saves.stale_statuses.items()))
    return {
        "database": "sqlite", "server": "annotator serve (threaded, one process)",
        "seconds": seconds, "annotators": annotators, "simultaneous_logins": logins,
        "login_bursts": burst_count, "logins": sum(outcomes.values()),
        "login_outcomes": dict(sorted(outcomes.items())),
        "login_burst_seconds": {"p50": round(load_test.percentile(burst_seconds, 50) / 1000, 2),
                                "max": round(max(burst_seconds, default=0.0), 2)},
        "login_answer_seconds": {
            "p50": round(load_test.percentile(login_waits, 50) / 1000, 2),
            "p95": round(load_test.percentile(login_waits, 95) / 1000, 2),
            "max": round(max(login_waits, default=0.0), 2)},
        "requests": len(saves.latencies) + len(logs.latencies),
        "statuses": dict(sorted(statuses.items())),
        "5xx": sum(n for status, n in statuses.items() if status.startswith("5")),
        "connection_errors": dict(saves.connection_errors + logs.connection_errors),
        "save_latency_ms": {"p50": load_test.percentile([s for _, s in saves.saves], 50),
                            "p95": load_test.percentile([s for _, s in saves.saves], 95)},
        "acknowledged_edits": len(saves.acked),
        "acknowledged_saves_missing": missing,
        "stale_save_statuses": stale,
        "stale_saves_accepted": saves.stale_accepted + saves.race_both_won,
        "server_tracebacks": errors.count("Traceback"),
        "server_errors": dict(Counter(_exception_lines(errors)).most_common(10)),
    }


def _exception_lines(log: str):
    """The exception line ending each traceback of the server's log."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            ending = next((later for later in lines[i + 1:] if later and not later[0].isspace()),
                          "?")
            yield ending[:300]


def _timeout(outcome: str) -> bool:
    return outcome.startswith(("ReadTimeout", "WriteTimeout", "PoolTimeout"))


def failures(result: dict) -> list[str]:
    """The checks of the module docstring that failed."""
    found = []
    # A client that gave up waiting (the annotators' 15 s, the logins' 60 s) is reported,
    # not failed: the server may still have answered, and a save never acknowledged
    # cannot be lost. Any other connection error (refused, reset) is a failure.
    broken = {k: v for k, v in result["connection_errors"].items() if not _timeout(k)}
    if result["5xx"] or broken:
        found.append(f"{result['5xx']} answers 5xx, connection errors: {broken}")
    odd = {k: v for k, v in result["login_outcomes"].items()
           if not (k.isdigit() and int(k) in LOGIN_OK or _timeout(k))}
    if odd:
        found.append(f"logins answered otherwise than 302/401/429: {odd}")
    if not result["logins"] or not result["acknowledged_edits"]:
        found.append("nothing was measured (no login or no acknowledged save)")
    if result["acknowledged_saves_missing"]:
        found.append(f"{result['acknowledged_saves_missing']} acknowledged saves missing")
    if result["stale_saves_accepted"] or set(result["stale_save_statuses"]) - {"409"}:
        found.append(f"stale saves not refused with 409: {result['stale_save_statuses']}, "
                     f"{result['stale_saves_accepted']} accepted")
    if result["server_tracebacks"]:
        found.append(f"{result['server_tracebacks']} tracebacks in the server's log")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--logins", type=int, default=LOGINS,
                        help="simultaneous logins per burst")
    parser.add_argument("--documents", type=int, default=40)
    args = parser.parse_args(argv)
    if not 1 <= args.logins <= MAX_LOGINS:
        parser.error(f"--logins: 1 to {MAX_LOGINS}")
    result = run(seconds=args.seconds, annotators=args.annotators, logins=args.logins,
                 documents=args.documents)
    print(json.dumps(result, indent=2))
    problems = failures(result)
    print("OK: no 5xx, logins 302/401/429, no acknowledged save lost, stale saves 409"
          if not problems else "FAILED: " + "; ".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
