"""A unit of work for commands, workers and the web pages: a transaction whose commit first
settles the adjudication queue entries its writers marked.

Writers mark what they change (:func:`annotator.study.queue_marks.document_changed`);
:func:`commit` recomputes those entries (:func:`annotator.adjudication.queue.settle`) and
commits, so the queue is current the moment the change is visible. ``Database.session()``
stays storage only (db.py imports no stage): a caller that commits through it without
settling leaves the marked entries stale, which the queue page counts and
:func:`refresh_stale` (a ``queue-refresh`` job, :func:`upgrade`) recomputes.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy.orm import Session

from annotator.adjudication.queue import refresh_stale, settle
from annotator.db import Database


def commit(session: Session) -> None:
    """Settle the queue entries this transaction marked, then commit it."""
    settle(session)
    session.commit()


@contextmanager
def session(database: Database) -> Iterator[Session]:
    """``Database.session()`` with the queue settled before it commits (rolled back, with
    nothing settled, on any error)."""
    with database.session() as work:
        yield work
        settle(work)


def upgrade(database: Database) -> None:
    """Bring the schema to the newest migration, then compute the queue entries a
    migration (or a failed recomputation, or a commit that did not settle) left stale:
    writes belong here, at start-up, never in a page view."""
    database.upgrade()
    with session(database) as work:
        refresh_stale(work)
