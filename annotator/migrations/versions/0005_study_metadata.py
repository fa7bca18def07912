"""study metadata: user e-mail, skipped assignments, per-record and per-edit metadata,
composite edits

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('email', sa.String(length=254), nullable=True))
        batch_op.create_index(batch_op.f('ix_users_email'), ['email'], unique=True)

    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('meta', sa.JSON(), nullable=False,
                                      server_default=sa.text("'{}'")))
        batch_op.drop_constraint(op.f('ck_assignments_status'), type_='check')
        batch_op.create_check_constraint(
            'status', "status IN ('assigned', 'in_progress', 'done', 'skipped')")

    with op.batch_alter_table('edits', schema=None) as batch_op:
        batch_op.add_column(sa.Column('parent_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('meta', sa.JSON(), nullable=False,
                                      server_default=sa.text("'{}'")))
        batch_op.create_index(batch_op.f('ix_edits_parent_id'), ['parent_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_edits_parent_id_edits'), 'edits',
                                    ['parent_id'], ['id'], ondelete='CASCADE')


def downgrade() -> None:
    with op.batch_alter_table('edits', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_edits_parent_id_edits'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_edits_parent_id'))
        batch_op.drop_column('meta')
        batch_op.drop_column('parent_id')

    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_assignments_status'), type_='check')
        batch_op.create_check_constraint('status', "status IN ('assigned', 'in_progress', 'done')")
        batch_op.drop_column('meta')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_users_email'))
        batch_op.drop_column('email')
