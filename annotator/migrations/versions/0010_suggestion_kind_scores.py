"""kind scores: a loss suggestion carrying both kinds keeps each kind's probability

Revision ID: 0010_suggestion_kind_scores
Revises: 0009_jobs
"""
import sqlalchemy as sa
from alembic import op

revision = '0010_suggestion_kind_scores'
down_revision = '0009_jobs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind_scores', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.drop_column('kind_scores')
