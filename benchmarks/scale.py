"""Scale: a generated project of 46,000 documents (the size of the published automatic
overgeneration benchmark) imported in bulk, then the list and dashboard pages timed.

    python benchmarks/scale.py                    # 46,000 documents, SQLite
    python benchmarks/scale.py --documents 5000   # quicker
    ANNOTATOR_DATABASE_URL=postgresql://... python benchmarks/scale.py

Prints the import time (the `annotator import` command, with its progress bar), the
assignment time, and p50/p95 of the paginated pages over repeated requests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generate(path: Path, count: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    drugs = ["metformin", "vitamin D", "budesonide", "placebo", "aspirin", "infliximab"]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            drug = rng.choice(drugs)
            source = (f"BACKGROUND: {drug.title()} is widely used. METHODS: In a double-blind, "
                      f"placebo-controlled trial, {rng.randint(40, 900)} patients received "
                      f"{rng.randint(1, 9)}.{rng.randint(0, 9)} mg/kg {drug} daily for "
                      f"{rng.randint(2, 52)} weeks. RESULTS: The risk ratio was "
                      f"0.{rng.randint(50, 99)} (95% CI 0.{rng.randint(30, 49)}-0.99; "
                      f"p = 0.0{rng.randint(1, 4)}).")
            target = (f"Researchers tested {drug} in a study. Some patients got the medicine for "
                      "a few weeks. It helped a little.")
            if i % 7 == 0:
                target += " Here is the simplified version: it works."
            out.write(json.dumps({"id": f"og-{i:06d}", "source": source, "target": target,
                                  "meta": {"system": f"system-{i % 70:02d}"}}) + "\n")


def timed_pages(database_url: str, instance: Path, repeats: int) -> dict:
    from sqlalchemy import select

    from annotator.app import create_app
    from annotator.config import Config
    from annotator.models import Assignment, Project, User

    app = create_app(Config.from_env({}, database_url=database_url, instance_path=instance,
                                     secret_key="scale"))
    app.config["WTF_CSRF_ENABLED"] = False
    database = app.extensions["annotator_db"]
    with database.session() as session:
        project_id = session.scalar(select(Project.id).where(Project.name == "scale"))
        annotator_id = session.scalar(select(User.id).where(User.username == "ann00"))
        assignment_id = session.scalar(select(Assignment.id).where(
            Assignment.user_id == annotator_id).order_by(Assignment.id.desc()))
    pages = {
        "lead: project overview, page 1": ("lead", f"/projects/{project_id}"),
        "lead: project overview, page 400": ("lead", f"/projects/{project_id}/page/400"),
        "annotator: my documents, page 1": ("ann00", "/my"),
        "annotator: my documents, page 200": ("ann00", "/my?page=200"),
        "annotator: document JSON": ("ann00", f"/api/assignments/{assignment_id}"),
    }
    clients = {}
    for username in ("lead", "ann00"):
        client = app.test_client()
        client.post("/login", data={"username": username, "password": "scale-password"})
        clients[username] = client
    results = {}
    for name, (who, path) in pages.items():
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            response = clients[who].get(path)
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        times.sort()
        results[name] = {"p50_ms": round(statistics.median(times), 1),
                         "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=46_000)
    parser.add_argument("--annotators", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="annotator-scale-") as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "ANNOTATOR_INSTANCE_PATH": str(tmp), "PYTHONPATH": str(ROOT)}
        env.setdefault("ANNOTATOR_DATABASE_URL", f"sqlite:///{tmp}/scale.sqlite3")
        cli = [sys.executable, "-m", "annotator"]

        def run(*args):
            subprocess.run([*cli, *args], env=env, check=True, stdout=subprocess.DEVNULL)

        run("init")
        run("user", "add", "lead", "--role", "lead", "--password", "scale-password")
        for i in range(args.annotators):
            run("user", "add", f"ann{i:02d}", "--password", "scale-password")
        run("project", "create", "scale", "--schema", "overgeneration", "--lead", "lead")
        data = tmp / "scale.jsonl"
        generate(data, args.documents)
        started = time.perf_counter()
        subprocess.run([*cli, "import", "scale", str(data)], env=env, check=True)
        imported = time.perf_counter() - started
        started = time.perf_counter()
        run("assign", "scale")
        assigned = time.perf_counter() - started
        pages = timed_pages(env["ANNOTATOR_DATABASE_URL"], tmp, args.repeats)
    result = {"documents": args.documents, "database": env["ANNOTATOR_DATABASE_URL"].split(":")[0],
              "import_seconds": round(imported, 1),
              "documents_per_second": round(args.documents / imported),
              "assign_seconds": round(assigned, 1), "pages": pages}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
