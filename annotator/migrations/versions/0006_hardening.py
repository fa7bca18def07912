"""hardening: unique release folder per project (projects.slug), session generations,
login throttle counters, time of the last heartbeat

Revision ID: 0006_hardening
Revises: 0006_refactor
"""
import re

import sqlalchemy as sa
from alembic import op

revision = '0006_hardening'
down_revision = '0006_refactor'
branch_labels = None
depends_on = None


def _slug(name: str) -> str:
    # Frozen copy of annotator.safe_paths.project_slug as of this migration.
    return (re.sub(r"[^A-Za-z0-9._-]", "_", name).strip("._") or "unnamed")[:100]


def upgrade() -> None:
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('slug', sa.String(length=120), nullable=True))
    # Existing projects keep the folder they had; when two shared one, the older keeps it
    # and the younger gets '<slug>-<id>' (its releases stay in the shared folder, listed
    # under the older project: move them by hand).
    connection = op.get_bind()
    taken = set()
    for project_id, name in connection.execute(
            sa.text("SELECT id, name FROM projects ORDER BY id")).all():
        slug = _slug(name)
        if slug.lower() in taken:
            slug = f"{slug[:100]}-{project_id}"
        taken.add(slug.lower())
        connection.execute(sa.text("UPDATE projects SET slug = :slug WHERE id = :id"),
                           {"slug": slug, "id": project_id})
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.alter_column('slug', existing_type=sa.String(length=120), nullable=False)
        batch_op.create_unique_constraint(batch_op.f('uq_projects_slug'), ['slug'])


    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('session_generation', sa.Integer(), nullable=False,
                                      server_default='0'))
    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_time_report', sa.Float(), nullable=True))
    op.create_table(
        'login_throttle',
        sa.Column('key', sa.String(length=200), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('window_start', sa.Float(), nullable=False),
        sa.Column('next_allowed', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_login_throttle')),
    )


def downgrade() -> None:
    op.drop_table('login_throttle')
    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.drop_column('last_time_report')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('session_generation')
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_projects_slug'), type_='unique')
        batch_op.drop_column('slug')
