"""Tamper evidence: `annotator release verify`, the release page and downloads compare every
file with the manifest's sha256, for a release in the database and for an exported folder."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import text

from annotator.cli import main
from annotator.releases import verify_folder, verify_release
from annotator.releases.store import sha256_hex
from tests.adjudication_fixtures import project_of, release
from tests.conftest import login


def _tamper(path, data: bytes) -> None:
    os.chmod(path.parent, 0o755)
    os.chmod(path, 0o644)
    path.write_bytes(data)


def _forge(database, statements: list[str], **values) -> None:
    """Change stored release rows the way someone with write access to the database could:
    past the immutability triggers (dropped or disabled first)."""
    postgres = database.engine.dialect.name == "postgresql"
    with database.engine.begin() as connection:
        for table in ("release_blobs", "releases", "release_files"):
            if postgres:
                connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
            else:
                for event in ("update", "delete"):
                    connection.execute(text(f"DROP TRIGGER {table}_immutable_{event}"))
        for statement in statements:
            connection.execute(text(statement), values)


def _digest_of(database, name: str) -> str:
    with database.engine.connect() as connection:
        return connection.execute(text("SELECT sha256 FROM release_files WHERE name = :n"),
                                  {"n": name}).scalar_one()


def test_verify_from_the_database_names_a_changed_missing_and_extra_file(
        database, adjudicated, env):
    release(database, adjudicated)
    ok = CliRunner().invoke(main, ["release", "verify", "qa", "v1"])
    assert ok.exit_code == 0, ok.output
    assert "8 file(s) match the manifest" in ok.output

    gold = _digest_of(database, "gold.jsonl")
    with database.session() as session:
        original = session.execute(text("SELECT data FROM release_blobs WHERE sha256 = :d"),
                                   {"d": gold}).scalar_one()
    forged = bytes(original).replace(b'"q1"', b'"qX"')  # same size, other bytes
    _forge(database, [
        "UPDATE release_blobs SET data = :forged WHERE sha256 = :gold",
        "DELETE FROM release_files WHERE name = 'annotations/ben.jsonl'",
        "INSERT INTO release_files (release_id, name, sha256) SELECT release_id, 'extra.txt', "
        "sha256 FROM release_files WHERE name = 'gold.csv'"], forged=forged, gold=gold)
    bad = CliRunner().invoke(main, ["release", "verify", "qa", "v1"])
    assert bad.exit_code == 1
    assert "MISMATCH gold.jsonl: sha256" in bad.output
    assert "MISMATCH annotations/ben.jsonl: missing" in bad.output
    assert "MISMATCH extra.txt: not in the manifest" in bad.output
    with database.session() as session:
        assert not verify_release(session, project_of(session, adjudicated), "v1").ok
    unknown = CliRunner().invoke(main, ["release", "verify", "qa", "v7"])
    assert unknown.exit_code == 1 and "no such release" in unknown.output


def test_a_changed_manifest_is_named(database, adjudicated):
    release(database, adjudicated)
    _forge(database, ["UPDATE release_blobs SET data = :x WHERE sha256 = "
                      "(SELECT manifest_sha256 FROM releases)"], x=b'{"files": {}}')
    with database.session() as session:
        result = verify_release(session, project_of(session, adjudicated), "v1")
    assert any(p.startswith("MANIFEST.json: changed since the release was stored")
               for p in result.problems)


def test_verify_an_exported_folder(database, adjudicated, env, tmp_path):
    release(database, adjudicated)
    folder = tmp_path / "out"
    exported = CliRunner().invoke(main, ["release", "export", "qa", "v1", str(folder)])
    assert exported.exit_code == 0, exported.output
    ok = CliRunner().invoke(main, ["release", "verify", "--folder", str(folder)])
    assert ok.exit_code == 0 and "8 file(s) match the manifest" in ok.output
    assert sha256_hex((folder / "MANIFEST.json").read_bytes()) in ok.output
    again = CliRunner().invoke(main, ["release", "export", "qa", "v1", str(folder)])
    assert again.exit_code == 1 and "exists already" in again.output

    gold = folder / "gold.jsonl"
    _tamper(gold, gold.read_bytes().replace(b'"q1"', b'"qX"'))
    (folder / "extra.txt").write_text("planted")
    os.chmod(folder / "annotations", 0o755)
    (folder / "annotations" / "ben.jsonl").unlink()
    bad = CliRunner().invoke(main, ["release", "verify", "--folder", str(folder)])
    assert bad.exit_code == 1
    assert "MISMATCH gold.jsonl: sha256" in bad.output
    assert "MISMATCH annotations/ben.jsonl: missing" in bad.output
    assert "MISMATCH extra.txt: not in the manifest" in bad.output
    assert not verify_folder(folder).ok
    both = CliRunner().invoke(main, ["release", "verify", "qa", "v1", "--folder", str(folder)])
    assert both.exit_code == 1 and "not both" in both.output


def test_cutting_still_works_without_the_subcommand(database, adjudicated, env):
    result = CliRunner().invoke(main, ["release", "qa", "--version", "v2", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert "release v2 of qa" in result.output


def test_release_page_shows_the_mismatch_and_download_is_refused(
        app, client, database, adjudicated):
    release(database, adjudicated)
    login(client, "lee")
    pid = adjudicated["project_id"]
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert "All 8 files match" in page and f"/projects/{pid}/releases/v1.zip" in page
    assert client.get(f"/projects/{pid}/releases/v1/gold.csv").status_code == 200

    gold_csv = _digest_of(database, "gold.csv")
    _forge(database, ["UPDATE release_blobs SET data = :x WHERE sha256 = :d"],
           x=b"forged,row\n", d=gold_csv)
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert "no longer matches its manifest" in page and "gold.csv:" in page
    assert f"/projects/{pid}/releases/v1.zip" not in page
    refused = client.get(f"/projects/{pid}/releases/v1/gold.csv")
    assert refused.status_code == 409 and b"download refused" in refused.data
    assert client.get(f"/projects/{pid}/releases/v1.zip").status_code == 409
    assert client.get(f"/projects/{pid}/releases/v1/gold.jsonl").status_code == 200


def test_verify_usage_names_the_two_forms_it_accepts():
    """The help (and the README's command table made from it) shows PROJECT VERSION or
    --folder DIR, never both together: the command refuses that (above)."""
    shown = CliRunner().invoke(main, ["release", "verify", "--help"])
    assert shown.exit_code == 0
    assert "release verify (PROJECT VERSION | --folder DIR)\n" in shown.output
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "`annotator release verify (PROJECT VERSION \\| --folder DIR)`" in readme
    assert "release verify PROJECT VERSION [--folder" not in readme
