"""Alembic migrations, run programmatically by ``annotator init`` and at start-up.

Every schema change is a new revision in ``versions/``; a revision must never drop or
rewrite annotation data without carrying it over (tests upgrade a populated database).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

HERE = Path(__file__).parent


def alembic_config(engine: Engine | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    if engine is not None:
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
        config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    command.downgrade(alembic_config(engine), revision)


@lru_cache(maxsize=1)
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


@lru_cache(maxsize=1)
def code_heads() -> tuple[str, ...]:
    """The newest revision(s) this code knows (read from versions/ once per process)."""
    return tuple(sorted(_scripts().get_heads()))


@lru_cache(maxsize=1)
def code_revisions() -> frozenset[str]:
    """Every revision this code knows."""
    return frozenset(script.revision for script in _scripts().walk_revisions())


def database_heads(connection: Connection) -> tuple[str, ...]:
    """The revision(s) the database is at (reads ``alembic_version``; empty: none)."""
    return tuple(sorted(MigrationContext.configure(connection).get_current_heads()))
