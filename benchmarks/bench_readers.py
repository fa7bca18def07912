"""Reading and import speed of the import formats: documents as a JSON array, as JSONL and as
CSV, and a Thresh export, each read by the project's own readers (``read_documents``,
``read_thresh``); with ``--import``, each document file is also imported whole (read, checked,
sentence offsets, stored) into a fresh SQLite project, as ``annotator import`` does.

The JSON-array reader finds the line each record starts on; it must stay linear in the file
(it once counted newlines from the start of the file for every record, which made 40,000
documents take minutes). The script prints seconds per format and size and the ratio of the
JSON-array read to the JSONL read of the same documents, which must be at most 1.5; it also
prints the array read at 1/4, 1/2 and all of ``--documents`` so linearity can be seen.

    .venv/bin/python benchmarks/bench_readers.py                      # 100,000 documents
    .venv/bin/python benchmarks/bench_readers.py --documents 80000 --thresh 20000
    .venv/bin/python benchmarks/bench_readers.py --import             # also import each file
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotator.core.records import read_documents  # noqa: E402
from annotator.db import Database  # noqa: E402
from annotator.ingest import import_file  # noqa: E402
from annotator.interop.thresh import read_thresh  # noqa: E402
from annotator.schemas.files import load_schema  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402

WORDS = ("patients received the drug twice daily for twelve weeks and blood pressure fell "
         "in the treated group compared with placebo adults children trial dose").split()


def make_documents(count: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    documents = []
    for number in range(count):
        source = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))).capitalize()
        target = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))).capitalize()
        documents.append({"id": f"d{number}", "source": source + ".", "target": target + "."})
    return documents


def write_formats(documents: list[dict], folder: Path) -> dict[str, Path]:
    paths = {"json": folder / "docs.json", "jsonl": folder / "docs.jsonl",
             "csv": folder / "docs.csv"}
    # One record per line, as exports are usually written (each record's line is known).
    paths["json"].write_text("[\n" + ",\n".join(json.dumps(d) for d in documents) + "\n]\n",
                             encoding="utf-8")
    paths["jsonl"].write_text("".join(json.dumps(d) + "\n" for d in documents),
                              encoding="utf-8")
    with paths["csv"].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "source", "target"])
        writer.writeheader()
        writer.writerows(documents)
    return paths


def write_thresh(documents: list[dict], path: Path) -> None:
    rows = []
    for number, document in enumerate(documents):
        end = min(10, len(document["source"]))
        rows.append({"id": document["id"], "source": document["source"],
                     "target": document["target"], "_thresh_id": number,
                     "_completed": True, "_annotator": "ana",
                     "edits": [{"category": "omission", "id": 0,
                                "annotation": {"question": "What is missing?",
                                               "answer": "A number."},
                                "input_idx": [[0, end]], "output_idx": None}]})
    path.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n",
                    encoding="utf-8")


def seconds(function) -> tuple[float, int]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, len(result)


def import_seconds(path: Path, folder: Path, name: str) -> float:
    """Seconds to import ``path`` whole into a new project of a fresh SQLite database."""
    database = Database(f"sqlite:///{folder / (name + '.sqlite3')}")
    database.upgrade()
    with database.session() as session:
        project = create_project(session, f"bench-{name}", "infolossqa")
        session.commit()
        start = time.perf_counter()
        import_file(session, project, path)
        session.commit()
        took = time.perf_counter() - start
    database.dispose()
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--thresh", type=int, default=20_000)
    parser.add_argument("--import", dest="store", action="store_true",
                        help="also import each document file into a fresh SQLite project")
    parser.add_argument("--repeats", type=int, default=2, help="imports of each format")
    args = parser.parse_args()
    documents = make_documents(args.documents)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        timings = {}
        for fmt, path in write_formats(documents, folder).items():
            took, count = seconds(lambda p=path: read_documents(p))
            assert count == len(documents), (fmt, count)
            timings[fmt] = took
            print(f"{fmt:6s} {count:>7,} documents  {took:7.2f} s")
        ratio = timings["json"] / timings["jsonl"]
        print(f"JSON array / JSONL = {ratio:.2f} (at most 1.5)")
        if args.store:
            # Each format imported --repeats times in rotating order (the first import of a
            # process also pays for warming up); the fastest run of each is compared.
            paths = write_formats(documents, folder)
            imported: dict[str, float] = {}
            for repeat in range(args.repeats):
                order = list(paths)[repeat % 3:] + list(paths)[:repeat % 3]
                for fmt in order:
                    took = import_seconds(paths[fmt], folder, f"{fmt}{repeat}")
                    imported[fmt] = min(imported.get(fmt, took), took)
            for fmt, took in imported.items():
                print(f"import {fmt:6s} {len(documents):>7,} documents  {took:7.2f} s "
                      f"(fastest of {args.repeats})")
            store_ratio = imported["json"] / imported["jsonl"]
            print(f"import: JSON array / JSONL = {store_ratio:.2f} (at most 1.5)")
            ratio = max(ratio, store_ratio)
        for share in (4, 2):
            part = documents[: len(documents) // share]
            path = folder / f"part{share}.json"
            path.write_text("[\n" + ",\n".join(json.dumps(d) for d in part) + "\n]\n",
                            encoding="utf-8")
            took, count = seconds(lambda p=path: read_documents(p))
            print(f"json   {count:>7,} documents  {took:7.2f} s")
        thresh = folder / "ana.json"
        write_thresh(documents[: args.thresh], thresh)
        took, count = seconds(lambda: read_thresh(thresh, load_schema("infolossqa")))
        print(f"thresh {count:>7,} records    {took:7.2f} s")
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
