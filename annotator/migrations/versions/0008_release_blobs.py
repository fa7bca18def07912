"""releases in the database: content-addressed blobs, release rows with their manifest, the
files of each release; triggers refuse UPDATE and DELETE on all three (immutable)

Revision ID: 0008_release_blobs
Revises: 0007_rendering_score
"""
import sqlalchemy as sa
from alembic import op

revision = '0008_release_blobs'
down_revision = '0007_rendering_score'
branch_labels = None
depends_on = None

TABLES = ('release_blobs', 'releases', 'release_files')
MESSAGE = 'releases are immutable: a stored release is never changed or removed'


def upgrade() -> None:
    op.create_table(
        'release_blobs',
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('sha256', name=op.f('pk_release_blobs')),
    )
    op.create_table(
        'releases',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.String(length=64), nullable=False),
        sa.Column('manifest_sha256', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.String(length=40), nullable=False),
        sa.Column('stored_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('origin', sa.String(length=16), nullable=False),
        sa.CheckConstraint("origin IN ('cut', 'folder')", name=op.f('ck_releases_origin')),
        sa.ForeignKeyConstraint(['manifest_sha256'], ['release_blobs.sha256'],
                                name=op.f('fk_releases_manifest_sha256_release_blobs')),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'],
                                name=op.f('fk_releases_project_id_projects')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_releases')),
        sa.UniqueConstraint('project_id', 'version', name=op.f('uq_releases_project_id')),
    )
    op.create_table(
        'release_files',
        sa.Column('release_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=512), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(['release_id'], ['releases.id'],
                                name=op.f('fk_release_files_release_id_releases')),
        sa.ForeignKeyConstraint(['sha256'], ['release_blobs.sha256'],
                                name=op.f('fk_release_files_sha256_release_blobs')),
        sa.PrimaryKeyConstraint('release_id', 'name', name=op.f('pk_release_files')),
    )
    op.create_index(op.f('ix_release_files_sha256'), 'release_files', ['sha256'])
    # Immutability in the database itself, whichever server or script writes: a later
    # migration that rebuilds one of these tables (SQLite batch mode) must recreate these.
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("CREATE FUNCTION annotator_release_immutable() RETURNS trigger AS $$ "
                   f"BEGIN RAISE EXCEPTION '{MESSAGE} (% on %)', TG_OP, TG_TABLE_NAME; END; "
                   "$$ LANGUAGE plpgsql")
        for table in TABLES:
            op.execute(f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION annotator_release_immutable()")
    else:
        for table in TABLES:
            for event in ('UPDATE', 'DELETE'):
                op.execute(f"CREATE TRIGGER {table}_immutable_{event.lower()} BEFORE {event} "
                           f"ON {table} BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END")


def downgrade() -> None:
    # Dropping a table drops its triggers.
    op.drop_index(op.f('ix_release_files_sha256'), table_name='release_files')
    op.drop_table('release_files')
    op.drop_table('releases')
    op.drop_table('release_blobs')
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("DROP FUNCTION IF EXISTS annotator_release_immutable()")
