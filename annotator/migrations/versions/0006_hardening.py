"""hardening: unique release folder per project (projects.slug), session generations,
login throttle counters, time of the last heartbeat,
the stored adjudication queue

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
    # Frozen copy of annotator.core.safe_paths.project_slug as of this migration.
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
    op.create_table(
        'adjudication_queue',
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('changes', sa.Integer(), nullable=False),
        sa.Column('computed', sa.Integer(), nullable=False),
        sa.Column('stale', sa.Boolean(), nullable=False),
        sa.Column('ready', sa.Boolean(), nullable=False),
        sa.Column('complete', sa.Boolean(), nullable=False),
        sa.Column('agreement', sa.Float(), nullable=False),
        sa.Column('open_total', sa.Integer(), nullable=False),
        sa.Column('open_summary', sa.Text(), nullable=False),
        sa.Column('annotators', sa.Text(), nullable=False),
        sa.Column('disputed', sa.Text(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE',
                                name=op.f('fk_adjudication_queue_document_id_documents')),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE',
                                name=op.f('fk_adjudication_queue_project_id_projects')),
        sa.PrimaryKeyConstraint('document_id', name=op.f('pk_adjudication_queue')),
    )
    op.create_index('ix_adjudication_queue_order', 'adjudication_queue',
                    ['project_id', 'ready', 'complete', 'agreement', 'position'])
    op.create_index('ix_adjudication_queue_stale', 'adjudication_queue', ['project_id', 'stale'])
    # Every assigned document starts stale: the first queue view computes it once.
    op.execute("INSERT INTO adjudication_queue (document_id, project_id, changes, computed, "
               "stale, ready, complete, agreement, open_total, open_summary, annotators, "
               "disputed, position) SELECT d.id, d.project_id, 1, 0, true, false, false, 1.0, "
               "0, '', '|', '|', d.position FROM documents d WHERE EXISTS (SELECT 1 FROM "
               "assignments a WHERE a.document_id = d.id)")


def downgrade() -> None:
    op.drop_index('ix_adjudication_queue_stale', table_name='adjudication_queue')
    op.drop_index('ix_adjudication_queue_order', table_name='adjudication_queue')
    op.drop_table('adjudication_queue')
    op.drop_table('login_throttle')
    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.drop_column('last_time_report')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('session_generation')
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_projects_slug'), type_='unique')
        batch_op.drop_column('slug')
