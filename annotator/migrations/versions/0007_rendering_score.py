"""rendering score: how well an oversimplification's target span renders its source phrase

Revision ID: 0007_rendering_score
Revises: 0006_hardening
"""
import sqlalchemy as sa
from alembic import op

revision = '0007_rendering_score'
down_revision = '0006_hardening'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('target_score', sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.drop_column('target_score')
