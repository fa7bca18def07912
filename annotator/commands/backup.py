"""`annotator backup PATH` and `annotator restore PATH`: the whole database, releases
included, with the database's own tools (see :mod:`annotator.operations.backup`)."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import fail
from annotator.config import current
from annotator.db import Database
from annotator.operations import work
from annotator.operations.backup import BackupError, backup_database, restore_database


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def backup(path):
    """Back up the database, releases included, to the new file PATH.

    The app may keep serving meanwhile. SQLite: a copy through SQLite's online backup
    API. PostgreSQL: a pg_dump archive in custom format. `annotator restore PATH` brings
    it back into an empty database.
    """
    database_url = current().database_url
    try:
        kind = backup_database(database_url, path)
    except BackupError as exc:
        fail(str(exc))
    click.echo(f"backup written to {path} ({kind}, {path.stat().st_size} bytes)")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def restore(path):
    """Restore a backup written by `annotator backup` into an EMPTY database.

    The database is ANNOTATOR_DATABASE_URL's (a new SQLite file, or a PostgreSQL database
    made with createdb); one with any table in it is refused. The restored database is then
    brought up to the newest migration and verified: a backup that fails SQLite's integrity
    check, is at an unknown migration revision or lacks a trigger or constraint the
    migrations create is refused, and the database is left empty.
    """
    config = current()
    try:
        verified = restore_database(config.database_url, path)
    except BackupError as exc:
        fail(str(exc))
    database = Database(config.database_url)
    try:
        work.upgrade(database)  # (migrated and verified already: the start-up queue refresh)
    finally:
        database.dispose()
    shown = database.engine.url.render_as_string(hide_password=True)
    click.echo(f"restored {path} into {shown}: {verified}")
