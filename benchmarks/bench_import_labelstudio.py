"""Benchmark (issues 32, 44): importing N documents into this tool against Label Studio's
import API (``POST /api/projects/{id}/import``, labelstud.io/api) for the same documents,
in the same run.

Run beside a Label Studio server (LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY, or the
ANNOTATOR_TEST_LABELSTUDIO_URL / _TOKEN that scripts/with-labelstudio.sh exports):
    .venv/bin/python benchmarks/bench_import_labelstudio.py [--documents 1000] [--repeat 3]

Each side imports into a project made for the run, created outside the timing. Timed:

- Label Studio's import API: one request to the running server;
- `annotator import` as a fresh process (what a lead at the command line waits for), so
  its time includes start-up; start-up alone (`annotator import --help`) is reported
  beside it so the per-document cost can be read off;
- the same import through this tool's own running server (``POST
  /projects/<id>/import``, the set-up page's upload, logged in as the project's lead):
  a request to a running server, as Label Studio's API is;
- `annotator project create` on a new database (it migrates) and on one at the head.

Fresh processes run with bytecode caching on (into the run's temporary folder), as an
installed tool does after its first run: environments that set PYTHONDONTWRITEBYTECODE
would otherwise recompile the tool's modules on every start. One untimed run warms it.
Our server runs with ``--workers 1 --no-worker`` (one process, and the queued
pre-highlighting job does not compete with the timing; Label Studio has none to run).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
WORDS = ("patients received the drug daily for two weeks in a randomised trial and "
         "serum levels were measured at baseline").split()
PASSWORD = "bench-password-123"


def documents(n: int) -> list[dict]:
    return [{"id": f"d{i}", "source": " ".join(WORDS[(i + k) % len(WORDS)] for k in range(40)),
             "target": " ".join(WORDS[(i + k) % len(WORDS)] for k in range(12))}
            for i in range(n)]


def best_of(run, repeat: int) -> float:
    """The shortest of ``repeat`` runs; ``run(timed)`` appends the time of the part that
    counts (set-up and clean-up around it are not timed)."""
    timed: list[float] = []
    for _ in range(repeat):
        run(timed)
    return min(timed)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Ours:
    """This tool's side: fresh `annotator` processes on SQLite files in ``tmp``."""

    def __init__(self, tmp: Path, path: Path, count: int):
        script = Path(sys.executable).with_name("annotator")
        self.cli = [str(script)] if script.exists() else [sys.executable, "-m", "annotator"]
        self.tmp, self.path, self.count = tmp, path, count
        self.base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.base_env.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
                             ANNOTATOR_INSTANCE_PATH=str(tmp / "instance"),
                             ANNOTATOR_EXPORTS_PATH=str(tmp / "exports"))
        self.databases = iter(range(1_000_000))

    def env(self, database: str) -> dict:
        return {**self.base_env, "ANNOTATOR_DATABASE_URL": f"sqlite:///{database}"}

    def new_database(self) -> str:
        return str(self.tmp / f"bench{next(self.databases)}.db")

    def run(self, args: list[str], database: str) -> None:
        subprocess.run(self.cli + args, check=True, capture_output=True, env=self.env(database))

    def create(self, name: str, database: str, *extra: str) -> None:
        self.run(["project", "create", name, "--schema", "infolossqa", *extra], database)

    def warm_up(self) -> None:
        database = self.new_database()
        self.create("warm", database)
        self.run(["import", "warm", str(self.path)], database)

    def cli_import(self, timed: list[float]) -> None:
        """A fresh project (not timed), then `annotator import` of the documents."""
        database = self.new_database()
        self.create("bench", database)
        start = time.perf_counter()
        self.run(["import", "bench", str(self.path)], database)
        timed.append(time.perf_counter() - start)

    def start_up(self, timed: list[float]) -> None:
        start = time.perf_counter()
        self.run(["import", "--help"], self.new_database())
        timed.append(time.perf_counter() - start)

    def create_new_database(self, timed: list[float]) -> None:
        database = self.new_database()
        start = time.perf_counter()
        self.create("bench", database)
        timed.append(time.perf_counter() - start)

    def create_at_head(self, timed: list[float]) -> None:
        database = self.new_database()
        self.run(["init"], database)
        start = time.perf_counter()
        self.create("bench", database)
        timed.append(time.perf_counter() - start)

    def web_import(self, repeat: int) -> float:
        """`annotator serve` on a new database, the lead logged in; each round a fresh
        project (not timed), then the upload of the file to its set-up page."""
        database = self.new_database()
        self.run(["user", "add", "lead", "--role", "lead", "--password", PASSWORD], database)
        port = free_port()
        # The upload is one request body: let it hold the whole file.
        env = {**self.env(database), "ANNOTATOR_MAX_REQUEST_BYTES":
               str(max(4 * 1024 * 1024, 2 * self.path.stat().st_size))}
        server = subprocess.Popen(
            self.cli + ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
                        "--no-worker"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as http:
                token = self._login(http, server)
                timed: list[float] = []
                for round_ in range(repeat):
                    name = f"web{round_}"
                    self.create(name, database, "--lead", "lead")
                    project_id = self._project_id(database, name)
                    body = self.path.read_bytes()
                    start = time.perf_counter()
                    response = http.post(f"/projects/{project_id}/import",
                                         data={"csrf_token": token},
                                         files={"files": (self.path.name, body)})
                    timed.append(time.perf_counter() - start)
                    if response.status_code != 302:
                        raise RuntimeError(f"upload answered {response.status_code}: "
                                           f"{response.text[:500]}")
                    stored = self._documents(database, project_id)
                    if stored != self.count:
                        raise RuntimeError(f"upload stored {stored} of {self.count} documents")
                return min(timed)
        finally:
            server.terminate()
            server.wait(timeout=60)

    @staticmethod
    def _login(http: httpx.Client, server: subprocess.Popen) -> str:
        while True:  # until the server answers (it is starting)
            if server.poll() is not None:
                raise RuntimeError("annotator serve exited")
            try:
                page = http.get("/login")
                break
            except httpx.TransportError:
                time.sleep(0.2)
        token = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        response = http.post("/login", data={"username": "lead", "password": PASSWORD,
                                             "csrf_token": token})
        if response.status_code != 302:
            raise RuntimeError(f"login answered {response.status_code}")
        home = http.get("/", follow_redirects=True)
        return home.text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]

    @staticmethod
    def _query(database: str, sql: str, *args):
        import sqlite3  # the benchmark's own check of what the server stored

        with sqlite3.connect(database) as connection:
            return connection.execute(sql, args).fetchone()[0]

    def _project_id(self, database: str, name: str) -> int:
        return self._query(database, "SELECT id FROM projects WHERE name = ?", name)

    def _documents(self, database: str, project_id: int) -> int:
        return self._query(database, "SELECT count(*) FROM documents WHERE project_id = ?",
                           project_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-create", action="store_true",
                        help="Do not time `annotator project create`.")
    args = parser.parse_args()
    url = os.environ.get("LABEL_STUDIO_URL") or os.environ["ANNOTATOR_TEST_LABELSTUDIO_URL"]
    token = (os.environ.get("LABEL_STUDIO_API_KEY")
             or os.environ["ANNOTATOR_TEST_LABELSTUDIO_TOKEN"])
    docs = documents(args.documents)
    with tempfile.TemporaryDirectory() as folder, httpx.Client(
            base_url=url, headers={"Authorization": f"Token {token}"}, timeout=3600) as http:
        tmp = Path(folder)
        path = tmp / "docs.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
        ours = Ours(tmp, path, args.documents)

        def labelstudio(timed: list[float]):
            """A fresh project (not timed), then the import API call, then it goes again."""
            project = http.post("/api/projects/", json={"title": "bench"}).raise_for_status()
            pid = project.json()["id"]
            try:
                start = time.perf_counter()
                http.post(f"/api/projects/{pid}/import",
                          json=[{"data": d} for d in docs]).raise_for_status()
                timed.append(time.perf_counter() - start)
            finally:
                http.delete(f"/api/projects/{pid}/")

        ours.warm_up()
        theirs = best_of(labelstudio, args.repeat)
        mine = best_of(ours.cli_import, args.repeat)
        startup = best_of(ours.start_up, args.repeat)
        web = ours.web_import(args.repeat)
        if not args.skip_create:
            created_new = best_of(ours.create_new_database, args.repeat)
            created_head = best_of(ours.create_at_head, args.repeat)
    n = args.documents
    print(f"Label Studio import API            {theirs:7.3f} s  ({n} documents, running server)")
    print(f"annotator serve, upload (POST)     {web:7.3f} s  (running server)   "
          f"ratio {web / theirs:5.2f} x")
    print(f"annotator import                   {mine:7.3f} s  (a fresh process)  "
          f"ratio {mine / theirs:5.2f} x")
    print(f"annotator start-up (import --help) {startup:7.3f} s  "
          f"({max(mine - startup, 0):.3f} s of the import beyond start-up)")
    if not args.skip_create:
        print(f"annotator project create, new db   {created_new:7.3f} s  (migrates)")
        print(f"annotator project create, at head  {created_head:7.3f} s")


if __name__ == "__main__":
    main()
