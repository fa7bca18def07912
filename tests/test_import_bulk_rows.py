"""Issue 44 (item 5): `annotator import` writes new documents straight into the documents
table, in batches, instead of as ORM objects one by one. The rows must be the ones the ORM
wrote: same texts, metadata, sentence offsets and pairs, positions, version counter, and
NULL where the ORM wrote NULL and JSON ``null`` where it wrote that. Runs on a real SQLite
file, and on PostgreSQL with ANNOTATOR_TEST_POSTGRES_URL."""

from __future__ import annotations

import json

from sqlalchemy import text

from annotator.core.records import read_documents
from annotator.ingest import store
from annotator.ingest.rows import document_row
from annotator.models import Document, Project
from annotator.study.projects import create_project
from tests.helpers import VARIED_RECORDS as RECORDS
from tests.helpers import write_jsonl

# Every stored column but the id, the project and the clock times, read as the database
# holds it: JSON as its stored text, so a JSON null and a SQL NULL differ.
COLUMNS = ("external_id", "position", "source", "target", "version")
JSON_COLUMNS = ("meta", "source_sentences", "target_sentences", "sentence_pairs", "alignment")


def stored_rows(session, project_id: int) -> list[tuple]:
    json_parts = ", ".join(f"CAST({c} AS TEXT), {c} IS NULL" for c in JSON_COLUMNS)
    return [tuple(row) for row in session.execute(text(
        f"SELECT {', '.join(COLUMNS)}, {json_parts}, prehighlighted_at IS NULL, "
        "created_at IS NOT NULL AND updated_at IS NOT NULL "
        "FROM documents WHERE project_id = :p ORDER BY position"), {"p": project_id})]


def test_documents_written_in_bulk_are_the_rows_the_orm_wrote(database, tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "pairs.jsonl", RECORDS)
    records = read_documents(path)
    with database.session() as session:
        bulk = create_project(session, "bulk", "infolossqa")
        one_by_one = create_project(session, "orm", "infolossqa")
        bulk_id, orm_id = bulk.id, one_by_one.id
    # Two documents per batch: full batches committed on the way and a partial last one.
    monkeypatch.setattr(store, "BATCH_SIZE", 2)
    with database.session() as session:
        result = store.store_documents(session, session.get(Project, bulk_id), records,
                                       "pairs.jsonl", in_batches=True)
    assert (result.created, result.updated) == (len(RECORDS), 0)
    with database.session() as session:  # the way documents were stored before: ORM objects
        project = session.get(Project, orm_id)
        for position, record in enumerate(records, start=1):
            session.add(Document(**document_row(project.id, record, position)))
    with database.session() as session:
        written, reference = stored_rows(session, bulk_id), stored_rows(session, orm_id)
    assert len(written) == len(RECORDS)
    assert written == reference
    by_id = {row[0]: row for row in written}
    # Spot checks against the input itself, so that both sides being wrong alike fails too.
    pairs_at = len(COLUMNS) + 2 * JSON_COLUMNS.index("sentence_pairs")
    # No sentence pairs given: stored as the ORM stores a None of a JSON column (its text
    # "null"), so code reading either NULL or JSON null finds the same as before.
    assert json.loads(by_id["plain"][pairs_at]) is None
    assert json.loads(by_id["sentences"][pairs_at]) == [[0, 0], [1, 1]]
    meta_at = len(COLUMNS) + 2 * JSON_COLUMNS.index("meta")
    assert json.loads(by_id["7"][meta_at]) == {"system": "gpt-4o", "section": "Methods",
                                               "nested": {"a": [1, 2]}}
    offsets_at = len(COLUMNS) + 2 * JSON_COLUMNS.index("source_sentences")
    assert json.loads(by_id["offsets"][offsets_at]) == [[0, 6], [7, 13]]
    source = RECORDS[0]["source"]
    assert [source[s:e] for s, e in json.loads(by_id["plain"][offsets_at])] == [
        "Patients got 2.5 mg/kg i.v. daily.", "It worked."]
    assert [row[1] for row in written] == [1, 2, 3, 4, 5]
    assert {row[4] for row in written} == {1}  # the version counter starts at 1
    # The ORM reads the rows back as it reads its own.
    with database.session() as session:
        doc = session.query(Document).filter_by(project_id=bulk_id, external_id="unicode").one()
        assert doc.target == "Doctors gave a drug 🙂." and doc.sentence_pairs is None
