"""Time `annotator align` on 36 real abstract pairs, model load included (issue #14: < 60 s
on two cores).

Writes the first ``--pairs`` documents of the InfoLossQA development data as a JSONL file,
runs the real command in a child process (cold: it loads MiniLM itself) and prints the
wall-clock time, the CPU time of the child (what it costs on an otherwise idle machine is
between the two when other work shares the cores) and the machine's load average.

    python benchmarks/bench_align_abstracts.py [--pairs 36] [--workers 2] [--data DIR]
        [--window-renderings]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from infolossqa_data import DEFAULT_DATA, load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=36)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--window-renderings", action="store_true",
                        help="pass --window-renderings to annotator align (the slower "
                             "renderings, the default before issue #29)")
    args = parser.parse_args()
    docs = list(load(args.data).values())[: args.pairs]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.jsonl"
        path.write_text("".join(json.dumps({"id": d.id, "source": d.source, "target": d.target})
                                + "\n" for d in docs), encoding="utf-8")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "annotator", "align", str(path),
                                 "--workers", str(args.workers)]
                                + (["--window-renderings"] if args.window_renderings else []),
                                env=env, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = result.stdout.splitlines()
    suggestions = sum(len(json.loads(line)["suggestions"]) for line in lines)
    print(f"annotator align, {len(lines)} abstract pairs, {args.workers} workers, model load "
          f"included: {wall:.1f} s wall, {cpu:.1f} s CPU; {suggestions} suggestions; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
