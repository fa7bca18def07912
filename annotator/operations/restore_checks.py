"""What a restore checks before it reports success (issue 41, finding 6), and how a
refused restore leaves its target empty again.

1. The file is readable as what its first bytes claim (a SQLite file that SQLite opens; a
   pg_dump archive ``pg_restore`` loads in one transaction).
2. SQLite: ``PRAGMA integrity_check`` (https://sqlite.org/pragma.html#pragma_integrity_check)
   finds no damage: a corrupted page, an index out of step with its table, a NOT NULL or
   CHECK constraint broken. PostgreSQL has no such check of a dump; ``pg_restore
   --exit-on-error`` refuses a damaged archive.
3. The migration revision the backup is at is one this version knows: a backup of a newer
   version (or an edited one) cannot be brought to this version's schema.
4. After the restored database is brought to the newest migration, every trigger,
   constraint and index the migrations create is there: the objects of a reference
   database migrated here and now (a temporary SQLite file, or a scratch schema of the
   target PostgreSQL database, dropped afterwards) must all be present. A backup whose
   release-immutability triggers were dropped is **refused, not repaired**: without them
   anyone could have changed a release before the backup was taken, and recreating them
   would make the restored releases look as trustworthy as ever. Whoever dropped them
   knows; they restore the triggers in the source (``annotator release verify`` each
   release) and back up again.

On any refusal after data reached the target, the target is emptied again (the SQLite
file removed, or truncated if it existed before; on PostgreSQL every table, view,
sequence and function the restore created dropped), so the next restore is not refused
as "not empty".
"""

from __future__ import annotations

import secrets
import sqlite3
import tempfile
from functools import lru_cache
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Connection

from annotator.migrations import code_revisions, database_heads, upgrade
from annotator.models import Release, ReleaseBlob, ReleaseFile

# Problems quoted from a failed integrity check (SQLite lists up to 100).
PROBLEMS_SHOWN = 5


class RestoreRefused(Exception):
    """The backup failed a check (message says which and why)."""


def check_sqlite_backup(source: Path) -> str:
    """Checks 1-3 on a SQLite backup file, read-only; its revision."""
    try:
        connection = sqlite3.connect(f"{Path(source).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise RestoreRefused(f"{source}: SQLite cannot open it ({exc})") from None
    try:
        try:
            problems = [row[0] for row in connection.execute(
                f"PRAGMA integrity_check({PROBLEMS_SHOWN})")]
        except sqlite3.DatabaseError as exc:
            raise RestoreRefused(f"{source}: starts like a SQLite database but SQLite cannot "
                                 f"read it ({exc}): not a backup `annotator backup` wrote, "
                                 "or damaged") from None
        if problems != ["ok"]:
            raise RestoreRefused(f"{source}: the integrity check found damage, nothing "
                                 f"restored: {'; '.join(problems)}")
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'alembic_version'").fetchone():
            raise RestoreRefused(f"{source}: a SQLite file, but no annotator database (it "
                                 "has no alembic_version table)")
        revisions = tuple(sorted(row[0] for row in connection.execute(
            "SELECT version_num FROM alembic_version")))
    finally:
        connection.close()
    return check_revision(revisions, str(source))


def check_revision(revisions: tuple[str, ...], where: str) -> str:
    """Check 3: the one revision ``revisions`` holds, if this version knows it."""
    if len(revisions) != 1:
        raise RestoreRefused(f"{where}: expected one migration revision, found "
                             f"{len(revisions)} ({', '.join(revisions) or 'none'})")
    if revisions[0] not in code_revisions():
        shown = revisions[0][:80]
        raise RestoreRefused(f"{where}: migration revision {shown!r} is unknown to this "
                             "version of annotator (a backup of a newer version, or edited); "
                             "restore it with the version that wrote it")
    return revisions[0]


def verify_restored(engine) -> str:
    """Checks 3-4 on the restored database: its revision is known, the newest migration
    applies, every migration-made object is present. What was checked, for the report."""
    with engine.connect() as connection:
        revision = check_revision(database_heads(connection), "the restored database")
    upgrade(engine)
    with engine.connect() as connection:
        present, now = schema_objects(connection), database_heads(connection)
    expected = reference_objects(engine)
    missing = sorted(expected - present)
    if missing:
        release_tables = {model.__tablename__ for model in (Release, ReleaseBlob, ReleaseFile)}
        dropped = any(item.startswith("trigger") and item.rsplit(" on ", 1)[-1]
                      in release_tables for item in missing)
        why = (" (releases would be editable: the backup's release-immutability triggers "
               "were dropped; recreate them in the source, verify its releases, back up "
               "again)" if dropped else "")
        raise RestoreRefused(f"the backup lacks {len(missing)} object(s) the migrations "
                             f"create{why}: {', '.join(missing[:10])}")
    triggers = sum(1 for item in expected if item.startswith("trigger"))
    loaded = ("integrity check ok" if engine.dialect.name == "sqlite"
              else "pg_restore loaded the whole archive")
    return (f"{loaded}, revision {revision}"
            + (f" migrated to {', '.join(now)}" if now != (revision,) else "")
            + f", all {len(expected)} triggers, constraints and indexes the migrations create "
            f"present ({triggers} triggers)")


def schema_objects(connection: Connection, schema: str | None = None) -> set[str]:
    """Every trigger, CHECK / unique / foreign-key constraint and index, as readable
    names (``trigger T on TABLE``); ``schema``: another PostgreSQL schema than the
    current one."""
    inspector = inspect(connection)
    found = set()
    for table in inspector.get_table_names(schema=schema):
        for check in inspector.get_check_constraints(table, schema=schema):
            found.add(f"check constraint {check['name'] or check['sqltext']} on {table}")
        for unique in inspector.get_unique_constraints(table, schema=schema):
            found.add(f"unique ({', '.join(unique['column_names'])}) on {table}")
        for key in inspector.get_foreign_keys(table, schema=schema):
            found.add(f"foreign key {table}({', '.join(key['constrained_columns'])}) -> "
                      f"{key['referred_table']}")
        for index in inspector.get_indexes(table, schema=schema):
            found.add(f"index {index['name']} on {table}")
    found.update(f"trigger {name} on {table}" for name, table in _triggers(connection, schema))
    return found


def _triggers(connection: Connection, schema: str | None) -> list[tuple[str, str]]:
    if connection.dialect.name == "sqlite":
        return list(connection.execute(text(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'")))
    return list(connection.execute(text(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND "
        "n.nspname = coalesce(:schema, current_schema())"), {"schema": schema}))


def reference_objects(engine) -> frozenset[str]:
    """The objects of a database migrated to the newest revision now, on the target's
    kind of database (module docstring)."""
    if engine.dialect.name == "sqlite":
        return _sqlite_reference()
    schema = f"annotator_restore_reference_{secrets.token_hex(4)}"
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    scratch = create_engine(engine.url, connect_args={"options": f"-c search_path={schema}"})
    try:
        upgrade(scratch)
        with scratch.connect() as connection:
            return frozenset(schema_objects(connection, schema))
    finally:
        scratch.dispose()
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@lru_cache(maxsize=1)
def _sqlite_reference() -> frozenset[str]:
    with tempfile.TemporaryDirectory(prefix="annotator-restore-") as folder:
        engine = create_engine(f"sqlite:///{Path(folder) / 'reference.sqlite3'}")
        try:
            upgrade(engine)
            with engine.connect() as connection:
                return frozenset(schema_objects(connection))
        finally:
            engine.dispose()


def empty_sqlite(path: Path, existed: bool) -> None:
    """Undo a refused SQLite restore: the file as it was (absent, or empty)."""
    for extra in ("-wal", "-shm", "-journal"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    if existed:
        path.write_bytes(b"")  # an empty file is an empty SQLite database
    else:
        path.unlink(missing_ok=True)


_POSTGRES_OBJECTS = text(
    "SELECT CASE WHEN c.relkind IN ('r', 'p') THEN 'TABLE' WHEN c.relkind = 'v' THEN 'VIEW' "
    "WHEN c.relkind = 'm' THEN 'MATERIALIZED VIEW' ELSE 'SEQUENCE' END, quote_ident(c.relname) "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S') "
    "UNION ALL SELECT 'FUNCTION', p.oid::regprocedure::text FROM pg_proc p "
    "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() "
    # An extension's functions (pg_trgm's, migration 0013) go only with the extension.
    "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass "
    "AND d.objid = p.oid AND d.deptype = 'e')")
# Dropped in this order; CASCADE takes triggers, owned sequences and dependent views along.
_DROP_ORDER = ("TABLE", "MATERIALIZED VIEW", "VIEW", "SEQUENCE", "FUNCTION")


def postgres_objects(engine) -> set[tuple[str, str]]:
    """(kind, name) of the tables, views, sequences and functions of the current schema."""
    with engine.connect() as connection:
        return {(kind, name) for kind, name in connection.execute(_POSTGRES_OBJECTS)}


def empty_postgres(engine, before: set[tuple[str, str]]) -> None:
    """Undo a refused PostgreSQL restore: drop what it created (what was not there
    ``before``), in one transaction."""
    created = postgres_objects(engine) - before
    with engine.begin() as connection:
        for kind in _DROP_ORDER:
            for _kind, name in sorted(item for item in created if item[0] == kind):
                connection.execute(text(f"DROP {kind} IF EXISTS {name} CASCADE"))
