"""Subcommands of the ``annotator`` console command, one module per area."""

from __future__ import annotations

import click

from annotator.config import Config
from annotator.db import Database


def open_database(upgrade: bool = True) -> Database:
    """The database every command works on (ANNOTATOR_DATABASE_URL or instance/)."""
    database = Database(Config.from_env().database_url)
    if upgrade:
        database.upgrade()
    return database


def fail(message: str, code: int = 1):
    """Print a one-line (or multi-line) error for a lead and exit non-zero."""
    click.echo(f"error: {message}", err=True)
    raise SystemExit(code)
