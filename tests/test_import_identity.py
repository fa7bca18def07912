"""A record that names its item is that item, whatever its texts: two items with identical
texts and different ids (two questions on one abstract in a rating study, two systems with
identical output) stay two documents in every annotation format, within one file and across
imports. Only a record without an id (Thresh's own examples) joins a document by its texts."""

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.db import Database
from annotator.models import Assignment, Document, Project
from tests.helpers import infolossqa_pair, write_jsonl

SCHEMA = "infolossqa"  # the built-in schema (omission -> deletion)
# export format -> (import format, does the export write a folder)
FORMATS = {"thresh": ("thresh", True), "labelstudio": ("labelstudio", False),
           "labelstudio-min": ("labelstudio-min", True), "jsonl": ("annotations-jsonl", False),
           "csv": ("annotations-csv", False), "infolossqa": ("infolossqa", True)}


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def ok(*args):
    code, out = run(*args)
    assert code == 0, out
    return out


def thresh_record(doc_id, source, target, start):
    record = {"source": source, "target": target,
              "edits": [{"category": "omission", "id": 1, "input_idx": [[start, start + 9]],
                         "annotation": {"question": "What is left out?", "answer": "x"}}]}
    if doc_id is not None:
        record["id"] = doc_id
    return record


def documents(database_url, project):
    with Database(database_url).session() as session:
        pid = session.scalar(select(Project.id).where(Project.name == project))
        ids = session.scalars(select(Document.external_id).where(
            Document.project_id == pid).order_by(Document.external_id)).all()
        work = session.scalar(select(func.count()).select_from(Assignment).join(Document)
                              .where(Document.project_id == pid))
        return ids, work


@pytest.fixture
def source(env, tmp_path):
    """Project ``src``: two items with the same two texts, ids ``q1`` and ``q2``, each
    annotated by ana (different spans)."""
    text = infolossqa_pair("1774569")
    path = tmp_path / "twins.json"
    path.write_text(json.dumps([thresh_record("q1", *text, 0), thresh_record("q2", *text, 20)]),
                    encoding="utf-8")
    ok("project", "create", "src", "--schema", SCHEMA)
    ok("import", "src", path, "--format", "thresh", "--annotator", "ana")
    assert documents(env["ANNOTATOR_DATABASE_URL"], "src") == (["q1", "q2"], 2)
    return text


@pytest.mark.parametrize("fmt", FORMATS)
def test_two_items_with_the_same_texts_stay_two_documents(env, tmp_path, source, fmt):
    url = env["ANNOTATOR_DATABASE_URL"]
    import_fmt, folder = FORMATS[fmt]
    out = tmp_path / ("out" if folder else f"out.{'csv' if fmt == 'csv' else 'json'}")
    ok("export", "src", "--format", fmt, "--out", out)
    path = out / "ana.json" if fmt == "labelstudio-min" else out  # thresh: a folder
    # A project already holding a third item with the same texts (and, for CSV, which
    # carries no texts, the two items' documents).
    ok("project", "create", "dst", "--schema", SCHEMA)
    rows = [{"id": i, "source": source[0], "target": source[1]}
            for i in (["q0", "q1", "q2"] if fmt == "csv" else ["q0"])]
    ok("import", "dst", write_jsonl(tmp_path / "docs.jsonl", rows))
    args = ["--annotator", "ana"] if fmt in ("labelstudio", "labelstudio-min") else []
    ok("import", "dst", path, "--format", import_fmt, *args)
    assert documents(url, "dst") == (["q0", "q1", "q2"], 2)
    # The same file again is the same two items: refused as re-rated, naming --update.
    code, text = run("import", "dst", path, "--format", import_fmt, *args)
    assert code == 2 and "already has annotations on document 'q1'" in text
    assert "--update" in text


def test_a_record_without_id_joins_the_document_with_its_texts(env, tmp_path, source):
    path = tmp_path / "no-id.json"
    path.write_text(json.dumps([thresh_record(None, *source, 40)]), encoding="utf-8")
    ok("import", "src", path, "--format", "thresh", "--annotator", "ben")
    # Joined the first document with these texts, not a new one.
    assert documents(env["ANNOTATOR_DATABASE_URL"], "src") == (["q1", "q2"], 3)


def test_two_records_without_id_and_the_same_texts_are_told_to_carry_ids(env, tmp_path, source):
    """Two systems with identical output, in a Thresh file without ids: one document, so
    the second record is refused; the message says how to keep them apart."""
    path = tmp_path / "systems.json"
    records = [thresh_record(None, *source, 0), thresh_record(None, *source, 20)]
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    code, out = run("import", "src", path, "--format", "thresh", "--annotator", "ben")
    assert code == 2
    assert "appears twice (first on line 2); the records carry no id, so the same two " \
           "texts are one document: give each record its own 'id'" in out
    for i, record in enumerate(records):
        record["id"] = f"system-{i}"
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    ok("import", "src", path, "--format", "thresh", "--annotator", "ben")
    assert documents(env["ANNOTATOR_DATABASE_URL"], "src") == (
        ["q1", "q2", "system-0", "system-1"], 4)
