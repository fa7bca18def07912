"""Subcommands of the ``annotator`` console command, one module per area."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from annotator.config import current
from annotator.core.strict_json import MAX_INTEGER

if TYPE_CHECKING:  # SQLAlchemy and the models cost ~0.4 s: only commands that open one
    from annotator.db import Database

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).

# A random seed: numpy's generators refuse a negative one (a traceback, and a stored
# negative seed would break every later release of the project).
SEED = click.IntRange(0, MAX_INTEGER)


def open_database(upgrade: bool = True) -> Database:
    """The database every command works on (ANNOTATOR_DATABASE_URL or instance/)."""
    from annotator.db import Database
    from annotator.operations import work

    database = Database(current().database_url)
    if upgrade:
        work.upgrade(database)
    return database


def adopt_release_folders(database: Database) -> list[str]:
    """Store release folders cut on disk before releases moved into the database
    (``annotator.releases.adopt``); says which, once."""
    from annotator.operations import work
    from annotator.releases.adopt import adopt_release_folders as adopt

    with work.session(database) as session:
        adopted = adopt(session, current().exports_path)
    for name in adopted:
        click.echo(f"release folder stored in the database: {name}", err=True)
    return adopted


def fail(message: str, code: int = 1):
    """Print a one-line (or multi-line) error for a lead and exit non-zero."""
    click.echo(f"error: {message}", err=True)
    raise SystemExit(code)


def project_or_exit(session, name: str):
    """The project called ``name``, or a one-line error (listing the projects) and exit 1."""
    from annotator.study.projects import ProjectError, get_project

    try:
        return get_project(session, name)
    except ProjectError as exc:
        fail(str(exc))


@contextmanager
def progress_bar(description: str):
    """A progress bar on stderr, driven by ``progress(done, total)`` callbacks (the
    signature the batch functions of the data layer call). It appears with the first
    callback, so work with nothing to do prints nothing."""
    from tqdm import tqdm

    bars = []

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(desc=description, unit="doc", total=total, mininterval=0.5))
        bars[0].update(done - bars[0].n)

    try:
        yield progress
    finally:
        for bar in bars:
            bar.close()
