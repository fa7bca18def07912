"""Benchmark (issue 32): importing N documents with `annotator import` against Label
Studio's import API (``POST /api/projects/{id}/import``, labelstud.io/api) for the same
documents, in the same run.

Run beside a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY):
    .venv/bin/python benchmarks/bench_import_labelstudio.py [--documents 1000] [--repeat 3]

Each side imports into a project made for the run, created and removed outside the timing.
`annotator import` runs as a fresh process (what a lead waits for), so its time includes
start-up; start-up alone (`annotator import --help`) is reported beside it so the
per-document cost can be read off. The goal is parity with the API for 1,000 documents.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
WORDS = ("patients received the drug daily for two weeks in a randomised trial and "
         "serum levels were measured at baseline").split()


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    url, token = os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_API_KEY"]
    docs = documents(args.documents)
    script = Path(sys.executable).with_name("annotator")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "annotator"]
    with tempfile.TemporaryDirectory() as tmp, httpx.Client(
            base_url=url, headers={"Authorization": f"Token {token}"}, timeout=300) as http:
        path = Path(tmp) / "docs.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
        counter = iter(range(10_000))

        def ours(timed: list[float]):
            """A fresh project (not timed), then `annotator import` of the documents."""
            env = {**os.environ, "PYTHONPATH": str(ROOT),
                   "ANNOTATOR_DATABASE_URL": f"sqlite:///{tmp}/bench{next(counter)}.db"}
            subprocess.run(cli + ["project", "create", "bench", "--schema", "infolossqa"],
                           check=True, capture_output=True, env=env)
            start = time.perf_counter()
            subprocess.run(cli + ["import", "bench", str(path)], check=True,
                           capture_output=True, env=env)
            timed.append(time.perf_counter() - start)

        def start_up(timed: list[float]):
            start = time.perf_counter()
            subprocess.run(cli + ["import", "--help"], check=True, capture_output=True)
            timed.append(time.perf_counter() - start)

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

        theirs = best_of(labelstudio, args.repeat)
        mine = best_of(ours, args.repeat)
        startup = best_of(start_up, args.repeat)
    print(f"Label Studio import API        {theirs:7.3f} s  ({args.documents} documents)")
    print(f"annotator import               {mine:7.3f} s  (a fresh process)")
    print(f"annotator start-up (--help)    {startup:7.3f} s")
    print(f"ratio                          {mine / theirs:7.2f} x  "
          f"({max(mine - startup, 0):.3f} s beyond start-up)")


if __name__ == "__main__":
    main()
