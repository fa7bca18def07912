"""The adjudication queue page at 100 and at 100,000 documents.

    python benchmarks/bench_adjudication_queue.py                     # SQLite, 100 and 100k
    python benchmarks/bench_adjudication_queue.py --sizes 100 10000   # quicker
    ANNOTATOR_BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        python benchmarks/bench_adjudication_queue.py                 # PostgreSQL

Each project is built with bulk inserts: every document done by two annotators, its queue
entry current (as the incremental updates leave it). Before every timed request one
document changes through the ORM (an assignment's time is updated and committed, as any
save does), which recomputes that document's entry as the change commits; the page itself
only reads. Prints p50/p95 of GET /projects/<id>/adjudicate, the ratio to the login page
served by the same app in the same process (the plain reference), and the p95 of the
change's commit (where the recomputation now happens).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SOURCE = "Patients received 2.5 mg/kg daily. The trial was double-blind."
TARGET = "Patients got medicine. The study was fair."


def database_for(size: int, tmp: Path) -> tuple[str, callable]:
    admin = os.environ.get("ANNOTATOR_BENCH_POSTGRES_URL")
    if not admin:
        return f"sqlite:///{tmp / f'queue-{size}.sqlite3'}", lambda: None
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"bench_queue_{uuid.uuid4().hex[:8]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))

    def drop():
        with engine.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    return make_url(admin).set(database=name).render_as_string(hide_password=False), drop


def build(database, size: int, seed: int = 0) -> int:
    from sqlalchemy import insert, select

    from annotator.models import AdjudicationQueueEntry, Assignment, Document
    from annotator.study.accounts import create_user
    from annotator.study.projects import add_member, create_project

    rng = random.Random(seed)
    with database.session() as session:
        lee = create_user(session, "lee", "bench-password", "lead")
        users = [create_user(session, n, "bench-password", "annotator") for n in ("ana", "ben")]
        project = create_project(session, "bench", "infolossqa", leads=[lee])
        for u in users:
            add_member(session, project, u, "annotator")
        project_id, user_ids = project.id, [u.id for u in users]
    chunk = 5000
    with database.engine.begin() as c:
        for start in range(0, size, chunk):
            c.execute(insert(Document), [dict(
                project_id=project_id, external_id=f"d{i:06d}", source=SOURCE, target=TARGET,
                meta={}, source_sentences=[[0, 34], [35, 62]], target_sentences=[[0, 22],
                                                                                 [23, 43]],
                position=i + 1, version=1) for i in range(start, min(size, start + chunk))])
        ids = list(c.scalars(select(Document.id).where(Document.project_id == project_id)
                             .order_by(Document.id)))
        for start in range(0, size, chunk):
            part = ids[start:start + chunk]
            c.execute(insert(Assignment), [dict(document_id=d, user_id=u, status="done",
                                                seconds_spent=60.0, meta={}, version=1)
                                           for d in part for u in user_ids])
            c.execute(insert(AdjudicationQueueEntry), [dict(
                document_id=d, project_id=project_id, changes=1, computed=1, stale=False,
                ready=True,
                complete=rng.random() < 0.3, agreement=round(rng.random(), 3),
                open_total=rng.randint(0, 5), open_summary="2 unit(s)", annotators="|ana|ben|",
                disputed="|deletion|", position=n + start + 1) for n, d in enumerate(part)])
    return project_id, ids


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def measure(size: int, repeats: int, tmp: Path) -> dict:
    from sqlalchemy import select

    from annotator.app import create_app
    from annotator.config import Config
    from annotator.models import Assignment

    url, drop = database_for(size, tmp)
    try:
        app = create_app(Config.from_env({}, database_url=url, instance_path=tmp,
                                         secret_key="bench" * 8, exports_path=tmp / "exports"))
        app.config["WTF_CSRF_ENABLED"] = False
        database = app.extensions["annotator_db"]
        started = time.perf_counter()
        project_id, ids = build(database, size)
        built = time.perf_counter() - started
        client = app.test_client()
        assert client.post("/login", data={"username": "lee", "password": "bench-password"}
                           ).status_code == 302
        client.get(f"/projects/{project_id}/adjudicate")  # warm-up: templates, schema cache
        rng = random.Random(1)
        queue_times, reference_times, change_times = [], [], []
        for _ in range(repeats):
            t = time.perf_counter()
            with database.session() as session:  # a save touching one document
                assignment = session.scalars(select(Assignment).where(
                    Assignment.document_id == rng.choice(ids)).limit(1)).one()
                assignment.seconds_spent += 1
            change_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            response = client.get(f"/projects/{project_id}/adjudicate")
            queue_times.append(time.perf_counter() - t)
            assert response.status_code == 200 and b"adjudication-queue" in response.data
            t = time.perf_counter()
            assert client.get("/login").status_code in (200, 302)
            reference_times.append(time.perf_counter() - t)
        database.dispose()
        return {"documents": size, "build_s": built,
                "p50_ms": 1000 * statistics.median(queue_times),
                "p95_ms": 1000 * p(queue_times, 0.95),
                "reference_p95_ms": 1000 * p(reference_times, 0.95),
                "change_p95_ms": 1000 * p(change_times, 0.95),
                "backend": url.split(":", 1)[0]}
    finally:
        drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 100_000])
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            r = measure(size, args.repeats, Path(tmp))
            print(f"{r['backend']:<10} {r['documents']:>7} documents  built in "
                  f"{r['build_s']:.1f} s  queue page p50 {r['p50_ms']:.0f} ms  p95 "
                  f"{r['p95_ms']:.0f} ms  (login page p95 {r['reference_p95_ms']:.1f} ms, "
                  f"ratio {r['p95_ms'] / r['reference_p95_ms']:.1f}); the change's commit "
                  f"p95 {r['change_p95_ms']:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
