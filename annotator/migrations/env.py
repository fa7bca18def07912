"""Alembic environment: runs against the engine handed over by annotator.migrations."""

from alembic import context
from sqlalchemy import create_engine

from annotator.models import Base

config = context.config
engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url"))

with engine.connect() as connection:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Batch mode rebuilds a table (copy, drop, rename). With foreign keys enforced, the
        # drop would fail, or cascade into the rows that point at it (spans of edits, ...).
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
    if sqlite:
        problems = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        if problems:
            raise RuntimeError(f"migration left dangling foreign keys: {problems[:5]}")
