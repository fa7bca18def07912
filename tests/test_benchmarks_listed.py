"""`make bench` runs every benchmark at a small size: each script in benchmarks/ must have
its small arguments in run_all.SMALL (a script left out made `make bench` stop with exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_every_benchmark_has_its_small_size():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import run_all  # the benchmarks folder is not a package
    finally:
        sys.path.remove(str(BENCHMARKS))
    scripts = {p.name for p in BENCHMARKS.glob("bench_*.py")} | {"adjudicate_salsa_study.py"}
    assert scripts <= set(run_all.SMALL), sorted(scripts - set(run_all.SMALL))


def test_run_all_starts_and_runs_one_benchmark():
    result = subprocess.run([sys.executable, str(BENCHMARKS / "run_all.py"), "--only",
                             "bench_import_labelstudio.py"], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "skipped, it runs beside a Label Studio server" in result.stdout
