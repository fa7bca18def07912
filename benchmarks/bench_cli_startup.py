"""Benchmark: how long `annotator --help` and `annotator import` of 1,000 documents take,
against a bare `python -c pass` timed the same way in the same run (the interpreter's own
start-up is the floor).

Run:  .venv/bin/python benchmarks/bench_cli_startup.py [--repeat 10] [--documents 1000]

Each run is a fresh process (what a lead typing the command waits for); the best of
``repeat`` runs is reported for each, with the ratio and the time above the floor. The goal
for the listing is under 0.5 s: it imports no command module (see annotator/cli.py). The
import goes into a fresh copy of a SQLite file with one project at the newest migration
(made outside the timing), so it takes the direct path without SQLAlchemy
(annotator/ingest/sqlite_import.py); beside it, the same file imported into the same
fresh copy through SQLAlchemy and the models (the ORM path, which every import took before),
so the gain is read off in the same run. Label Studio's import API for the same documents:
benchmarks/bench_import_labelstudio.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The same import through the ORM path (what every import did before the direct path).
ORM_IMPORT = """
import sys
from pathlib import Path
from annotator.config import Config
from annotator.db import Database
from annotator.ingest.store import import_file
from annotator.study.projects import get_project
database = Database(Config.from_env().database_url)
database.upgrade()
with database.session() as session:
    import_file(session, get_project(session, "bench"), Path(sys.argv[1]), in_batches=True)
"""


# Bytecode cached (into the run's temporary folder) as an installed tool has it after its
# first run: environments that set PYTHONDONTWRITEBYTECODE would otherwise time the
# compilation of the tool's modules. One untimed run of each command warms it.
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def best_of(argv: list[str], repeat: int, env: dict | None = None,
            before=None) -> float:
    """Shortest of ``repeat`` runs after an untimed one; ``before()`` (not timed) prepares
    each run."""
    env = {**BASE_ENV, "PYTHONPATH": str(ROOT), **(env or {})}
    if before is not None:
        before()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def documents(n: int) -> str:
    return "".join(json.dumps({"id": f"d{i}", "source": f"Patients received {i} mg daily. "
                               "Serum levels were measured at baseline.",
                               "target": f"Patients got the drug ({i})."}) + "\n"
                   for i in range(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--documents", type=int, default=1000)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("annotator")  # the installed console command
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "annotator"]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        BASE_ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        floor = best_of([sys.executable, "-c", "pass"], args.repeat)
        command = best_of(argv + ["--help"], args.repeat)
        path = tmp / "docs.jsonl"
        path.write_text(documents(args.documents), encoding="utf-8")
        template, target = tmp / "template.sqlite3", tmp / "run.sqlite3"
        env = {"ANNOTATOR_DATABASE_URL": f"sqlite:///{target}",
               "ANNOTATOR_INSTANCE_PATH": str(tmp / "instance")}
        subprocess.run(argv + ["project", "create", "bench", "--schema", "infolossqa"],
                       check=True, capture_output=True,
                       env={**BASE_ENV, "PYTHONPATH": str(ROOT), **env,
                            "ANNOTATOR_DATABASE_URL": f"sqlite:///{template}"})

        def fresh() -> None:
            for leftover in tmp.glob("run.sqlite3*"):
                leftover.unlink()
            shutil.copyfile(template, target)

        direct = best_of(argv + ["import", "bench", str(path)], args.repeat, env, fresh)
        orm = best_of([sys.executable, "-c", ORM_IMPORT, str(path)], args.repeat, env, fresh)
    n = args.documents
    print(f"python -c pass                  {floor * 1000:8.1f} ms")
    print(f"annotator --help                {command * 1000:8.1f} ms   (goal < 500 ms)   "
          f"{command / floor:5.1f} x the floor")
    print(f"annotator import, {n} docs    {direct * 1000:8.1f} ms   (direct SQLite path)  "
          f"{direct / floor:5.1f} x the floor")
    print(f"the same through SQLAlchemy     {orm * 1000:8.1f} ms   (the ORM path)        "
          f"ratio direct / ORM {direct / orm:4.2f}")


if __name__ == "__main__":
    main()
