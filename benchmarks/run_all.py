"""Run every benchmark at a small size and print its figures (`make bench`).

Each script runs in its own process with arguments that keep the whole pass to a few
minutes; run a script on its own, without arguments, for the full-size figures quoted in
the docs. The evaluation scripts (evaluate_*.py: precision and recall of the
pre-highlighters) are measurements of quality, not speed, and are not run here.

    .venv/bin/python benchmarks/run_all.py [--only NAME ...]

Exits non-zero when a benchmark fails (its output is shown either way).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# script -> arguments for a quick pass
SMALL = {
    "bench_cli_startup.py": ["--repeat", "5"],
    "bench_alpha.py": ["--items", "2000", "--repeat", "1"],
    "bench_adjudicate_auto.py": ["--documents", "30", "--no-embeddings"],
    "adjudicate_salsa_study.py": ["--records", "12"],
    "bench_trailing.py": ["--pairs", "2000", "--workers", "2"],
    "bench_text_split.py": ["--megabytes", "0.2", "--repeat", "1"],
    "bench_embeddings.py": ["--pairs", "20"],
    "bench_annotate_page.py": ["--rounds", "20"],
    "bench_data_manager.py": ["--documents", "40", "--rounds", "5"],
    "bench_list_pages.py": ["--sizes", "100", "1000", "--rounds", "5"],
    "bench_readers.py": ["--documents", "20000", "--thresh", "2000"],
    "bench_adjudication_queue.py": ["--sizes", "100", "--repeats", "5"],
    "bench_align_abstracts.py": ["--pairs", "8"],
    "bench_page_ready.py": ["--rounds", "5"],
    "bench_import_labelstudio.py": ["--documents", "100", "--repeat", "1"],
    "bench_metric_correlations.py": ["--items", "1000", "--metrics", "3", "--resamples", "200"],
    "bench_prehighlight_workers.py": ["--documents", "40", "--chunk", "10"],
    "bench_search_index_import.py": ["--documents", "500", "--repeat", "1"],
    "scale.py": ["--documents", "500", "--repeats", "3"],
    "load_test.py": ["--annotators", "3", "--seconds", "5", "--workers", "1",
                     "--documents", "6"],
    "load_logins_and_saves.py": ["--seconds", "10", "--annotators", "3", "--logins", "10",
                                 "--documents", "6"],
}

# Scripts measured against another running server: run only when one is given.
BESIDE_LABEL_STUDIO = {"bench_import_labelstudio.py"}
# Scripts that measure PostgreSQL only: run only when a server is given.
ON_POSTGRES = {"bench_search_index_import.py"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(SMALL), default=None)
    args = parser.parse_args()
    unknown = sorted(p.name for p in HERE.glob("bench_*.py") if p.name not in SMALL)
    if unknown:  # a new benchmark must be given its small size here
        print(f"not in run_all.SMALL: {', '.join(unknown)}", file=sys.stderr)
        return 2
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "HF_HUB_OFFLINE": "1"}
    failed = []
    for script, argv in SMALL.items():
        if args.only and script not in args.only:
            continue
        if script in BESIDE_LABEL_STUDIO and not os.environ.get("LABEL_STUDIO_URL"):
            print(f"== {script}: skipped, it runs beside a Label Studio server "
                  "(LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY)\n", flush=True)
            continue
        if script in ON_POSTGRES and not os.environ.get("ANNOTATOR_TEST_POSTGRES_URL"):
            print(f"== {script}: skipped, it measures PostgreSQL only "
                  "(ANNOTATOR_TEST_POSTGRES_URL)\n", flush=True)
            continue
        print(f"== {script} {' '.join(argv)}", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(HERE / script), *argv], env=env)
        print(f"   ({time.perf_counter() - start:.1f} s)\n", flush=True)
        if result.returncode != 0:
            failed.append(script)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
