"""The list pages at two project sizes (issue 44): are they flat in the number of documents?

For each size, a fresh database gets one project of N documents written with bulk inserts
(two annotators per document in a spread of states, a tenth of the finished ones
adjudicated; build says which rows go through the code's paths), then the real app
through Flask's test client measures, logged in as the lead or as an annotator: the data
manager (document order, sorted by agreement, filtered by status, searched), the
adjudication queue, the project overview and "My documents". Prints p50/p95 per page and
size, and the ratio of the p95 at the largest
size to the p95 at the smallest (flat = ~1).

    .venv/bin/python benchmarks/bench_list_pages.py [--sizes 1000 100000 1000000] [--rounds 20]
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres] [--pages PAGE ...]

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
from collections import Counter
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import DateTime, bindparam, create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from annotator.app import create_app  # noqa: E402
from annotator.config import Config  # noqa: E402
from annotator.db import Database  # noqa: E402
from annotator.models import (  # noqa: E402
    ProjectMember,
)
from annotator.study.accounts import create_user  # noqa: E402
from annotator.study.document_status import add_to_counts, status_of  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402
from benchmarks.bench_data_manager import timings  # noqa: E402

PASSWORD = "benchmark-password-1"
CHUNK = 50_000  # documents per transaction
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


def _case(values: dict[int, object], modulo: int) -> str:
    """A CASE over ``n % modulo`` (n the document's position) giving ``values[remainder]``
    (an SQL literal each; None is NULL)."""
    def literal_of(value):
        return "NULL" if value is None else f"'{value}'" if isinstance(value, str) else str(value)
    whens = " ".join(f"WHEN {r} THEN {literal_of(v)}" for r, v in values.items())
    return f"CASE n % {modulo} {whens} END"


def _rows_sql() -> dict[str, str]:
    """INSERT ... SELECT statements writing the rows of the documents at positions
    ``:start`` to ``:stop`` - 1 in the database itself (at a million documents, rows built
    in Python took an hour on the shared machine). The status of each row is
    :func:`status_of`'s for its pair of assignment states, so the stored values are those
    the queue's recomputation writes."""
    cycle = range(10)  # the states repeat every 5 documents, adjudication every 10
    pair = {r: STATES[r % len(STATES)] for r in cycle}
    ready = {r: pair[r] == ("done", "done") for r in cycle}
    adjudicated = {r: ready[r] and r == 0 for r in cycle}
    status = {r: status_of(list(pair[r]), "complete" if adjudicated[r] else None) for r in cycle}
    numbers = ("WITH RECURSIVE numbers(n) AS (SELECT CAST(:start AS INTEGER) UNION ALL "
               "SELECT n + 1 FROM numbers WHERE n + 1 < :stop)")
    documents = ("FROM documents d JOIN numbers ON d.position = n "
                 "WHERE d.project_id = :project")
    assignment = (f"INSERT INTO assignments (document_id, user_id, status, seconds_spent, meta, "
                  f"version, updated_at, created_at) {numbers} SELECT d.id, :user, "
                  f"{{status}}, n % 97, '{{{{}}}}', 1, :now, :now {documents}")
    return {
        "documents": (
            f"INSERT INTO documents (project_id, external_id, position, source, target, meta, "
            f"source_sentences, target_sentences, version, updated_at, created_at) {numbers} "
            f"SELECT :project, 'd' || n, n, 'Patients received ' || n || "
            f"'.5 mg/kg i.v. daily. The trial was blind.', 'Patients got medicine ' || n || '.', "
            f"'{{}}', '[]', '[]', 1, :now, :now FROM numbers"),
        "ana": assignment.format(status=_case({r: pair[r][0] for r in cycle}, 10)),
        "ben": assignment.format(status=_case({r: pair[r][1] for r in cycle}, 10)),
        "queue": (
            f"INSERT INTO adjudication_queue (document_id, project_id, changes, computed, stale, "
            f"ready, complete, agreement, open_total, open_summary, annotators, disputed, "
            f"position, status, holders, seconds, shown_agreement, shown_open) {numbers} "
            f"SELECT d.id, :project, 1, 1, false, {_case(ready, 10)}, "
            f"{_case(adjudicated, 10)}, CASE WHEN n % 5 = 0 THEN (n % 7) / 7.0 ELSE 1.0 END, "
            f"CASE WHEN n % 5 = 0 THEN n % 4 ELSE 0 END, '', "
            f"CASE WHEN n % 5 = 0 THEN '|ana|ben|' ELSE '|' END, '|', n, "
            f"{_case(status, 10)}, 'ana, ben', 2 * (n % 97), "
            f"CASE WHEN n % 5 = 0 THEN (n % 7) / 7.0 END, "
            f"CASE WHEN n % 5 = 0 THEN n % 4 END {documents}"),
        "states": (
            f"INSERT INTO adjudication_states (document_id, status, round, version, updated_at) "
            f"{numbers} SELECT d.id, 'complete', 1, 1, :now {documents} AND n % 10 = 0"),
        "status": status,
    }


def build(url: str, size: int) -> int:
    """The project, written CHUNK documents per transaction with a progress line.
    Documents, assignments, queue entries and adjudication states are INSERT ... SELECT in
    the database (:func:`_rows_sql`); the assignments' triggers keep "My documents"'
    counts as for any writer; the status counts go through add_to_counts."""
    database = Database(url)
    database.upgrade()
    with database.session() as session:
        lead = create_user(session, "lead", PASSWORD, "lead")
        ana = create_user(session, "ana", PASSWORD, "annotator")
        ben = create_user(session, "ben", PASSWORD, "annotator")
        project = create_project(session, "pages", "infolossqa", leads=[lead])
        session.add_all([ProjectMember(project_id=project.id, user_id=u.id, role="annotator")
                         for u in (ana, ben)])
        project_id, people = project.id, {"ana": ana.id, "ben": ben.id}
    statements = _rows_sql()
    now = bindparam("now", datetime.now(timezone.utc), type_=DateTime(timezone=True))
    for start in range(0, size, CHUNK):
        values = {"project": project_id, "start": start, "stop": min(size, start + CHUNK)}
        with database.engine.begin() as connection:
            for name in ("documents", "ana", "ben", "queue", "states"):
                statement = text(statements[name]).bindparams(now) if ":now" in statements[
                    name] else text(statements[name])
                connection.execute(statement, {**values, "user": people.get(name)})
        print(f"\r  {values['stop']:,} / {size:,} documents", end="", file=sys.stderr,
              flush=True)
    print(file=sys.stderr)
    counts = Counter((project_id, statements["status"][n % 10]) for n in range(size))
    with database.engine.begin() as connection:
        add_to_counts(connection, counts)
    if database.engine.dialect.name == "postgresql":
        with database.engine.connect().execution_options(
                isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))  # what autovacuum does after a load
    database.dispose()
    return project_id


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


def measure(url: str, project_id: int, folder: Path, rounds: int,
            names: list[str]) -> dict[str, list[float]]:
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
    for name in names:
        user, path = pages(project_id)[name]
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
    parser.add_argument("--pages", nargs="+", choices=list(pages(0)), default=list(pages(0)),
                        metavar="PAGE", help="pages to measure (default: all): "
                        + "; ".join(pages(0)))
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
                results[size] = measure(url, project_id, folder, args.rounds, args.pages)
            report(results, [size], args.pages)  # each size as soon as it is measured
    print(f"\n{engine}, {args.rounds} requests per page, milliseconds (p50 / p95)")
    report(results, args.sizes, args.pages)


def report(results: dict, sizes: list[int], names: list[str]) -> None:
    print(f"{'page':30}" + "".join(f"{size:>18}" for size in sizes)
          + (f"{'p95 ratio':>12}" if len(sizes) > 1 else ""))
    for name in names:
        cells = "".join(f"{statistics.median(results[s][name]):>9.0f} /"
                        f"{p95(results[s][name]):>6.0f} " for s in sizes)
        ratio = (f"{p95(results[sizes[-1]][name]) / p95(results[sizes[0]][name]):>12.2f}"
                 if len(sizes) > 1 else "")
        print(f"{name:30}{cells}{ratio}", flush=True)


if __name__ == "__main__":
    main()
