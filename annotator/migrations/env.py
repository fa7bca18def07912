"""Alembic environment: runs against the engine handed over by annotator.migrations."""

from alembic import context
from sqlalchemy import create_engine

from annotator.models import Base

config = context.config
engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url"))

with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
