"""Issue 44 (item 5): `annotator import` of new documents into a SQLite file goes through
sqlite3 without SQLAlchemy (annotator.ingest.sqlite_import). It must write exactly the
rows the ORM path writes (documents, pre-highlighting chunks, the audit event), load none
of the heavy stack, and leave every other case to the ORM path before writing anything.
Real SQLite files copied from the migrated one; the command runs as a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import update

from annotator.core.records import IngestError
from annotator.db import Database
from annotator.ingest import import_file, sqlite_import
from annotator.ingest.rows import ImportResult
from annotator.migrations import head_revisions
from annotator.models import AdjudicationQueueEntry, Document, Project
from annotator.study import jobs
from annotator.study.job_rows import CHUNK_DOCUMENTS
from annotator.study.projects import create_project
from tests.helpers import VARIED_RECORDS as RECORDS
from tests.helpers import write_jsonl

# Clock columns differ between two runs; they are checked for the ORM's stored format.
TIMES = {"created_at", "updated_at", "started_at", "finished_at"}
STORED_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$")
HEAVY = ("sqlalchemy", "flask", "alembic", "numpy", "torch", "nltk", "pandas", "yaml",
         "sentence_transformers", "label_studio_sdk", "annotator.models", "annotator.db",
         "tqdm", "importlib.metadata", "werkzeug", "pydantic", "psycopg")


@pytest.fixture
def new_database(migrated_sqlite_file, tmp_path):
    """A function making a migrated SQLite file with one project "p": its URL. With
    ``earlier``, two documents imported already, their pre-highlighting chunk still waiting
    unless ``finished`` (then a worker claimed and finished it: the documents stay not
    pre-highlighted, as after a chunk that failed)."""
    made = iter(range(100))

    def make(earlier: bool = False, finished: bool = True) -> str:
        path = tmp_path / f"db{next(made)}.sqlite3"
        shutil.copyfile(migrated_sqlite_file, path)
        url = f"sqlite:///{path}"
        database = Database(url)
        with database.session() as session:
            project = create_project(session, "p", "infolossqa")
            if earlier:
                import_file(session, project, write_jsonl(tmp_path / "earlier.jsonl", [
                    {"id": "e1", "source": "Earlier one.", "target": "One."},
                    {"id": "e2", "source": "Earlier two.", "target": "Two."}]))
        if earlier and finished:
            with database.session() as session:
                job = jobs.claim(session, "worker-1", 60)
                assert jobs.finish(session, job.id, "worker-1")
        database.dispose()
        return url

    return make


def table(url: str, name: str, order: str = "id") -> list[dict]:
    """Every row of ``name`` as the file stores it (JSON as its text)."""
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute(
            f"SELECT * FROM {name} ORDER BY {order}")]


def comparable(rows: list[dict]) -> list[dict]:
    for row in rows:
        for column in TIMES & row.keys():
            assert row[column] is None and column in ("started_at", "finished_at") or \
                STORED_TIME.match(row[column]), (column, row[column])
    return [{k: v for k, v in row.items() if k not in TIMES} for row in rows]


def orm_import(url: str, path: Path) -> ImportResult:
    """What `annotator import` did before (and still does off the direct path)."""
    database = Database(url)
    try:
        with database.session() as session:
            project = session.query(Project).filter_by(name="p").one()
            return import_file(session, project, path, in_batches=True)
    finally:
        database.dispose()


@pytest.mark.parametrize("earlier", [False, True], ids=["empty project", "after an import"])
def test_the_direct_path_writes_the_rows_the_orm_path_writes(new_database, tmp_path, earlier):
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS + [
        {"id": f"n{i}", "source": f"Number {i}. Done.", "target": f"N{i}."}
        for i in range(CHUNK_DOCUMENTS)])  # more than one pre-highlighting chunk
    direct_url, orm_url = new_database(earlier), new_database(earlier)
    direct = sqlite_import.import_documents(direct_url, "p", path, None)
    reference = orm_import(orm_url, path)
    assert isinstance(direct, ImportResult)
    assert direct == reference
    assert (direct.created, direct.updated, direct.prehighlight_chunks) == (
        len(RECORDS) + CHUNK_DOCUMENTS, 0, 2)
    for name in ("documents", "jobs", "audit_events"):
        assert comparable(table(direct_url, name)) == comparable(table(orm_url, name)), name
    # The data manager's entries and counts (issue 44), in the order of their documents.
    assert table(direct_url, "adjudication_queue", "document_id") == table(
        orm_url, "adjudication_queue", "document_id")
    assert table(direct_url, "project_status_counts", "status") == table(
        orm_url, "project_status_counts", "status") == [
        {"project_id": 1, "status": "unassigned",
         "documents": len(RECORDS) + CHUNK_DOCUMENTS + (2 if earlier else 0)}]
    # Against the input itself, so that both sides being wrong alike fails too.
    documents = {row["external_id"]: row for row in table(direct_url, "documents")}
    assert json.loads(documents["7"]["meta"]) == {"system": "gpt-4o", "section": "Methods",
                                                  "nested": {"a": [1, 2]}}
    assert documents["plain"]["sentence_pairs"] == "null"  # a JSON null, as the ORM wrote
    assert documents["plain"]["alignment"] is None  # SQL NULL
    assert json.loads(documents["sentences"]["sentence_pairs"]) == [[0, 0], [1, 1]]
    assert documents["unicode"]["target"] == "Doctors gave a drug 🙂."
    first = 3 if earlier else 1
    assert [documents[r["id"] if isinstance(r["id"], str) else "7"]["position"]
            for r in RECORDS] == list(range(first, first + len(RECORDS)))
    chunks = [json.loads(job["payload"])["document_ids"] for job in table(direct_url, "jobs")
              if job["state"] == "queued"]
    every_document = sorted(row["id"] for row in documents.values())
    assert sorted(i for chunk in chunks for i in chunk) == every_document  # earlier ones too
    assert [len(chunk) for chunk in chunks] == [CHUNK_DOCUMENTS, len(every_document)
                                                - CHUNK_DOCUMENTS]
    (event,) = [e for e in table(direct_url, "audit_events")
                if e["action"] == "documents.imported" and "pairs" in e["details"]]
    assert json.loads(event["details"]) == {"file": "pairs.jsonl",
                                            "created": len(RECORDS) + CHUNK_DOCUMENTS,
                                            "updated": 0}


def test_annotator_import_loads_no_sqlalchemy_and_says_what_it_stored(new_database, tmp_path):
    """The start-up gain stays: the command, in a fresh interpreter, stores the documents
    without loading SQLAlchemy, the models, Flask, Alembic, numpy, torch, nltk, PyYAML, or
    tqdm with its metadata scan (no progress bar for one batch, a fraction of a second)."""
    url = new_database()
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS)
    script = ("import sys, json\n"
              "from annotator.cli import main\n"
              "try:\n"
              f"    main(['import', 'p', {str(path)!r}])\n"
              "except SystemExit as exc:\n"
              "    assert not exc.code, exc.code\n"
              f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, env={**os.environ, "ANNOTATOR_DATABASE_URL": url,
                                             "ANNOTATOR_INSTANCE_PATH": str(tmp_path)})
    *said, loaded = result.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    (job,) = table(url, "jobs")
    assert said == [f"imported {len(RECORDS)} new and 0 updated documents into p",
                    f"pre-highlighting queued (1 chunk from job {job['id']}): each running "
                    "`annotator worker` or `annotator serve` does it; `annotator "
                    "prehighlight p` does it now"]
    assert len(table(url, "documents")) == len(RECORDS)


def run_import(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "annotator", "import", *args],
                          capture_output=True, text=True,
                          env={**os.environ, "ANNOTATOR_DATABASE_URL": url,
                               "ANNOTATOR_INSTANCE_PATH": str(tmp_path)})


def test_errors_come_from_the_orm_path_and_nothing_is_written(new_database, tmp_path):
    url = new_database(earlier=True)
    before = {name: table(url, name) for name in ("documents", "jobs", "audit_events")}
    clash = write_jsonl(tmp_path / "clash.jsonl", [
        {"id": "new", "source": "New one.", "target": "New."},
        {"id": "e2", "source": "Again.", "target": "Again."}])
    result = run_import(url, tmp_path, "p", str(clash))
    assert result.returncode == 2
    assert ("clash.jsonl:2: field 'id': document 'e2' already exists in project 'p'"
            in result.stderr)
    result = run_import(url, tmp_path, "nope", str(clash))
    assert result.returncode == 1
    assert "error: no project named 'nope' (projects: p)" in result.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "source": "A."}\n', encoding="utf-8")
    result = run_import(url, tmp_path, "p", str(bad))
    assert result.returncode == 2 and "bad.jsonl:1:" in result.stderr
    assert "'target'" in result.stderr
    assert {name: table(url, name) for name in before} == before
    # The failed direct attempt released its write lock: the next import goes through.
    good = write_jsonl(tmp_path / "good.jsonl", [{"id": "g", "source": "G.", "target": "G."}])
    assert run_import(url, tmp_path, "p", str(good)).returncode == 0
    assert [d["external_id"] for d in table(url, "documents")] == ["e1", "e2", "g"]


def test_a_waiting_chunk_sends_the_import_the_orm_way(new_database, tmp_path):
    """A chunk still waiting: the ORM path queues only what no waiting chunk covers."""
    url = new_database(earlier=True, finished=False)
    path = write_jsonl(tmp_path / "more.jsonl", [{"id": "m", "source": "M.", "target": "M."}])
    assert isinstance(sqlite_import.import_documents(url, "p", path, None),
                      sqlite_import.NotDirect)
    assert run_import(url, tmp_path, "p", str(path)).returncode == 0
    payloads = [json.loads(j["payload"])["document_ids"] for j in table(url, "jobs")]
    (new_id,) = [d["id"] for d in table(url, "documents") if d["external_id"] == "m"]
    assert payloads == [[1, 2], [new_id]]


def test_what_the_direct_path_declines(new_database, tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS)
    url = new_database()
    for other in (f"{url}?timeout=5", "sqlite://", "sqlite:///:memory:",
                  f"sqlite:///{tmp_path / 'missing.sqlite3'}", "postgresql://u@h/db"):
        assert sqlite_import.import_documents(other, "p", path, None) == \
            sqlite_import.NotDirect(), other
    assert not (tmp_path / "missing.sqlite3").exists()
    not_a_database = tmp_path / "notes.sqlite3"
    not_a_database.write_text("not SQLite\n" * 200, encoding="utf-8")
    assert sqlite_import.import_documents(f"sqlite:///{not_a_database}", "p", path,
                                          None) == sqlite_import.NotDirect()
    # More documents than one batch: the ORM path writes them in committed batches; the
    # records read are handed on, not read again.
    monkeypatch.setattr(sqlite_import, "BATCH_SIZE", len(RECORDS) - 1)
    outcome = sqlite_import.import_documents(url, "p", path, None)
    assert isinstance(outcome, sqlite_import.NotDirect)
    assert [r.external_id for r in outcome.records] == [str(r["id"]) for r in RECORDS]
    assert table(url, "documents") == [] and table(url, "jobs") == []


def test_a_stale_queue_entry_or_an_older_schema_is_left_to_the_orm_path(new_database,
                                                                        tmp_path):
    url = new_database(earlier=True)
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS)
    database = Database(url)
    with database.session() as session:  # start-up recomputes it first (work.upgrade)
        document = session.query(Document).filter_by(external_id="e1").one()
        session.execute(update(AdjudicationQueueEntry).where(
            AdjudicationQueueEntry.document_id == document.id).values(stale=True))
    database.dispose()
    assert sqlite_import.import_documents(url, "p", path, None) == sqlite_import.NotDirect()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        connection.execute("UPDATE adjudication_queue SET stale = 0")
        connection.execute("UPDATE alembic_version SET version_num = '0009_jobs'")
    assert sqlite_import.import_documents(url, "p", path, None) == sqlite_import.NotDirect()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        (head,) = head_revisions()
        connection.execute("UPDATE alembic_version SET version_num = ?", (head,))
    assert isinstance(sqlite_import.import_documents(url, "p", path, None), ImportResult)
    assert len(table(url, "documents")) == 2 + len(RECORDS)


def test_a_file_that_fails_its_checks_raises_and_writes_nothing(new_database, tmp_path):
    url = new_database()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "source": "A.", "target": "A."}\n{"id": "a"}\n',
                   encoding="utf-8")
    with pytest.raises(IngestError) as raised:
        sqlite_import.import_documents(url, "p", bad, None)
    assert {p.line for p in raised.value.problems} == {2}
    assert table(url, "documents") == [] and table(url, "jobs") == []


def test_the_jobs_the_direct_path_queues_are_claimed_like_any(new_database, tmp_path):
    url = new_database()
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS)
    result = sqlite_import.import_documents(url, "p", path, None)
    database = Database(url)
    try:
        with database.session() as session:
            job = jobs.claim(session, "worker-1", 60)
            assert job is not None and job.id == result.prehighlight_job
            assert job.kind == "prehighlight" and job.state == "running"
            payload = jobs.stored_json(session, type(job).payload, [job.id])[job.id]
            assert len(payload["document_ids"]) == len(RECORDS)
    finally:
        database.dispose()
