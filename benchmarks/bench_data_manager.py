"""The lead's data manager against the adjudication queue it shares its numbers with.

N documents (default 200), each done by two annotators with three overlapping edits each,
on SQLite in a temporary folder; the real app through Flask's test client, logged in as the
lead. The reference is the adjudication queue page in the same process: both read the
per-document agreement and open decisions from the stored queue (the first request of the
run computes it); the data manager adds one row per document, status and time.

    .venv/bin/python benchmarks/bench_data_manager.py [--documents 200] [--rounds 10]

Prints p50/p95 in milliseconds for both pages and their ratio.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotator.annotate.assignment import assign_documents  # noqa: E402
from annotator.annotate.store import create_edit, set_status  # noqa: E402
from annotator.app import create_app  # noqa: E402
from annotator.config import Config  # noqa: E402
from annotator.db import Database  # noqa: E402
from annotator.ingest import import_file  # noqa: E402
from annotator.models import Assignment  # noqa: E402
from annotator.operations import work  # noqa: E402
from annotator.study.accounts import create_user  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402

PASSWORD = "benchmark-password-1"
SOURCE = ("Patients received {n}.5 mg/kg i.v. daily for 12 weeks. The trial was double-blind "
          "and placebo-controlled. Pain fell by 40% (p < 0.01).")
TARGET = "Patients got a drug every day. The study was fair. Pain went down a lot."
PHRASES = ("mg/kg i.v. daily", "double-blind", "(p < 0.01)")


def build(tmp: Path, documents: int) -> tuple[Config, int]:
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    database = Database(url)
    database.upgrade()
    records = tmp / "docs.jsonl"
    records.write_text("".join(json.dumps({"id": f"d{i}", "source": SOURCE.format(n=i),
                                           "target": TARGET}) + "\n" for i in range(documents)))
    with work.session(database) as session:
        lead = create_user(session, "lead", PASSWORD, "lead")
        for name in ("ana", "ben"):
            create_user(session, name, PASSWORD, "annotator")
        project = create_project(session, "bench", "infolossqa", leads=[lead])
        import_file(session, project, records)
        assign_documents(session, project, ["ana", "ben"])
        for a in session.query(Assignment).all():
            for k, phrase in enumerate(PHRASES):
                start = a.document.source.index(phrase)
                create_edit(session, a, {"edit_type": "deletion", "spans": [
                    {"side": "source", "start": start, "end": start + len(phrase)}],
                    "fields": {"question": f"What did {a.user.username} ask {k}?",
                               "answer": "x", "severity": 1 + (a.user_id + k) % 2}}, a.user_id)
            set_status(session, a, "done", a.version, a.user_id)
        project_id = project.id
    database.dispose()
    return Config.from_env({}, instance_path=tmp / "instance", database_url=url,
                           secret_key="bench", exports_path=tmp / "exports"), project_id


def timings(client, path: str, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        response = client.get(path)
        out.append((time.perf_counter() - t) * 1000)
        assert response.status_code == 200, (path, response.status_code)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config, pid = build(Path(folder), args.documents)
        app = create_app(config)
        app.config["ADJUDICATION_EMBEDDINGS"] = False
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        client.post("/login", data={"username": "lead", "password": PASSWORD, "csrf_token": token})
        html = client.get(f"/projects/{pid}/documents").get_data(as_text=True)
        rows = html.count("<tr data-document=")
        assert rows == min(50, args.documents), rows
        manager = timings(client, f"/projects/{pid}/documents", args.rounds)
        by_agreement = timings(client, f"/projects/{pid}/documents?sort=agreement", args.rounds)
        queue = timings(client, f"/projects/{pid}/adjudicate", args.rounds)
        p = lambda xs, q: statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else xs[0]  # noqa: E731
        print(f"{args.documents} documents, 2 annotators x 3 edits each, {args.rounds} rounds")
        print(f"data manager (document order):      p50 {statistics.median(manager):.0f} ms, "
              f"p95 {p(manager, 95):.0f} ms")
        print(f"data manager (sorted by agreement): p50 {statistics.median(by_agreement):.0f} ms, "
              f"p95 {p(by_agreement, 95):.0f} ms")
        print(f"adjudication queue (reference):     p50 {statistics.median(queue):.0f} ms, "
              f"p95 {p(queue, 95):.0f} ms")
        print(f"ratio to the queue (median): document order "
              f"{statistics.median(manager) / statistics.median(queue):.2f}, by agreement "
              f"{statistics.median(by_agreement) / statistics.median(queue):.2f}")


if __name__ == "__main__":
    main()
