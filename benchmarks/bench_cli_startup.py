"""Benchmark: how long `annotator --help` takes, against a bare `python -c pass` timed the
same way in the same run (the interpreter's own start-up is the floor).

Run:  .venv/bin/python benchmarks/bench_cli_startup.py [--repeat 10]

Each run is a fresh process (what a lead typing the command waits for); the best of
``repeat`` runs is reported for each, with the ratio and the time above the floor. The goal
is under 0.5 s: the command listing imports no command module (see annotator/cli.py).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def best_of(argv: list[str], repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    floor = best_of([sys.executable, "-c", "pass"], args.repeat)
    script = Path(sys.executable).with_name("annotator")  # the installed console command
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "annotator"]
    command = best_of(argv + ["--help"], args.repeat)
    print(f"python -c pass     {floor * 1000:8.1f} ms")
    print(f"annotator --help   {command * 1000:8.1f} ms   (goal < 500 ms)")
    print(f"ratio              {command / floor:8.1f} x   "
          f"(+{(command - floor) * 1000:.1f} ms above the interpreter's start-up)")


if __name__ == "__main__":
    main()
