"""`annotator backup` / `annotator restore` (issue 31): a backup restored into an empty
database gives the same exports and the same release checksums; a database that is not
empty is refused and left as it was. Runs on SQLite, and on PostgreSQL (pg_dump /
pg_restore) in the PostgreSQL pass (ANNOTATOR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect, text

from annotator.cli import main
from annotator.operations.backup import PG_DUMP_MAGIC, SQLITE_MAGIC
from tests.conftest import fresh_database_url
from tests.helpers import table_count


def run(*args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def release_checksums(database_url: str) -> list[tuple]:
    engine = create_engine(database_url)
    with engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT r.version, r.manifest_sha256, f.name, f.sha256 FROM releases r "
            "JOIN release_files f ON f.release_id = r.id ORDER BY r.version, f.name")).all()
    engine.dispose()
    return [tuple(row) for row in rows]


@pytest.fixture
def restored_url(tmp_path):
    with fresh_database_url(tmp_path / "restored") as url:
        yield url


def test_backup_then_restore_gives_identical_exports_and_release_checksums(
        env, database, adjudicated, restored_url, tmp_path, monkeypatch):
    run("release", "qa", "--version", "v1", "--bootstrap", "0", "--notes", "before backup")
    run("export", "qa", "--format", "jsonl", "--out", tmp_path / "before.jsonl")
    verified = run("release", "verify", "qa", "v1").strip().splitlines()[-1]
    before = release_checksums(env["ANNOTATOR_DATABASE_URL"])
    assert len(before) == 8

    backup = tmp_path / "backups" / "study.backup"
    run("backup", backup)
    magic = SQLITE_MAGIC if restored_url.startswith("sqlite") else PG_DUMP_MAGIC
    assert backup.read_bytes().startswith(magic)
    refused = run("backup", backup, ok=False)
    assert "exists already" in refused

    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", restored_url)
    # The restored server has no exports folder: the release comes with the database.
    monkeypatch.setenv("ANNOTATOR_EXPORTS_PATH", str(tmp_path / "elsewhere"))
    assert "restored" in run("restore", backup)
    run("export", "qa", "--format", "jsonl", "--out", tmp_path / "after.jsonl")
    assert (tmp_path / "after.jsonl").read_bytes() == (tmp_path / "before.jsonl").read_bytes()
    assert release_checksums(restored_url) == before
    assert run("release", "verify", "qa", "v1").strip().splitlines()[-1] == verified
    run("release", "export", "qa", "v1", tmp_path / "v1")
    assert "8 file(s) match" in run("release", "verify", "--folder", tmp_path / "v1")

    # A second restore into the now populated database is refused and changes nothing.
    users = table_count(restored_url, "users")
    again = run("restore", backup, ok=False)
    assert "is not empty" in again and "restore only into a new, empty database" in again
    assert table_count(restored_url, "users") == users


def test_restore_refuses_what_is_not_a_backup_of_this_kind(env, database, tmp_path,
                                                           restored_url, monkeypatch):
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", restored_url)
    missing = run("restore", tmp_path / "nope.backup", ok=False)
    assert "nope.backup: cannot read" in missing
    junk = tmp_path / "junk.backup"
    junk.write_text("not a backup\n")
    assert "neither a SQLite database nor a pg_dump" in run("restore", junk, ok=False)
    other = tmp_path / "other.backup"
    sqlite = restored_url.startswith("sqlite")
    other.write_bytes((PG_DUMP_MAGIC if sqlite else SQLITE_MAGIC) + b"\0" * 64)
    mismatch = run("restore", other, ok=False)
    assert "restore into the same kind" in mismatch
    if sqlite:  # nothing was created on the way
        assert not (tmp_path / "restored" / "test.sqlite3").exists()
    else:
        engine = create_engine(restored_url)
        assert inspect(engine).get_table_names() == []
        engine.dispose()
