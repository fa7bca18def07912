"""What the data manager's trigram indexes (migration 0013, PostgreSQL) cost at import:
`annotator import` of N documents into a new PostgreSQL project, with the indexes and with
them dropped (the database as before the migration), in turns; best of ``--repeat``, and
the ratio (issue 44; figures in docs/deploy.md, "Large studies").

    scripts/with-postgres.sh bash -c '.venv/bin/python benchmarks/bench_search_index_import.py \
        --database-url "$ANNOTATOR_TEST_POSTGRES_URL"'
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench_import_labelstudio import ROOT, documents
from sqlalchemy import create_engine, make_url, text

TRIGRAM_COLUMNS = ("external_id", "source", "target")


def import_seconds(admin_url: str, path: Path, folder: Path, indexes: bool) -> float:
    """A new database and project (not timed), then `annotator import` of ``path``."""
    name = f"bench_search_import_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANNOTATOR_DATABASE_URL": url,
           "ANNOTATOR_INSTANCE_PATH": str(folder / "instance"),
           "ANNOTATOR_EXPORTS_PATH": str(folder / "exports")}
    cli = [str(Path(sys.executable).with_name("annotator"))]
    try:
        subprocess.run(cli + ["project", "create", "bench", "--schema", "infolossqa"],
                       env=env, check=True, capture_output=True)
        engine = create_engine(url)
        with engine.begin() as connection:
            if not indexes:
                for column in TRIGRAM_COLUMNS:
                    connection.execute(text(f"DROP INDEX ix_documents_lower_{column}_trgm"))
        start = time.perf_counter()
        subprocess.run(cli + ["import", "bench", str(path)], env=env, check=True,
                       capture_output=True)
        seconds = time.perf_counter() - start
        with engine.connect() as connection:
            stored = connection.execute(text("SELECT count(*) FROM documents")).scalar()
        assert stored == count_lines(path), (stored, path)
        engine.dispose()
        return seconds
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def count_lines(path: Path) -> int:
    with path.open(encoding="utf-8") as lines:
        return sum(1 for _ in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("ANNOTATOR_TEST_POSTGRES_URL"),
                        help="admin URL of a PostgreSQL server "
                             "(default: ANNOTATOR_TEST_POSTGRES_URL)")
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.database_url:
        parser.error("needs a PostgreSQL server: --database-url or ANNOTATOR_TEST_POSTGRES_URL")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "docs.jsonl"  # the documents bench_import_labelstudio.py imports
        path.write_text("".join(json.dumps(d) + "\n" for d in documents(args.documents)),
                        encoding="utf-8")
        timed: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.repeat):
            for indexes in (False, True):
                timed[indexes].append(import_seconds(args.database_url, path, folder, indexes))
    without, with_ = min(timed[False]), min(timed[True])
    print(f"annotator import of {args.documents:,} documents into PostgreSQL, best of "
          f"{args.repeat}: {without:.2f} s without the trigram indexes, {with_:.2f} s with "
          f"them (ratio {with_ / without:.2f}); every run: without "
          f"{', '.join(f'{t:.2f}' for t in timed[False])}, with "
          f"{', '.join(f'{t:.2f}' for t in timed[True])}; load average "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
