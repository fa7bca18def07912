"""Engine and session set-up shared by the web app and the command line.

SQLite (the embedded default) runs in WAL mode with foreign keys enforced and
``synchronous=FULL`` (:mod:`annotator.core.sqlite_connection`), so an acknowledged save
survives a killed server; PostgreSQL needs nothing special.
"""

from __future__ import annotations

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


class Database:
    """One engine and its session factory."""

    def __init__(self, database_url: str):
        self.url = database_url
        self.engine = make_engine(database_url)
        # Storage only: the domain work around a commit (the adjudication queue's
        # settling) is the callers' commit helpers' (operations.work, web.commits).
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

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
