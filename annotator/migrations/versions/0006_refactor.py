"""task modes in the schema: projects created before schemas declared ``mode:`` get the
mode their built-in schema had, written into the project's frozen schema YAML

Until now the mode followed from the schema's name; from now on the schema declares it and
no code looks at names. A project keeps its schema text as created, so this data migration
adds the ``mode:`` line the built-in file now carries (the last time names decide a mode).

Revision ID: 0006_refactor
Revises: 0005
"""
import re

import sqlalchemy as sa
from alembic import op

revision = '0006_refactor'
down_revision = '0005'
branch_labels = None
depends_on = None

# The schema name -> mode table that the code used before this revision.
LEGACY_MODES = {"qa-quality": "qa-quality", "qa-recall": "qa-recall", "plaba": "plaba",
                "plaba-2023": "plaba", "plainfact": "plainfact"}
_HAS_MODE = re.compile(r"^mode\s*:", re.M)

projects = sa.table("projects", sa.column("id", sa.Integer), sa.column("schema_name", sa.String),
                    sa.column("schema_yaml", sa.Text))


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(projects.c.id, projects.c.schema_name,
                                        projects.c.schema_yaml)).all()
    for project_id, name, text in rows:
        mode = LEGACY_MODES.get(name)
        if mode is None or _HAS_MODE.search(text or ""):
            continue
        connection.execute(projects.update().where(projects.c.id == project_id).values(
            schema_yaml=f"mode: {mode}\n{text}"))


def downgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(projects.c.id, projects.c.schema_yaml)).all()
    for project_id, text in rows:
        if text and text.startswith("mode: "):
            connection.execute(projects.update().where(projects.c.id == project_id).values(
                schema_yaml=text.split("\n", 1)[1]))
