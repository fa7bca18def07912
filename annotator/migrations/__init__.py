"""Alembic migrations, run programmatically by ``annotator init`` and at start-up.

Every schema change is a new revision in ``versions/``; a revision must never drop or
rewrite annotation data without carrying it over (tests upgrade a populated database).

Start-up first asks the database which revision it is at and compares it with the newest
revision of ``versions/`` (read from the files' ``revision`` / ``down_revision`` lines by
:mod:`annotator.core.migration_heads`, which needs no SQLAlchemy):
a database already there, the usual case, never loads Alembic, which with its template
engine and highlighter costs a fifth of a second of every command
(benchmarks/bench_import_labelstudio.py). ``tests/test_migrations.py`` checks the files'
head against Alembic's own.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from annotator.core.migration_heads import (  # noqa: F401  (re-exported)
    _declared_revisions,
    code_heads,
    code_revisions,
    head_revisions,
)

HERE = Path(__file__).parent


def alembic_config(engine: Engine | None = None):
    # Alembic loads only when a migration runs (see the module docstring).
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    if engine is not None:
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
        config.attributes["engine"] = engine
    return config


def current_revisions(engine: Engine) -> set[str]:
    """The revision(s) the database is at; empty for a database never migrated."""
    with engine.connect() as connection:
        return set(database_heads(connection))


def database_heads(connection: Connection) -> tuple[str, ...]:
    """The revision(s) the database is at (reads ``alembic_version``; empty: none)."""
    if not inspect(connection).has_table("alembic_version"):
        return ()
    return tuple(sorted(row[0] for row in connection.execute(
        text("SELECT version_num FROM alembic_version"))))


# Two servers (or a server and a worker) started at once on a database that is behind both
# migrate: without a lock both create the first tables and one fails ("table projects
# already exists"). The key is arbitrary, fixed for this tool.
ADVISORY_LOCK_KEY = 7_302_114_551


@contextmanager
def migration_lock(engine: Engine):
    """One migrating process at a time: PostgreSQL's session advisory lock, or an exclusive
    lock on a file beside the SQLite database (nothing for an in-memory database)."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"),
                                   {"key": ADVISORY_LOCK_KEY})
                connection.commit()
        return
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        yield
        return
    import fcntl  # POSIX file locks; only SQLite files need them

    with open(f"{database}.migrate-lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def upgrade(engine: Engine, revision: str = "head") -> None:
    if revision == "head" and current_revisions(engine) == head_revisions():
        return  # already there: no Alembic, no lock
    from alembic import command  # only when a migration runs (module docstring)

    with migration_lock(engine):
        # Another process may have migrated while this one waited for the lock.
        if revision == "head" and current_revisions(engine) == head_revisions():
            return
        command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command  # only when a migration runs (module docstring)

    command.downgrade(alembic_config(engine), revision)
