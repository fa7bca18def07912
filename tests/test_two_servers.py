"""Issue 31, done when: two `annotator serve` processes on different ports and one
`annotator worker` share one database (PostgreSQL in CI via scripts/with-postgres.sh; the
SQLite pass runs the same on one file). Annotators save through both servers (one login
works on both: the servers share ANNOTATOR_SECRET_KEY, as behind a proxy); a lead imports
documents through one server's set-up page and sees them pre-highlighted through the
other; the worker is killed with SIGKILL in the middle of a refit and a new worker
finishes that job; the lead adjudicates a document and cuts a release through one server
(the worker builds it),
and lists, verifies and downloads it (one zip) through the other, each server with its own
exports folder. No acknowledged save is lost and no request gets a 5xx."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import zipfile
from collections import Counter
from pathlib import Path

import httpx
from sqlalchemy import select

from annotator.annotate.assignment import assign_documents
from annotator.annotate.store import set_status
from annotator.db import Database
from annotator.ingest import import_file
from annotator.models import Assignment, AuditEvent, Document, Edit, Job, User
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.helpers import write_jsonl
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
ANNOTATOR = str(Path(sys.executable).with_name("annotator"))
PASSWORD = "two-servers-password"
ANNOTATORS = ("ana", "ben", "cy", "dee")
SECRET = "f3a9c1e07b5d48a2961c0d7e4b3a8f15c2d9e6a1b7f04c83"


def _pairs(count: int, prefix: str, seed: int) -> list[dict]:
    """Abstract-like pairs (long enough that pre-highlighting and re-ranking take a while)."""
    rng = random.Random(seed)
    drugs = ["metformin", "vitamin D", "budesonide", "aspirin", "infliximab"]
    records = []
    for i in range(count):
        drug = rng.choice(drugs)
        records.append({
            "id": f"{prefix}{i:03d}",
            "source": (f"BACKGROUND: {drug.title()} is widely used. METHODS: In a double-blind"
                       f", placebo-controlled trial, {rng.randint(40, 900)} patients received "
                       f"{rng.randint(1, 9)}.{rng.randint(0, 9)} mg/kg {drug} daily for "
                       f"{rng.randint(2, 52)} weeks. RESULTS: The risk ratio was "
                       f"0.{rng.randint(50, 99)} (95% CI 0.{rng.randint(30, 49)}-0.99). "
                       "CONCLUSIONS: Further trials are needed."),
            "target": (f"Researchers tested {drug} in a study. Some patients got the medicine "
                       "for a few weeks. It helped a little."
                       + (" Here is the simplified version: it works." if i % 5 == 0 else "")),
        })
    return records


def _prepare(database_url: str, tmp_path: Path) -> int:
    database = Database(database_url)
    database.upgrade()
    with database.session() as session:
        lead = create_user(session, "lee", PASSWORD, "lead")
        for name in ANNOTATORS:
            create_user(session, name, PASSWORD, "annotator")
        project = create_project(session, "crowd", "infolossqa", annotators_per_doc=2,
                                 leads=[lead])
        import_file(session, project, write_jsonl(tmp_path / "first.jsonl",
                                                  _pairs(8, "a", 1) + _pairs(1, "z", 3)))
        assign_documents(session, project, list(ANNOTATORS))
        # z000: both of its annotators finished it finding nothing (set up here), so the
        # lead can adjudicate it and cut a release while the others are at work.
        for assignment in session.scalars(select(Assignment).join(Document).where(
                Document.external_id == "z000")):
            set_status(session, assignment, "done", assignment.version, assignment.user_id)
        project.settings = {**project.settings, "prehighlight": {
            "auto_learn": True, "refit_every": 2}}
        project_id = project.id
    database.dispose()
    return project_id


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.acked: dict[int, tuple[int, str]] = {}  # edit id -> (version, question)

    def seen(self, response: httpx.Response) -> httpx.Response:
        with self.lock:
            self.statuses[response.status_code] += 1
        return response

    def ack(self, edit: dict) -> None:
        with self.lock:
            known = self.acked.get(edit["id"])
            if known is None or edit["version"] > known[0]:
                self.acked[edit["id"]] = (edit["version"], edit["fields"].get("question", ""))


def _start(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(argv, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


POLL = 0.2  # seconds between looks at the database or a server: the worker needs the CPU


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _login(client: httpx.Client, base: str, username: str) -> str:
    page = client.get(f"{base}/login")
    token = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    answer = client.post(f"{base}/login", data={"username": username, "password": PASSWORD,
                                                "csrf_token": token})
    assert answer.status_code == 302, answer.status_code
    home = client.get(f"{base}/my")
    return home.text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]


def _annotate(bases, username, assignment_ids, ledger, errors: list) -> None:
    """Save edits through both servers in turn (one login, one cookie): create through
    one, update through the other, and a stale save that must be refused."""
    try:
        with httpx.Client(timeout=60) as client:
            headers = {"X-CSRFToken": _login(client, bases[0], username)}
            for k, assignment_id in enumerate(assignment_ids):
                for turn in range(4):
                    base, other = bases[(k + turn) % 2], bases[(k + turn + 1) % 2]
                    _edit(client, base, other, headers, assignment_id,
                          f"{username}-{assignment_id}-{turn}", ledger)
    except BaseException as exc:  # reported by the main thread
        errors.append(f"{username}: {exc!r}")


def _edit(client, base, other, headers, assignment_id, question, ledger) -> None:
    created = ledger.seen(client.post(
        f"{base}/api/assignments/{assignment_id}/edits", headers=headers, json={
            "edit_type": "deletion", "fields": {"question": question, "answer": "The dose."},
            "spans": [{"side": "source", "start": 0, "end": 10}]}))
    assert created.status_code == 201, created.text
    edit = created.json()["edit"]
    ledger.ack(edit)
    updated = ledger.seen(client.put(f"{other}/api/edits/{edit['id']}", headers=headers,
                                     json={"version": edit["version"], "fields": {
                                         "question": f"updated-{edit['id']}",
                                         "answer": "The dose."}}))
    assert updated.status_code == 200, updated.text
    ledger.ack(updated.json()["edit"])
    stale = ledger.seen(client.put(f"{base}/api/edits/{edit['id']}", headers=headers,
                                   json={"version": edit["version"],
                                         "fields": {"question": "stale"}}))
    assert stale.status_code == 409, "a stale save is refused"


def _complete(client, bases, headers, assignment_id, ledger) -> None:
    """Mark an assignment done: read through one server, save through the other."""
    version = ledger.seen(client.get(f"{bases[0]}/api/assignments/{assignment_id}")).json()[
        "assignment"]["version"]
    done = ledger.seen(client.post(f"{bases[1]}/api/assignments/{assignment_id}/status",
                                   headers=headers, json={"status": "done",
                                                          "version": version}))
    assert done.status_code == 200, done.text


def _job_rows(database, project_id, kind):
    with database.session() as session:
        return [(j.id, j.state, j.attempts, j.lease_owner, j.progress_done, j.progress_total)
                for j in session.scalars(select(Job).where(
                    Job.project_id == project_id, Job.kind == kind).order_by(Job.id))]


def test_two_servers_and_a_worker_share_one_database(database_url, tmp_path):
    project_id = _prepare(database_url, tmp_path)
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": database_url,
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance"),
           "ANNOTATOR_EXPORTS_PATH": str(tmp_path / "exports"),
           "ANNOTATOR_SECRET_KEY": SECRET, "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    ports = [_free_port(), _free_port()]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    worker_argv = [ANNOTATOR, "worker", "--poll", "0.2", "--lease", "4"]
    # Each server its own exports folder: nothing may depend on one server's disk.
    processes = [_start([ANNOTATOR, "serve", "--no-worker", "--workers", "2", "--port", str(port)],
                        {**env, "ANNOTATOR_EXPORTS_PATH": str(tmp_path / f"exports-{port}")},
                        tmp_path / f"serve-{port}.log") for port in ports]
    worker = _start(worker_argv, env, tmp_path / "worker-1.log")
    processes.append(worker)
    database = Database(database_url)
    ledger = Ledger()
    try:
        # Database, migrations and the worker's heartbeat.
        wait_until(lambda: all(_healthy(base) for base in bases), 180,
                   "both servers' /healthz to answer 200", 0.3)
        # The first import's pre-highlighting ran in the worker.
        wait_until(lambda: [j[1] for j in _job_rows(database, project_id, "prehighlight")]
                   == ["done"], 300, "the first pre-highlighting job", POLL)

        # A lead imports and assigns through one server while annotators save through both.
        with database.session() as session:
            held = {name: [a.id for a in session.scalars(
                select(Assignment).join(User).join(Document).where(
                    User.username == name, Document.external_id != "z000")
                .order_by(Assignment.id))] for name in ANNOTATORS}
        errors: list[str] = []
        threads = [threading.Thread(target=_annotate, args=(bases, name, held[name], ledger,
                                                            errors)) for name in ANNOTATORS]
        for thread in threads:
            thread.start()
        second = write_jsonl(tmp_path / "second.jsonl", _pairs(60, "b", 2))
        with httpx.Client(timeout=300) as lead_client:
            token = _login(lead_client, bases[0], "lee")
            imported = ledger.seen(lead_client.post(
                f"{bases[0]}/projects/{project_id}/import", data={"csrf_token": token},
                files={"files": ("second.jsonl", second.read_bytes())}))
            assert imported.status_code == 302, imported.text[:500]
            assert "Imported 60 new documents" in lead_client.get(
                httpx.URL(bases[0]).join(imported.headers["Location"])).text
            assigned = ledger.seen(lead_client.post(
                f"{bases[0]}/projects/{project_id}/assign",
                data={"csrf_token": token, "annotators": list(ANNOTATORS),
                      "per_document": "2"}))
            assert assigned.status_code == 302
            assert "Created 120 assignments" in lead_client.get(
                httpx.URL(bases[0]).join(assigned.headers["Location"])).text
        for thread in threads:
            thread.join(600)
        assert errors == []

        # The new documents, pre-highlighted by the worker, seen through the other server.
        with database.session() as session:
            new_assignment, owner = session.execute(
                select(Assignment.id, User.username).join(Document).join(User)
                .where(Document.external_id == "b000").order_by(Assignment.id)).first()
        with httpx.Client(timeout=60) as client:
            _login(client, bases[1], owner)

            def prehighlighted():
                body = ledger.seen(client.get(
                    f"{bases[1]}/api/assignments/{new_assignment}")).json()
                return body["document"]["alignment"] is not None and body
            body = wait_until(prehighlighted, 600, "the new documents pre-highlighted", 1.0)
        assert any(s["kind"] == "leaked_instruction" for s in body["suggestions"]), \
            "b000 carries a leaked instruction the pre-highlighter marks"
        # (b000 is in the job's first chunk: the job may still be running the others.)
        wait_until(lambda: [j[1] for j in _job_rows(database, project_id, "prehighlight")]
                   == ["done", "done"], 600, "the second pre-highlighting job", POLL)

        # ana finishes two documents (refit_every 2): the second queues a refit.
        with httpx.Client(timeout=60) as client:
            headers = {"X-CSRFToken": _login(client, bases[0], "ana")}
            for assignment_id in held["ana"][:2]:
                _complete(client, bases, headers, assignment_id, ledger)
        refit = wait_until(lambda: _job_rows(database, project_id, "refit"), 60,
                           "a queued refit", POLL)[0][0]

        # SIGKILL the worker while it runs the refit; a new worker finishes the job.
        running = wait_until(lambda: [r for r in _job_rows(database, project_id, "refit")
                                      if r[0] == refit and r[1] == "running"], 600,
                             "the refit running", POLL)
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(30)
        killed = [r for r in _job_rows(database, project_id, "refit") if r[0] == refit][0]
        assert killed[1] == "running" and killed[3] == running[0][3], \
            "killed in the middle of the refit"
        second = _start(worker_argv, env, tmp_path / "worker-2.log")
        processes.append(second)
        finished = wait_until(lambda: [r for r in _job_rows(database, project_id, "refit")
                                       if r[0] == refit and r[1] in ("done", "failed")],
                              600, "the refit finished by the second worker", POLL)[0]
        assert finished[1] == "done" and finished[2] == 2, finished
        with database.session() as session:
            learnt = session.scalars(select(AuditEvent).where(
                AuditEvent.project_id == project_id,
                AuditEvent.action == "prehighlight.learn")).all()
        assert learnt and learnt[-1].details["trigger"] == "auto-refresh"
        assert learnt[-1].details["refreshed"] == 68 - 2  # every open document re-ranked
        # The lead adjudicates z000 and cuts a release through one server; it is listed,
        # verified and downloaded through the other (releases live in the database).
        with database.session() as session:
            finished_doc = session.scalar(select(Document.id).where(
                Document.external_id == "z000"))
        with httpx.Client(timeout=120) as lead_client:
            token = _login(lead_client, bases[0], "lee")
            headers = {"X-CSRFToken": token}
            done = ledger.seen(lead_client.post(
                f"{bases[0]}/projects/{project_id}/adjudicate/{finished_doc}/decisions",
                json={"action": "complete", "note": "nothing to decide"}, headers=headers))
            assert done.status_code == 200, done.text[:500]
            cut = ledger.seen(lead_client.post(
                f"{bases[0]}/projects/{project_id}/releases",
                data={"version": "v1", "notes": "two servers"}, headers=headers))
            assert cut.status_code == 302
            assert "Release v1 queued" in lead_client.get(
                httpx.URL(bases[0]).join(cut.headers["Location"])).text
        with httpx.Client(timeout=120) as other:
            _login(other, bases[1], "lee")
            # Built by the worker process, followed through the other server.
            wait_until(lambda: ledger.seen(other.get(
                f"{bases[1]}/projects/{project_id}/releases/status")).json()["stored"]
                == ["v1"], 600, "the release built by the worker", POLL)
            assert [j[1] for j in _job_rows(database, project_id, "release")] == ["done"]
            listing = ledger.seen(other.get(f"{bases[1]}/projects/{project_id}/releases"))
            assert 'data-version="v1"' in listing.text
            bundle = ledger.seen(other.get(
                f"{bases[1]}/projects/{project_id}/releases/v1.zip"))
            assert bundle.status_code == 200
            with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
                names = archive.namelist()
                gold = [json.loads(line) for line in archive.read(
                    next(n for n in names if n.endswith("gold.jsonl"))).decode().splitlines()]
        assert any(n.endswith("MANIFEST.json") for n in names)
        assert [record["id"] for record in gold] == ["z000"]
        verified = subprocess.run([ANNOTATOR, "release", "verify", "crowd", "v1"],
                                  env={**env, "ANNOTATOR_EXPORTS_PATH": str(tmp_path / "cli")},
                                  capture_output=True, text=True, timeout=300)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        for base in bases:
            assert ledger.seen(httpx.get(f"{base}/healthz", timeout=30)).status_code == 200
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)

    # 0 lost saves, 0 5xx.
    assert ledger.acked and all(code < 500 for code in ledger.statuses), ledger.statuses
    missing = []
    with database.session() as session:
        for edit_id, (version, question) in ledger.acked.items():
            edit = session.get(Edit, edit_id)
            if edit is None or edit.version != version or edit.fields["question"] != question:
                missing.append(edit_id)
    database.dispose()
    assert missing == []
    logs = {p.name: p.read_text() for p in tmp_path.glob("*.log")}
    assert not [name for name, text in logs.items() if "Traceback" in text], json.dumps(
        {n: t[-2000:] for n, t in logs.items()})[:6000]
