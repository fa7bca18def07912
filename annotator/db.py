"""Engine and session set-up shared by the web app and the command line.

SQLite (the embedded default) runs in WAL mode with foreign keys enforced and
``synchronous=FULL`` (:mod:`annotator.core.sqlite_connection`), so an acknowledged save
survives a killed server; PostgreSQL needs nothing special.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from annotator.core.sqlite_connection import BUSY_TIMEOUT_SECONDS, apply_pragmas
from annotator.migrations import upgrade


def make_engine(database_url: str) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_SECONDS})
        event.listen(engine, "connect", apply_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


# /healthz's budget (issue 44): a proxy polling it drops a server that answers late, so its
# checks never wait for long. Its engine is its own: a health check must not queue for the
# app's pool (every connection checked out by busy requests) nor wait on a lock.
HEALTH_STATEMENT_MS = 100
# libpq's shortest connect time-out (it treats 1 as 2): a host that does not answer at all;
# a database server that is down on a reachable host refuses at once.
HEALTH_CONNECT_SECONDS = 2
HEALTH_POOL_WAIT_SECONDS = 0.05


def make_health_engine(database_url: str) -> Engine:
    """An engine for /healthz: few connections, a short wait for one, statements stopped
    after :data:`HEALTH_STATEMENT_MS` (PostgreSQL's ``statement_timeout`` and
    ``lock_timeout``; SQLite's busy time-out, though its WAL readers never wait)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        return create_engine(url, connect_args={"timeout": HEALTH_STATEMENT_MS / 1000},
                             pool_size=1, max_overflow=2,
                             pool_timeout=HEALTH_POOL_WAIT_SECONDS)
    # No ping before each use (a round trip more for every check): a connection the
    # database dropped fails the check's first read, and /healthz reads once more.
    return create_engine(
        url, pool_size=1, max_overflow=2,
        pool_timeout=HEALTH_POOL_WAIT_SECONDS,
        connect_args={"connect_timeout": HEALTH_CONNECT_SECONDS,
                      "options": f"-c statement_timeout={HEALTH_STATEMENT_MS} "
                                 f"-c lock_timeout={HEALTH_STATEMENT_MS}"})


class Database:
    """One engine and its session factory."""

    def __init__(self, database_url: str):
        self.url = database_url
        self.engine = make_engine(database_url)
        # Storage only: the domain work around a commit (the adjudication queue's
        # settling) is the callers' commit helpers' (operations.work, web.commits).
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._health_engine: Engine | None = None
        self._health_lock = threading.Lock()

    @property
    def health_engine(self) -> Engine:
        """/healthz's own engine (:func:`make_health_engine`), made at its first use (an
        in-memory SQLite database exists in its one connection: the app's engine)."""
        if self.engine.url.database in (None, "", ":memory:") and \
                self.engine.dialect.name == "sqlite":
            return self.engine
        with self._health_lock:  # the threads of a gunicorn worker: one engine
            if self._health_engine is None:
                self._health_engine = make_health_engine(self.url)
        return self._health_engine

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on any error."""
        session = self.sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (creates it on an empty database).
        Commands and the app start through ``operations.work.upgrade``, which then also
        recomputes the adjudication queue entries a migration left stale."""
        upgrade(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()
        if self._health_engine is not None:
            self._health_engine.dispose()
