"""The list pages at two project sizes (issue 44): are they flat in the number of documents?

For each size, a fresh database gets one project of N documents written with bulk inserts
(two annotators per document in a spread of states, a queue entry per finished document,
a tenth adjudicated), then the real app through Flask's test client measures, logged in as
the lead or as an annotator: the data manager (document order, sorted by agreement,
filtered by status, searched), the adjudication queue, the project overview and
"My documents". Prints p50/p95 per page and size, and the ratio of the p95 at the largest
size to the p95 at the smallest (flat = ~1).

    .venv/bin/python benchmarks/bench_list_pages.py [--sizes 1000 100000] [--rounds 20]
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

Without --database-url each size is a SQLite file in a temporary folder; with it (an admin
URL of a PostgreSQL server), each size is a new database on that server, dropped after.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, insert, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from annotator.app import create_app  # noqa: E402
from annotator.config import Config  # noqa: E402
from annotator.db import Database  # noqa: E402
from annotator.models import (  # noqa: E402
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    ProjectMember,
)
from annotator.study.accounts import create_user  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402
from benchmarks.bench_data_manager import timings  # noqa: E402

PASSWORD = "benchmark-password-1"
CHUNK = 5000  # rows per bulk INSERT
# (ana's status, ben's status) by document number modulo 5: every data-manager status.
STATES = [("done", "done"), ("done", "in_progress"), ("assigned", "assigned"),
          ("skipped", "done"), ("in_progress", "assigned")]


@contextmanager
def database_for(size: int, folder: Path, admin_url: str | None):
    if not admin_url:
        yield f"sqlite:///{folder / f'pages-{size}.sqlite3'}"
        return
    name = f"bench_list_pages_{size}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def build(url: str, size: int) -> int:
    """The project, written in chunks of CHUNK rows: seconds for 100,000 documents."""
    database = Database(url)
    database.upgrade()
    with database.session() as session:
        lead = create_user(session, "lead", PASSWORD, "lead")
        ana = create_user(session, "ana", PASSWORD, "annotator")
        ben = create_user(session, "ben", PASSWORD, "annotator")
        project = create_project(session, "pages", "infolossqa", leads=[lead])
        session.add_all([ProjectMember(project_id=project.id, user_id=u.id, role="annotator")
                         for u in (ana, ben)])
        project_id, people = project.id, (ana.id, ben.id)
    with database.engine.begin() as connection:
        for start in range(0, size, CHUNK):
            numbers = range(start, min(size, start + CHUNK))
            connection.execute(insert(Document), [{
                "project_id": project_id, "external_id": f"d{n}", "position": n,
                "source": f"Patients received {n}.5 mg/kg i.v. daily. The trial was blind.",
                "target": f"Patients got medicine {n}.", "meta": {}, "source_sentences": [],
                "target_sentences": []} for n in numbers])
        ids = connection.execute(select(Document.id, Document.position).where(
            Document.project_id == project_id).order_by(Document.position))
        batch_assignments, batch_queue, batch_states = [], [], []
        for document_id, n in ids:
            states = STATES[n % len(STATES)]
            for user_id, status in zip(people, states, strict=True):
                batch_assignments.append({"document_id": document_id, "user_id": user_id,
                                          "status": status, "seconds_spent": float(n % 97),
                                          "meta": {}})
            if states == ("done", "done"):
                batch_queue.append({"document_id": document_id, "project_id": project_id,
                                    "changes": 1, "computed": 1, "stale": False, "ready": True,
                                    "complete": n % 10 == 0, "agreement": (n % 7) / 7,
                                    "open_total": n % 4, "annotators": "|ana|ben|",
                                    "position": n})
                if n % 10 == 0:
                    batch_states.append({"document_id": document_id, "status": "complete"})
            if len(batch_assignments) >= CHUNK:
                _flush(connection, batch_assignments, batch_queue, batch_states)
        _flush(connection, batch_assignments, batch_queue, batch_states)
    database.dispose()
    return project_id


def _flush(connection, assignments: list, queue: list, states: list) -> None:
    for model, rows in ((Assignment, assignments), (AdjudicationQueueEntry, queue),
                        (AdjudicationState, states)):
        if rows:
            connection.execute(insert(model), rows)
            rows.clear()


def login(client, username: str) -> None:
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    client.post("/login", data={"username": username, "password": PASSWORD,
                                "csrf_token": token})


def pages(project_id: int) -> dict[str, tuple[str, str]]:
    """Page name -> (who, path)."""
    base = f"/projects/{project_id}"
    return {
        "data manager": ("lead", f"{base}/documents"),
        "data manager, page 3": ("lead", f"{base}/documents?page=3"),
        "data manager, by agreement": ("lead", f"{base}/documents?sort=agreement&dir=desc"),
        "data manager, by annotators": ("lead", f"{base}/documents?sort=annotators"),
        "data manager, status ready": ("lead", f"{base}/documents?status=ready"),
        "data manager, search": ("lead", f"{base}/documents?q=medicine+12"),
        "adjudication queue": ("lead", f"{base}/adjudicate"),
        "project overview": ("lead", f"{base}/page/2"),
        "my documents": ("ana", "/my"),
        "my documents, to do": ("ana", "/my?show=todo&page=2"),
    }


def measure(url: str, project_id: int, folder: Path, rounds: int) -> dict[str, list[float]]:
    config = Config.from_env({}, instance_path=folder / "instance", database_url=url,
                             secret_key="bench", exports_path=folder / "exports")
    app = create_app(config)
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    clients = {}
    for user in ("lead", "ana"):
        clients[user] = app.test_client()
        login(clients[user], user)
    shown = clients["lead"].get(f"/projects/{project_id}/documents").get_data(as_text=True)
    assert shown.count("<tr data-document=") == 50, "the data manager shows one full page"
    found = {}
    for name, (user, path) in pages(project_id).items():
        clients[user].get(path)  # warm: the first request fills caches later ones read
        found[name] = timings(clients[user], path, rounds)
    app.extensions["annotator_db"].dispose()
    return found


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[94] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100000])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--database-url", default=None,
                        help="admin URL of a PostgreSQL server (default: SQLite files)")
    args = parser.parse_args()
    engine = "PostgreSQL" if args.database_url else "SQLite"
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            folder = Path(tmp) / str(size)
            folder.mkdir()
            with database_for(size, folder, args.database_url) as url:
                start = time.perf_counter()
                project_id = build(url, size)
                print(f"{engine}: {size} documents built in "
                      f"{time.perf_counter() - start:.1f} s", flush=True)
                results[size] = measure(url, project_id, folder, args.rounds)
    print(f"\n{engine}, {args.rounds} requests per page, milliseconds (p50 / p95)")
    sizes = args.sizes
    print(f"{'page':30}" + "".join(f"{size:>18}" for size in sizes)
          + (f"{'p95 ratio':>12}" if len(sizes) > 1 else ""))
    for name in pages(0):
        cells = "".join(f"{statistics.median(results[s][name]):>9.0f} /"
                        f"{p95(results[s][name]):>6.0f} " for s in sizes)
        ratio = (f"{p95(results[sizes[-1]][name]) / p95(results[sizes[0]][name]):>12.2f}"
                 if len(sizes) > 1 else "")
        print(f"{name:30}{cells}{ratio}")


if __name__ == "__main__":
    main()
