"""Migrations: an empty database upgrades to the models exactly, and back and forth."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from annotator.db import Database
from annotator.migrations import downgrade, upgrade
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
