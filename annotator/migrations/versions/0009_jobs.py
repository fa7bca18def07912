"""jobs: background work claimed by workers under a lease, and the workers' heartbeats

Revision ID: 0009_jobs
Revises: 0008_release_blobs
"""
import sqlalchemy as sa
from alembic import op

revision = '0009_jobs'
down_revision = '0008_release_blobs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'jobs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=True),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('dedupe_key', sa.String(length=100), nullable=True),
        sa.Column('progress_done', sa.Integer(), nullable=False),
        sa.Column('progress_total', sa.Integer(), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('result', sa.JSON(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('lease_owner', sa.String(length=200), nullable=True),
        sa.Column('lease_expires_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("state IN ('queued', 'running', 'done', 'failed')",
                           name=op.f('ck_jobs_state')),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'], ondelete='CASCADE',
                                name=op.f('fk_jobs_project_id_projects')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_jobs')),
        sa.UniqueConstraint('dedupe_key', name=op.f('uq_jobs_dedupe_key')),
    )
    op.create_index('ix_jobs_state_id', 'jobs', ['state', 'id'])
    op.create_index('ix_jobs_project_id_id', 'jobs', ['project_id', 'id'])
    op.create_table(
        'worker_beats',
        sa.Column('worker_id', sa.String(length=200), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('job_id', sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint('worker_id', name=op.f('pk_worker_beats')),
    )
    op.create_index(op.f('ix_worker_beats_seen_at'), 'worker_beats', ['seen_at'])


def downgrade() -> None:
    op.drop_index(op.f('ix_worker_beats_seen_at'), table_name='worker_beats')
    op.drop_table('worker_beats')
    op.drop_index('ix_jobs_project_id_id', table_name='jobs')
    op.drop_index('ix_jobs_state_id', table_name='jobs')
    op.drop_table('jobs')
