"""jobs lanes: a job handed back after a transient database error waits until
``not_before`` (back-off) and keeps the reason of every attempt in ``retry_reasons``

Revision ID: 0011_jobs_lanes
Revises: 0010_suggestion_kind_scores
"""
import sqlalchemy as sa
from alembic import op

revision = '0011_jobs_lanes'
down_revision = '0010_suggestion_kind_scores'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('jobs', sa.Column('not_before', sa.DateTime(timezone=True), nullable=True))
    op.add_column('jobs', sa.Column('retry_reasons', sa.Text(), nullable=False,
                                    server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_column('retry_reasons')
        batch_op.drop_column('not_before')
