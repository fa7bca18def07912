"""document search trigrams: on PostgreSQL, GIN trigram indexes (pg_trgm) on the lowered
document id and texts, so the data manager's search (``lower(column) LIKE '%needle%'``,
annotator.operations.document_table) reads an index instead of every text (issue 44)

pg_trgm is a trusted extension since PostgreSQL 13: the database's owner may create it. A
role that may not gets a warning naming the statement a superuser runs, and no indexes:
the search stays a scan and the upgrade goes on (a later upgrade does not retry: the
warning names the statements to run, as docs/deploy.md "Large studies" does). SQLite:
nothing (its search stays a scan).

Revision ID: 0013_document_search_trigrams
Revises: 0012_list_page_status
"""
import logging

import sqlalchemy as sa
from alembic import op

revision = '0013_document_search_trigrams'
down_revision = '0012_list_page_status'
branch_labels = None
depends_on = None

log = logging.getLogger(__name__)

# The columns the search reads, as document_table._document_filters lowers them.
COLUMNS = ('external_id', 'source', 'target')


def index_name(column: str) -> str:
    return f'ix_documents_lower_{column}_trgm'


def create_index(column: str, schema: str = 'public') -> str:
    """The index on ``column``; the operator class named with the schema pg_trgm lives in,
    so the statement works under any search_path (restore_checks migrates a reference
    schema with only that schema on its path)."""
    return (f'CREATE INDEX IF NOT EXISTS {index_name(column)} ON documents '
            f'USING gin (lower({column}) "{schema}".gin_trgm_ops)')


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return
    try:
        # A savepoint: a refused CREATE EXTENSION must not abort the upgrade's transaction.
        with bind.begin_nested():
            bind.execute(sa.text('CREATE EXTENSION IF NOT EXISTS pg_trgm'))
    except sa.exc.DBAPIError as error:
        log.warning(
            'no trigram indexes for the document search (it reads every text): '
            'CREATE EXTENSION pg_trgm failed (%s). To build them, run in this database as a '
            'superuser: CREATE EXTENSION pg_trgm; %s;',
            str(error.orig).strip(), '; '.join(create_index(c) for c in COLUMNS))
        return
    schema = bind.execute(sa.text(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = 'pg_trgm'")).scalar_one()
    for column in COLUMNS:
        op.execute(create_index(column, schema))


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for column in COLUMNS:
        op.execute(f'DROP INDEX IF EXISTS {index_name(column)}')
