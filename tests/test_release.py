"""Releases: contents, checksums, exclusion or refusal of unfinished documents, refusal to
overwrite, read-only files, byte-identical output for the same database state."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select, text
from sqlalchemy.exc import DatabaseError

from annotator.cli import main
from annotator.config import Config
from annotator.models import Release, ReleaseBlob
from annotator.releases import ReleaseError, list_releases, release_file
from annotator.schemas.guideline_text import guideline_markdown
from tests.adjudication_fixtures import project_of, release


def test_release_contents_and_checksums(database, adjudicated, tmp_path):
    manifest = release(database, adjudicated, tmp_path / "exports", notes="first cut")
    folder = tmp_path / "exports" / "qa" / "v1"
    assert sorted(manifest["files"]) == [
        "agreement.html", "agreement.json", "annotations/ana.jsonl", "annotations/ben.jsonl",
        "gold.csv", "gold.jsonl", "guideline.md", "schema.yaml"]
    for name, meta in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == meta["sha256"] and len(data) == meta["bytes"]
    on_disk = json.loads((folder / "MANIFEST.json").read_text())
    assert on_disk["notes"] == "first cut" and on_disk["tool"]["name"] == "annotator"
    assert on_disk["counts"] == {"documents_in_project": 3, "documents_released": 2,
                                 "documents_excluded": 1, "gold_edits": 2, "gold_ratings": 0,
                                 "annotators": 2}
    assert on_disk["excluded"] == [{"id": "q3", "reason": "annotation not finished by ana, ben"}]

    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    assert [g["id"] for g in gold] == ["q1", "q2"]
    (edit,) = gold[0]["edits"]
    assert edit["fields"]["question"] == "What dose did patients receive?"
    assert edit["span_texts"]["source"] == ["2.5 mg/kg i.v."]
    assert edit["provenance"]["decision"] == "accept"
    assert edit["provenance"]["source_edits"] == [{"annotator": "ben",
                                                   "id": adjudicated["edits"]["e2"]}]
    assert gold[0]["adjudication"]["rejected_edit_ids"] == [adjudicated["edits"]["e3"]]
    assert gold[1]["edits"][0]["provenance"]["automatic"] is True

    rows = list(csv.DictReader(io.StringIO((folder / "gold.csv").read_text())))
    assert [(r["document_id"], r["record"], r["type"]) for r in rows] == [
        ("q1", "edit", "deletion"), ("q2", "edit", "deletion")]
    assert rows[0]["source_annotators"] == "ben"

    raw = [json.loads(x) for x in (folder / "annotations/ben.jsonl").read_text().splitlines()]
    assert [r["document_id"] for r in raw] == ["q1", "q2"]  # only released documents
    assert len(raw[0]["edits"]) == 2 and raw[0]["role"] == "annotator"
    with database.session() as session:
        assert (folder / "schema.yaml").read_text() == project_of(session, adjudicated).schema_yaml
    assert (folder / "guideline.md").read_text() == guideline_markdown("infolossqa.md")
    report = json.loads((folder / "agreement.json").read_text())
    assert report["counts"]["documents"] == 2 and report["counts"]["edits"] == 5
    assert "Agreement report" in (folder / "agreement.html").read_text()


def test_release_files_are_read_only_and_versions_immutable(database, adjudicated, tmp_path):
    exports = tmp_path / "exports"
    release(database, adjudicated, exports)
    folder = exports / "qa" / "v1"
    for path in [folder, *folder.rglob("*")]:
        assert not os.access(path, os.W_OK) or os.geteuid() == 0
        assert path.stat().st_mode & 0o222 == 0
    before = (folder / "gold.jsonl").read_bytes()
    with pytest.raises(ReleaseError, match="exists already"):
        release(database, adjudicated, exports)
    assert (folder / "gold.jsonl").read_bytes() == before
    # The database itself refuses to change or remove a stored release, whoever asks.
    for statement in ("UPDATE release_blobs SET data = :x", "DELETE FROM release_files",
                      "UPDATE releases SET version = 'v2'", "DELETE FROM releases"):
        with pytest.raises(DatabaseError, match="releases are immutable"):
            with database.engine.begin() as connection:
                connection.execute(text(statement), {"x": b"forged"})
    with database.session() as session:
        assert release_file(session, project_of(session, adjudicated), "v1",
                            "gold.jsonl") == before
    with pytest.raises(ReleaseError, match="version"):
        release(database, adjudicated, exports, version="../escape")
    assert not (exports / "escape").exists()


def test_require_complete_refuses_and_writes_nothing(database, adjudicated, tmp_path):
    with pytest.raises(ReleaseError, match="q3: annotation not finished"):
        release(database, adjudicated, tmp_path / "exports", require_complete=True)
    assert not (tmp_path / "exports").exists()
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Release)) == 0
        assert session.scalar(select(func.count()).select_from(ReleaseBlob)) == 0


def test_two_releases_of_the_same_state_are_byte_identical(database, adjudicated, tmp_path):
    first = release(database, adjudicated, tmp_path / "a")
    second = release(database, adjudicated, tmp_path / "b", version="v2")
    a, b = tmp_path / "a" / "qa" / "v1", tmp_path / "b" / "qa" / "v2"
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
    for name in names:
        if name != "MANIFEST.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    for manifest in (first, second):
        manifest.pop("created_at"), manifest.pop("version")
    assert first == second
    with database.session() as session:  # content-addressed: each file stored once
        assert session.scalar(select(func.count()).select_from(ReleaseBlob)) == len(names) + 1


def test_release_browser_helpers_only_serve_listed_files(database, adjudicated, tmp_path):
    release(database, adjudicated, tmp_path / "exports", notes="n")
    folder = tmp_path / "exports" / "qa" / "v1"
    with database.session() as session:
        project = project_of(session, adjudicated)
        (listed,) = list_releases(session, project)
        assert listed["version"] == "v1" and listed["counts"]["documents_released"] == 2
        assert release_file(session, project, "v1", "gold.jsonl") == (
            folder / "gold.jsonl").read_bytes()
        assert release_file(session, project, "v1", "annotations/ana.jsonl") is not None
        for bad in ("../../../etc/passwd", "/etc/passwd", "annotations/../gold.jsonl/x",
                    "nope"):
            assert release_file(session, project, "v1", bad) is None
        assert release_file(session, project, "..", "MANIFEST.json") is None
        assert release_file(session, project, "v9", "MANIFEST.json") is None


def test_release_command(env, adjudicated):
    result = CliRunner().invoke(main, ["release", "qa", "--version", "v1", "--bootstrap", "10",
                                       "--notes", "cli"])
    assert result.exit_code == 0, result.output
    assert "2 document(s), 2 gold edit(s)" in result.output
    assert "excluded q3" in result.output
    assert "stored in the database" in result.output
    assert not Config.from_env().exports_path.exists()  # nothing on this server's disk
    listed = CliRunner().invoke(main, ["release", "list", "qa"])
    assert listed.exit_code == 0 and listed.output.startswith("v1\t") and "cli" in listed.output
    again = CliRunner().invoke(main, ["release", "qa", "--version", "v1"])
    assert again.exit_code == 1 and "exists already" in again.output
    strict = CliRunner().invoke(main, ["release", "qa", "--version", "v2", "--require-complete"])
    assert strict.exit_code == 1 and "not fully adjudicated" in strict.output
