"""Alembic migrations, run programmatically by ``annotator init`` and at start-up.

Every schema change is a new revision in ``versions/``; a revision must never drop or
rewrite annotation data without carrying it over (tests upgrade a populated database).

Start-up first asks the database which revision it is at and compares it with the newest
revision of ``versions/`` (read from the files' ``revision`` / ``down_revision`` lines):
a database already there, the usual case, never loads Alembic, which with its template
engine and highlighter costs a fifth of a second of every command
(benchmarks/bench_import_labelstudio.py). ``tests/test_migrations.py`` checks the files'
head against Alembic's own.
"""

from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

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


# A module-level ``revision = '0009_jobs'`` or ``down_revision: str | None = None`` line.
_REVISION_LINE = re.compile(r"^(revision|down_revision)\b[^=\n]*=(.*)$", re.MULTILINE)


def _declared_revisions(text: str) -> dict:
    """A version file's ``revision`` and ``down_revision`` values. Only those lines are
    read (parsing every file whole was ~10 ms of each command's start-up, issue 44); a
    value written over several lines sends the file to the full parse."""
    values = {}
    for match in _REVISION_LINE.finditer(text):
        try:
            values[match.group(1)] = ast.literal_eval(match.group(2).strip())
        except (ValueError, SyntaxError):
            return _parsed_revisions(text)
    return values


def _parsed_revisions(text: str) -> dict:
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    values[target.id] = ast.literal_eval(node.value) if target.id in (
                        "revision", "down_revision") else None
    return values


@lru_cache(maxsize=1)
def _revision_graph() -> tuple[frozenset[str], frozenset[str]]:
    """(every revision of ``versions/``, every revision some other names as its
    ``down_revision``), read from the files once per process."""
    revisions, parents = set(), set()
    for path in (HERE / "versions").glob("*.py"):
        values = _declared_revisions(path.read_text(encoding="utf-8"))
        if "revision" not in values:
            continue
        revisions.add(values["revision"])
        down = values.get("down_revision")
        parents.update([down] if isinstance(down, str) else down or ())
    return frozenset(revisions), frozenset(parents)


def head_revisions() -> set[str]:
    """The newest revision(s) of ``versions/``: those no other revision names as its
    ``down_revision``."""
    revisions, parents = _revision_graph()
    return set(revisions - parents)


def code_heads() -> tuple[str, ...]:
    """The newest revision(s) this code knows, sorted (for /healthz)."""
    return tuple(sorted(head_revisions()))


def code_revisions() -> frozenset[str]:
    """Every revision this code knows."""
    return _revision_graph()[0]


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
