"""Benchmark (issue 32): importing N documents with `annotator import` against Label
Studio's import API (``POST /api/projects/{id}/import``, labelstud.io/api) for the same
documents, in the same run.

Run beside a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY):
    .venv/bin/python benchmarks/bench_import_labelstudio.py [--documents 1000] [--repeat 3]

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
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


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

        def ours():
            env = {**os.environ, "PYTHONPATH": str(ROOT),
                   "ANNOTATOR_DATABASE_URL": f"sqlite:///{tmp}/bench{next(counter)}.db"}
            for argv in (["project", "create", "bench", "--schema", "infolossqa"],
                         ["import", "bench", str(path)]):
                subprocess.run(cli + argv, check=True, capture_output=True, env=env)

        def start_up():
            subprocess.run(cli + ["import", "--help"], check=True, capture_output=True)

        def labelstudio():
            project = http.post("/api/projects/", json={"title": "bench"}).raise_for_status()
            pid = project.json()["id"]
            try:
                http.post(f"/api/projects/{pid}/import",
                          json=[{"data": d} for d in docs]).raise_for_status()
            finally:
                http.delete(f"/api/projects/{pid}/")

        theirs = best_of(labelstudio, args.repeat)
        mine = best_of(ours, args.repeat)
        startup = best_of(start_up, args.repeat)
    print(f"Label Studio import API       {theirs:7.3f} s  ({args.documents} documents)")
    print(f"annotator project create+import {mine:7.3f} s  (two fresh processes)")
    print(f"annotator start-up (--help)   {startup:7.3f} s  (per process)")
    print(f"ratio                          {mine / theirs:7.2f} x  "
          f"({max(mine - 2 * startup, 0):.3f} s beyond start-up)")


if __name__ == "__main__":
    main()
