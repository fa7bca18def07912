"""An annotation file given as documents is refused, naming the file and the command that
imports it, and nothing changes (issue 43: an InfoLossQA/Thresh annotation file uploaded on
the import page became one new document, its edits dropped, with "Imported 1 new
documents").

The files are real: the InfoLossQA authors' Thresh exports and Label Studio JSON-MIN
exports, and this tool's own exports (JSONL, CSV, Label Studio, InfoLossQA questions) of
the authors' annotations imported into a project."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.models import Project
from tests.helpers import (
    INFOLOSSQA_ANNOTATIONS,
    INFOLOSSQA_FILES,
    INFOLOSSQA_TYPOLOGY,
    row_counts,
)
from tests.test_lead_study_web import Lead, upload

KARIM = INFOLOSSQA_ANNOTATIONS / "annotations-karim"
THRESH_FILE = sorted(KARIM.glob("*-annotations.json"))[0]
JSON_MIN = INFOLOSSQA_FILES["accuracy"]["kathryn"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def exports(env, tmp_path):
    """This tool's exports of karim's real annotations (project 'source'), by format."""
    assert run("project", "create", "source", "--schema", INFOLOSSQA_TYPOLOGY).exit_code == 0
    imported = run("import", "source", KARIM, "--format", "thresh", "--annotator", "karim")
    assert imported.exit_code == 0, imported.output
    out = {}
    for fmt, name in (("jsonl", "own.jsonl"), ("csv", "own.csv"),
                      ("labelstudio", "studio.json")):
        assert run("export", "source", "--format", fmt, "--out",
                   tmp_path / name).exit_code == 0
        out[fmt] = tmp_path / name
    assert run("export", "source", "--format", "infolossqa", "--out",
               tmp_path / "infolossqa").exit_code == 0
    out["infolossqa"] = tmp_path / "infolossqa" / "questions.json"
    return out


def counts(database_url):
    from annotator.db import Database

    database = Database(database_url)
    with database.session() as session:
        found = row_counts(session)
        found["projects"] = session.query(Project).count()
    database.dispose()
    return found


def test_each_kind_of_annotation_file_is_refused_as_documents_naming_its_command(
        env, exports, database_url):
    assert run("project", "create", "docs", "--schema", INFOLOSSQA_TYPOLOGY).exit_code == 0
    cases = [(THRESH_FILE, "thresh", "a Thresh annotation file"),
             (JSON_MIN, "labelstudio-min", "a Label Studio JSON-MIN export"),
             (exports["labelstudio"], "labelstudio", "a Label Studio JSON export"),
             (exports["jsonl"], "annotations-jsonl", "this tool's annotations export (JSONL)"),
             (exports["csv"], "annotations-csv", "this tool's annotations export (CSV)"),
             (exports["infolossqa"], "infolossqa", "InfoLossQA questions")]
    for path, fmt, what in cases:
        before = counts(database_url)
        result = run("import", "docs", path)
        assert result.exit_code == 2, (path, result.output)
        # The file and the line of its first record (in a pretty-printed array: line 2).
        assert re.search(rf"{re.escape(str(path))}:[12]: field ", result.output)
        assert f"this is {what}" in result.output
        assert "not a file of documents (read as documents, its annotations would be " \
               "dropped)" in result.output
        given = "FOLDER" if fmt == "infolossqa" else path
        assert f"`annotator import PROJECT {given} --format {fmt}`" in result.output
        assert counts(database_url) == before, path  # nothing changed
        # The command it names imports the file.
        if fmt in ("thresh", "annotations-jsonl"):
            extra = ("--annotator", "karim") if fmt == "thresh" else ()
            assert run("project", "create", f"to-{fmt}", "--schema",
                       INFOLOSSQA_TYPOLOGY).exit_code == 0
            named = run("import", f"to-{fmt}", path, "--format", fmt, *extra)
            assert named.exit_code == 0, named.output
            assert " 0 edits" not in named.output
    # The Thresh file's own record: the authors' edits that would have been dropped.
    record = json.loads(THRESH_FILE.read_text(encoding="utf-8"))[0]
    assert record["edits"] and {"source", "target", "id"} <= set(record)


def test_the_set_up_page_refuses_the_real_thresh_file_and_imports_nothing(
        app, database, users, tmp_path):
    from annotator.models import User
    from annotator.study.projects import create_project
    with database.session() as session:
        project = create_project(session, "setup", str(INFOLOSSQA_TYPOLOGY),
                                 leads=[session.get(User, users["lee"])])
        project_id = project.id
    lee = Lead(app, "lee")  # (logging in is an audit event: counted before the upload)
    with database.session() as session:
        before = row_counts(session)
    response = lee.post(f"/projects/{project_id}/import", {
        "files": upload(THRESH_FILE.name, THRESH_FILE.read_text(encoding="utf-8"))})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Nothing was imported" in page
    assert (f"{THRESH_FILE.name}:1: field &#39;edits&#39;: this is a Thresh annotation file"
            in page)
    assert (f"import it with `annotator import PROJECT {THRESH_FILE.name} --format thresh`"
            in page)
    assert "Imported" not in page
    with database.session() as session:
        assert row_counts(session) == before


def test_a_documents_file_with_unusual_keys_is_still_documents(env, tmp_path):
    """Only the shapes of annotation files are refused: documents whose metadata holds an
    "annotator" or a list named otherwise import as before."""
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "d1", "source": "A b.", "target": "A.",
                                "annotator": "system-3", "notes": [1, 2]}) + "\n",
                    encoding="utf-8")
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    result = run("import", "p", path)
    assert result.exit_code == 0, result.output
    assert "imported 1 new and 0 updated documents" in result.output
