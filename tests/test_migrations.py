"""Migrations: an empty database upgrades to the models exactly, and back and forth."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from annotator.db import Database
from annotator.migrations import (
    alembic_config,
    current_revisions,
    downgrade,
    head_revisions,
    upgrade,
)
from annotator.models import Base


def test_upgrade_from_empty_matches_the_models(database_url):
    db = Database(database_url)
    upgrade(db.engine)
    tables = set(inspect(db.engine).get_table_names())
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    assert diff == [], f"models and migrations differ: {diff}"
    db.dispose()


def test_upgrade_is_idempotent_and_reversible(database_url):
    db = Database(database_url)
    upgrade(db.engine)
    upgrade(db.engine)
    downgrade(db.engine, "base")
    assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
    upgrade(db.engine)
    assert "edits" in inspect(db.engine).get_table_names()
    db.dispose()


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    db.dispose()


def test_upgrade_from_the_first_schema_keeps_every_annotation(database_url):
    """Data written under revision 0001 survives every later migration unchanged."""
    from sqlalchemy import text

    db = Database(database_url)
    upgrade(db.engine, "0001")
    now = "2026-01-01 00:00:00+00:00"
    statements = [
        "INSERT INTO users (id, username, password_hash, role, active, created_at) VALUES "
        "(1, 'ana', 'x', 'annotator', true, :now)",
        "INSERT INTO projects (id, name, schema_name, schema_yaml, annotators_per_doc, settings, "
        "created_at, version, updated_at) VALUES (1, 'p', 'infolossqa', 'name: infolossqa', 2, "
        "'{}', :now, 1, :now)",
        "INSERT INTO documents (id, project_id, external_id, source, target, meta, "
        "source_sentences, target_sentences, position, created_at, version, updated_at) VALUES "
        "(1, 1, 'd1', 'Original text.', 'Simple.', '{}', '[[0, 14]]', '[[0, 7]]', 1, :now, 1, "
        ":now)",
        "INSERT INTO assignments (id, document_id, user_id, status, seconds_spent, created_at, "
        "version, updated_at) VALUES (1, 1, 1, 'done', 61.5, :now, 3, :now)",
        "INSERT INTO edits (id, assignment_id, edit_type, fields, created_at, version, updated_at) "
        'VALUES (1, 1, \'deletion\', \'{"question": "What?", "answer": "Text."}\', :now, 2, :now)',
        "INSERT INTO spans (id, edit_id, side, start, \"end\") VALUES (1, 1, 'source', 0, 8)",
        "INSERT INTO ratings (id, assignment_id, level, item, field, value, version, updated_at) "
        "VALUES (1, 1, 'document', '', 'simple', '\"yes\"', 1, :now)",
    ]
    with db.engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement), {"now": now})
    upgrade(db.engine)
    with db.engine.connect() as connection:
        edit = connection.execute(text("SELECT edit_type, fields, version FROM edits")).one()
        span = connection.execute(text('SELECT side, start, "end" FROM spans')).one()
        assignment = connection.execute(
            text("SELECT status, seconds_spent, version FROM assignments")).one()
        rating = connection.execute(text("SELECT field, value FROM ratings")).one()
    assert edit[0] == "deletion" and "What?" in str(edit[1]) and edit[2] == 2
    assert tuple(span) == ("source", 0, 8)
    assert tuple(assignment) == ("done", 61.5, 3)
    assert rating[0] == "simple" and "yes" in str(rating[1])
    db.dispose()


def test_the_head_read_from_the_files_is_alembics(database_url):
    """Start-up skips Alembic when the database is at the head read from the version
    files; that head must be the one Alembic computes."""
    assert head_revisions() == set(ScriptDirectory.from_config(alembic_config()).get_heads())
    db = Database(database_url)
    assert current_revisions(db.engine) == set()
    upgrade(db.engine)
    assert current_revisions(db.engine) == head_revisions()
    downgrade(db.engine, "0005")
    assert current_revisions(db.engine) == {"0005"}
    upgrade(db.engine)  # behind the head: Alembic runs
    assert current_revisions(db.engine) == head_revisions()
    db.dispose()


def test_the_revision_lines_are_read_as_alembic_writes_them():
    """Start-up reads only the ``revision`` / ``down_revision`` lines of each version file
    (issue 44); Alembic's own spellings, and a merge's tuple over several lines (the whole
    file is parsed then), give the values the file declares."""
    from annotator.migrations import _declared_revisions

    assert _declared_revisions(
        '"""Doc.\n\nRevision ID: 0011\n"""\nrevision: str = "0011"\n'
        "down_revision: Union[str, None] = '0010_x'\nbranch_labels = None\n"
    ) == {"revision": "0011", "down_revision": "0010_x"}
    merged = _declared_revisions(
        "revision = 'm'\ndown_revision = (\n    '0011_a',\n    '0011_b',\n)\n"
        "def upgrade():\n    pass\n")
    assert (merged["revision"], merged["down_revision"]) == ("m", ("0011_a", "0011_b"))


def test_processes_starting_at_once_on_an_empty_database_migrate_one_at_a_time(
        database_url, tmp_path):
    """Four `annotator init` at once on a database never migrated (two servers and workers
    started together): one migrates, the others wait for its lock and find the database
    there; every one succeeds (without the lock: "table projects already exists")."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from annotator.migrations import current_revisions, head_revisions

    annotator = str(Path(sys.executable).with_name("annotator"))
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": database_url,
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance")}
    processes = [subprocess.Popen([annotator, "init"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True) for _ in range(4)]
    outputs = [(p.wait(120), p.stdout.read()) for p in processes]
    assert [code for code, _ in outputs] == [0, 0, 0, 0], outputs
    database = Database(database_url)
    assert current_revisions(database.engine) == head_revisions()
    database.dispose()
