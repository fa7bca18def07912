"""Pre-highlighting throughput with 1 and with 2 worker processes (issue 44, item 2).

The same N documents (default 200) are imported into a fresh project for each run and
queued as chunks of C documents (default 20); then K `annotator worker --once` processes
(K = 1, then 2) run the queue on the same machine with the real alignment engine and
embedding model, and exit when it is empty. The time of a run is read from the job rows:
from the first chunk's start to the last chunk's end (so it includes each process loading
the model, once per process, as a real worker does).

    .venv/bin/python benchmarks/bench_prehighlight_workers.py [--documents 200] [--chunk 20]
        [--database-url postgresql://...]   # default: a SQLite file in a temporary folder

Prints, per K: documents/s in all, documents/s per worker, and the ratio of the K=2 rate to
the K=1 rate (issue 44 asks >= 1.7 on a machine with a free core per worker), and the
median time of one chunk (the same for K=1 and K=2: the workers do not slow each other).
Each worker's OpenBLAS runs ``--blas-threads`` threads (default 1): by default OpenBLAS
starts one per core in every process, so a single worker already spreads its matrix
products over every core and a second worker on the same machine adds little. On a shared
machine the other load changes the numbers from run to run: compare runs of one session.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete, func, select  # noqa: E402

from annotator.db import Database  # noqa: E402
from annotator.ingest import import_file  # noqa: E402
from annotator.models import Job  # noqa: E402
from annotator.study import jobs  # noqa: E402
from annotator.study.prehighlight_queue import queue_prehighlight  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402

SOURCE = ("Patients received {n}.5 mg/kg i.v. daily for 12 weeks. The trial was double-blind "
          "and placebo-controlled. Pain fell by 40% (p < 0.01) in the treated group.")
TARGET = "Patients got a drug every day. The study was fair. Pain went down a lot."


def queue_project(database: Database, folder: Path, name: str, documents: int,
                  chunk: int) -> int:
    """A new project with ``documents`` documents, queued as chunks of ``chunk``."""
    records = folder / f"{name}.jsonl"
    records.write_text("".join(json.dumps({"id": f"d{i}", "source": SOURCE.format(n=i),
                                           "target": TARGET}) + "\n"
                               for i in range(documents)))
    with database.session() as session:
        project = create_project(session, name, "infolossqa")
        import_file(session, project, records)
        # The import queued chunks of the default size: queued again at --chunk.
        session.execute(delete(Job).where(Job.project_id == project.id))
        queue_prehighlight(session, project.id, chunk=chunk)
        return project.id


def run_workers(url: str, count: int, blas_threads: int | None) -> None:
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": url, "HF_HUB_OFFLINE": "1"}
    if blas_threads:  # (OpenBLAS otherwise runs one thread per core in every process)
        env.update(OPENBLAS_NUM_THREADS=str(blas_threads), OMP_NUM_THREADS=str(blas_threads))
    processes = [subprocess.Popen([sys.executable, "-m", "annotator", "worker", "--once",
                                   "--poll", "0.2"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(count)]
    for process in processes:
        if process.wait() != 0:
            raise SystemExit(f"a worker exited with {process.returncode}")


def measured(database: Database, project_id: int) -> tuple[int, float, float]:
    """Documents pre-highlighted by the project's chunks, the seconds from the first
    chunk's start to the last one's end, and the median seconds of one chunk (longer with
    more workers: they share the cores; the same: something else limits)."""
    with database.session() as session:
        states = dict(session.execute(select(Job.state, func.count()).where(
            Job.project_id == project_id).group_by(Job.state)).all())
        if set(states) != {"done"}:
            raise SystemExit(f"project {project_id}: jobs not all done: {states}")
        first, last = session.execute(select(func.min(Job.started_at),
                                             func.max(Job.finished_at)).where(
            Job.project_id == project_id)).one()
        ids = session.scalars(select(Job.id).where(Job.project_id == project_id)).all()
        spans = sorted((jobs.aware(end) - jobs.aware(start)).total_seconds()
                       for start, end in session.execute(select(
                           Job.started_at, Job.finished_at).where(Job.project_id == project_id)))
        results = jobs.stored_json(session, Job.result, ids).values()
    documents = sum(jobs.readable_or_empty(r).get("documents", 0) for r in results)
    return (documents, (jobs.aware(last) - jobs.aware(first)).total_seconds(),
            spans[len(spans) // 2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="OpenBLAS threads of each worker process (0: OpenBLAS's default, "
                             "one per core; then one worker already uses every core)")
    parser.add_argument("--database-url", default=None,
                        help="a migrated-or-empty database to add the projects to "
                             "(default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = args.database_url or f"sqlite:///{folder / 'bench.sqlite3'}"
        database = Database(url)
        database.upgrade()
        rates = {}
        suffix = os.urandom(3).hex()  # several runs may share a --database-url
        for count in (1, 2):
            project_id = queue_project(database, folder, f"bench-{count}w-{suffix}",
                                       args.documents, args.chunk)
            run_workers(url, count, args.blas_threads)
            documents, seconds, chunk_seconds = measured(database, project_id)
            if documents != args.documents:
                raise SystemExit(f"{count} worker(s): {documents} of {args.documents} "
                                 "documents pre-highlighted")
            rates[count] = documents / seconds
            print(f"{count} worker{'s' if count > 1 else ''}: {documents} documents in "
                  f"{seconds:.1f} s: {rates[count]:.2f} documents/s, "
                  f"{rates[count] / count:.2f} documents/s per worker; a chunk "
                  f"{chunk_seconds:.1f} s (median)", flush=True)
        database.dispose()
    print(f"ratio 2 workers / 1 worker: {rates[2] / rates[1]:.2f} "
          f"({os.cpu_count()} cores on this machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
