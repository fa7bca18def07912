"""Backup and restore of the whole database, releases included (they are stored in it).

SQLite: the online backup API (``sqlite3.Connection.backup``, https://sqlite.org/backup.html)
copies a consistent snapshot while the app keeps serving, WAL content included; the copy is
one self-contained file (rollback journal mode). PostgreSQL: ``pg_dump --format=custom`` and
``pg_restore`` (https://www.postgresql.org/docs/current/app-pgdump.html), the newest found
under ``/usr/lib/postgresql/*/bin`` (as ``scripts/with-postgres.sh`` finds the server) or on
PATH; a pg_dump older than the server refuses, so the newest is taken.

A restore goes only into an empty database (no table at all, not even one that
``annotator init`` made): it never merges into or overwrites a study. It reports success
only after the checks of :mod:`annotator.operations.restore_checks` (readable, intact, a
known revision, every trigger and constraint of the migrations); a refused restore
leaves the target empty.
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url

from annotator.db import make_engine
from annotator.operations import restore_checks as checks

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"


class BackupError(Exception):
    """Backup or restore refused or failed (message says why); nothing was changed."""


def backend(database_url: str) -> str:
    name = make_url(database_url).get_backend_name()
    if name not in ("sqlite", "postgresql"):
        raise BackupError(f"database {name}: backup knows SQLite and PostgreSQL only")
    return name


def _sqlite_path(database_url: str) -> Path:
    path = make_url(database_url).database
    if not path or path == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up or restore into")
    return Path(path)


def postgres_tool(name: str) -> str:
    """The newest ``pg_dump`` / ``pg_restore``: /usr/lib/postgresql/<N>/bin, then PATH."""
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                     key=lambda f: [int(p) if p.isdigit() else 0
                                    for p in Path(f).parent.name.split(".")])
    for folder in reversed(folders):
        if os.access(Path(folder) / name, os.X_OK):
            return str(Path(folder) / name)
    found = shutil.which(name)
    if not found:
        raise BackupError(f"{name} not found (install PostgreSQL's client programs, e.g. "
                          "apt-get install postgresql-client)")
    return found


def _libpq(database_url: str) -> tuple[str, dict[str, str]]:
    """A libpq connection URI without the password, and an environment carrying it in
    PGPASSWORD (not on the command line, where every user of the machine sees it)."""
    url = make_url(database_url).set(drivername="postgresql")
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return url.set(password=None).render_as_string(hide_password=False), env


def _run(argv: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(argv, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise BackupError(f"{what} failed (exit {result.returncode}): "
                          f"{(result.stderr or result.stdout).strip()[:2000]}")


def backup_database(database_url: str, target: Path) -> str:
    """Write a backup of the database to the new file ``target``; its kind."""
    target = Path(target)
    if target.exists():
        raise BackupError(f"{target} exists already: a backup never overwrites a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if backend(database_url) == "sqlite":
            _backup_sqlite(_sqlite_path(database_url), partial)
            kind = "SQLite database file"
        else:
            uri, env = _libpq(database_url)
            _run([postgres_tool("pg_dump"), "--format=custom", "--no-owner",
                  "--no-privileges", f"--file={partial}", f"--dbname={uri}"], env, "pg_dump")
            kind = "pg_dump custom-format archive"
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return kind


def _backup_sqlite(source: Path, partial: Path) -> None:
    if not source.is_file():
        raise BackupError(f"{source}: no such SQLite database")
    src = sqlite3.connect(source)
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst)
        # One self-contained file: no -wal beside it to be forgotten when copying.
        dst.execute("PRAGMA journal_mode=DELETE")
    finally:
        dst.close()
        src.close()


def backup_kind(path: Path) -> str:
    """'sqlite' or 'postgresql', from the file's first bytes."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise BackupError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_DUMP_MAGIC):
        return "postgresql"
    raise BackupError(f"{path}: neither a SQLite database nor a pg_dump custom-format archive "
                      f"(starts with {head[:8]!r}); give a file `annotator backup` wrote")


def existing_tables(database_url: str) -> list[str]:
    engine = create_engine(database_url)
    try:
        return sorted(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def restore_database(database_url: str, source: Path) -> str:
    """Restore the backup ``source`` into the empty database ``database_url``, bring it to
    the newest migration and verify it (:mod:`annotator.operations.restore_checks`); what
    was verified. Any refusal leaves the target empty and says why."""
    source = Path(source)
    kind, target = backup_kind(source), backend(database_url)
    if kind != target:
        raise BackupError(f"{source} is a {_names[kind]} backup but ANNOTATOR_DATABASE_URL "
                          f"names a {_names[target]} database: restore into the same kind")
    shown = make_url(database_url).render_as_string(hide_password=True)
    if target == "sqlite":
        path = _sqlite_path(database_url)
        _checked(checks.check_sqlite_backup, source)
        existed = path.exists()
        _restore_sqlite(source, path, shown)
        engine = make_engine(database_url)
        undo = lambda: checks.empty_sqlite(path, existed)  # noqa: E731
    else:
        tables = existing_tables(database_url)
        if tables:
            raise BackupError(_not_empty(shown, tables))
        engine = make_engine(database_url)
        before = checks.postgres_objects(engine)
        uri, env = _libpq(database_url)
        # One transaction: a failed pg_restore leaves the database as empty as it was.
        try:
            _run([postgres_tool("pg_restore"), "--no-owner", "--no-privileges",
                  "--exit-on-error", "--single-transaction", f"--dbname={uri}", str(source)],
                 env, f"pg_restore of {source}")
        except BaseException:
            engine.dispose()
            raise
        undo = lambda: checks.empty_postgres(engine, before)  # noqa: E731
    try:
        return _checked(checks.verify_restored, engine)
    except BaseException:
        engine.dispose()
        undo()
        raise
    finally:
        engine.dispose()


def _checked(check, *args):
    """A check's refusal (or any error it meets) as a :class:`BackupError` with its reason."""
    try:
        return check(*args)
    except checks.RestoreRefused as exc:
        raise BackupError(f"restore refused, the target is left empty: {exc}") from None
    except Exception as exc:  # e.g. a migration failing on the restored data
        raise BackupError(f"restore refused, the target is left empty: {type(exc).__name__}: "
                          f"{str(exc)[:1000]}") from exc


_names = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def _not_empty(shown: str, tables: list[str]) -> str:
    return (f"database {shown} is not empty ({len(tables)} table(s): "
            f"{', '.join(tables[:5])}{', ...' if len(tables) > 5 else ''}): restore only into "
            "a new, empty database (a new SQLite file, or `createdb NAME`; do not run "
            "`annotator init` on it first) and point ANNOTATOR_DATABASE_URL at it")


def _restore_sqlite(source: Path, target: Path, shown: str) -> None:
    src = sqlite3.connect(source)
    try:
        if not src.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                           "'alembic_version'").fetchone():
            raise BackupError(f"{source}: a SQLite file, but no annotator database (it has "
                              "no alembic_version table)")
        target.parent.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(target)
        try:
            tables = [row[0] for row in dst.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            if tables:
                raise BackupError(_not_empty(shown, tables))
            # Through the target's own connection: SQLite replaces its pages in one
            # transaction (a stale -wal beside the file cannot mix in).
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
