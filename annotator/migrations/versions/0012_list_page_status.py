"""list page status: every document's data-manager row (status, holders, time, shown
agreement and open decisions) stored on its adjudication queue entry, the counts per status
in ``project_status_counts``, and the indexes the data manager sorts by (issue 44)

The backfill is SQL over the whole database (a Python recomputation would take hours at a
million documents): an entry for every document that has none, the status by the rules
of annotator.adjudication.document_status from the assignments' aggregates, then the
counts. The rule is written here again on purpose: a migration must not change when the
application's code does; tests/test_stored_status.py checks both agree.

Revision ID: 0012_list_page_status
Revises: 0011_jobs_lanes
"""
import sqlalchemy as sa
from alembic import op

revision = '0012_list_page_status'
down_revision = '0011_jobs_lanes'
branch_labels = None
depends_on = None

SORT_KEYS = ('holders', 'seconds', 'shown_agreement', 'shown_open')

MISSING_ENTRIES = """
INSERT INTO adjudication_queue (document_id, project_id, position, changes, computed, stale,
    ready, complete, agreement, open_total, open_summary, annotators, disputed)
SELECT d.id, d.project_id, d.position, 0, 0, {false}, {false}, {false}, 1.0, 0, '', '|', '|'
FROM documents d
WHERE NOT EXISTS (SELECT 1 FROM adjudication_queue q WHERE q.document_id = d.id)
"""

# Per document: the original (non tie-break) assignments by status, the time of all.
AGGREGATES = """
SELECT d.id AS id,
  max(s.status) AS adjudication,
  sum(CASE WHEN a.id IS NOT NULL AND t.assignment_id IS NULL THEN 1 ELSE 0 END) AS originals,
  sum(CASE WHEN t.assignment_id IS NULL AND a.status = 'done' THEN 1 ELSE 0 END) AS done,
  sum(CASE WHEN t.assignment_id IS NULL AND a.status = 'assigned' THEN 1 ELSE 0 END) AS fresh,
  sum(CASE WHEN t.assignment_id IS NULL AND a.status = 'skipped' THEN 1 ELSE 0 END)
    AS skipped,
  coalesce(sum(a.seconds_spent), 0.0) AS seconds
FROM documents d
LEFT JOIN assignments a ON a.document_id = d.id
LEFT JOIN (SELECT DISTINCT assignment_id FROM tiebreak_requests) t
  ON t.assignment_id = a.id
LEFT JOIN adjudication_states s ON s.document_id = d.id
GROUP BY d.id
"""

STATUS = """
CASE WHEN g.adjudication = 'complete' THEN 'adjudicated'
     WHEN g.originals = 0 THEN 'unassigned'
     WHEN g.done = g.originals THEN 'ready'
     WHEN g.fresh = g.originals THEN 'not started'
     WHEN g.skipped = g.originals THEN 'skipped'
     WHEN g.skipped > 0 AND g.done + g.skipped = g.originals THEN 'partly skipped'
     ELSE 'in progress' END
"""

HOLDERS = {
    'postgresql': """
SELECT a.document_id AS id,
  string_agg(u.username, ', ' ORDER BY u.username COLLATE "C") AS holders
FROM assignments a JOIN users u ON u.id = a.user_id GROUP BY a.document_id
""",
    # SQLite concatenates in the order of an ordered subquery (BINARY: code point order).
    'sqlite': """
SELECT id, group_concat(username, ', ') AS holders FROM (
  SELECT a.document_id AS id, u.username AS username
  FROM assignments a JOIN users u ON u.id = a.user_id ORDER BY a.document_id, u.username)
GROUP BY id
""",
}


# "My documents": an annotator's assignments per project and status, kept by triggers so
# that every writer (saves, bulk assign, imports, pulls) moves them in its own statement.
SQLITE_TRIGGERS = [
    """CREATE TRIGGER assignment_counts_insert AFTER INSERT ON assignments BEGIN
  INSERT INTO assignment_counts (user_id, project_id, status, assignments, seconds)
  SELECT NEW.user_id, d.project_id, NEW.status, 1, coalesce(NEW.seconds_spent, 0)
  FROM documents d WHERE d.id = NEW.document_id
  ON CONFLICT (user_id, project_id, status) DO UPDATE SET
    assignments = assignments + 1, seconds = seconds + excluded.seconds;
END""",
    """CREATE TRIGGER assignment_counts_delete AFTER DELETE ON assignments BEGIN
  UPDATE assignment_counts SET assignments = assignments - 1,
    seconds = seconds - coalesce(OLD.seconds_spent, 0)
  WHERE user_id = OLD.user_id AND status = OLD.status
    AND project_id = (SELECT project_id FROM documents WHERE id = OLD.document_id);
END""",
    """CREATE TRIGGER assignment_counts_update
AFTER UPDATE OF status, seconds_spent, user_id, document_id ON assignments BEGIN
  UPDATE assignment_counts SET assignments = assignments - 1,
    seconds = seconds - coalesce(OLD.seconds_spent, 0)
  WHERE user_id = OLD.user_id AND status = OLD.status
    AND project_id = (SELECT project_id FROM documents WHERE id = OLD.document_id);
  INSERT INTO assignment_counts (user_id, project_id, status, assignments, seconds)
  SELECT NEW.user_id, d.project_id, NEW.status, 1, coalesce(NEW.seconds_spent, 0)
  FROM documents d WHERE d.id = NEW.document_id
  ON CONFLICT (user_id, project_id, status) DO UPDATE SET
    assignments = assignments + 1, seconds = seconds + excluded.seconds;
END""",
]
POSTGRESQL_TRIGGERS = [
    """CREATE FUNCTION assignment_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE assignment_counts SET assignments = assignments - 1,
      seconds = seconds - coalesce(OLD.seconds_spent, 0)
    WHERE user_id = OLD.user_id AND status = OLD.status
      AND project_id = (SELECT project_id FROM documents WHERE id = OLD.document_id);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO assignment_counts (user_id, project_id, status, assignments, seconds)
    SELECT NEW.user_id, d.project_id, NEW.status, 1, coalesce(NEW.seconds_spent, 0)
    FROM documents d WHERE d.id = NEW.document_id
    ON CONFLICT (user_id, project_id, status) DO UPDATE SET
      assignments = assignment_counts.assignments + 1,
      seconds = assignment_counts.seconds + excluded.seconds;
  END IF;
  RETURN NULL;
END $$""",
    """CREATE TRIGGER assignment_counts_change
AFTER INSERT OR DELETE OR UPDATE OF status, seconds_spent, user_id, document_id
ON assignments FOR EACH ROW EXECUTE FUNCTION assignment_counts_change()""",
]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    holders_type = sa.Text(collation='C') if dialect == 'postgresql' else sa.Text()
    with op.batch_alter_table('adjudication_queue', schema=None) as batch_op:
        batch_op.add_column(sa.Column('status', sa.String(length=16), nullable=False,
                                      server_default='unassigned'))
        batch_op.add_column(sa.Column('holders', holders_type, nullable=False,
                                      server_default=''))
        batch_op.add_column(sa.Column('seconds', sa.Float(), nullable=False,
                                      server_default='0'))
        batch_op.add_column(sa.Column('shown_agreement', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('shown_open', sa.Integer(), nullable=True))
    op.create_table(
        'project_status_counts',
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('documents', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'],
                                name=op.f('fk_project_status_counts_project_id_projects'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('project_id', 'status', name=op.f('pk_project_status_counts')))

    op.create_table(
        'assignment_counts',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('assignments', sa.Integer(), nullable=False),
        sa.Column('seconds', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'],
                                name=op.f('fk_assignment_counts_project_id_projects'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'],
                                name=op.f('fk_assignment_counts_user_id_users'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('user_id', 'project_id', 'status',
                                name=op.f('pk_assignment_counts')))
    op.execute("""
INSERT INTO assignment_counts (user_id, project_id, status, assignments, seconds)
SELECT a.user_id, d.project_id, a.status, count(*), coalesce(sum(a.seconds_spent), 0.0)
FROM assignments a JOIN documents d ON d.id = a.document_id
GROUP BY a.user_id, d.project_id, a.status""")
    for statement in POSTGRESQL_TRIGGERS if dialect == 'postgresql' else SQLITE_TRIGGERS:
        op.execute(statement)

    false = 'false' if dialect == 'postgresql' else '0'
    op.execute(MISSING_ENTRIES.format(false=false))
    op.execute(f"""
UPDATE adjudication_queue SET status = {STATUS}, seconds = g.seconds
FROM ({AGGREGATES}) g WHERE g.id = adjudication_queue.document_id""")
    op.execute(f"""
UPDATE adjudication_queue SET holders = h.holders
FROM ({HOLDERS.get(dialect, HOLDERS['sqlite'])}) h WHERE h.id = adjudication_queue.document_id""")
    op.execute("""
UPDATE adjudication_queue SET
  shown_agreement = CASE WHEN status IN ('ready', 'adjudicated') AND ready AND NOT stale
                         THEN agreement END,
  shown_open = CASE WHEN status IN ('ready', 'adjudicated') AND ready AND NOT stale
                    THEN open_total END""")
    op.execute("""
INSERT INTO project_status_counts (project_id, status, documents)
SELECT project_id, status, count(*) FROM adjudication_queue GROUP BY project_id, status""")

    op.create_index('ix_adjudication_queue_status', 'adjudication_queue',
                    ['project_id', 'status', 'position', 'document_id'])
    op.create_index('ix_adjudication_queue_position', 'adjudication_queue',
                    ['project_id', 'position', 'document_id'])
    for key in SORT_KEYS:
        op.create_index(f'ix_adjudication_queue_{key}', 'adjudication_queue',
                        ['project_id', key, 'position', 'document_id'])
        op.create_index(f'ix_adjudication_queue_{key}_desc', 'adjudication_queue',
                        ['project_id', sa.text(f'{key} DESC'), 'position', 'document_id'])


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('DROP TRIGGER assignment_counts_change ON assignments')
        op.execute('DROP FUNCTION assignment_counts_change()')
    else:
        for name in ('insert', 'delete', 'update'):
            op.execute(f'DROP TRIGGER assignment_counts_{name}')
    op.drop_table('assignment_counts')
    for key in SORT_KEYS:
        op.drop_index(f'ix_adjudication_queue_{key}_desc', table_name='adjudication_queue')
        op.drop_index(f'ix_adjudication_queue_{key}', table_name='adjudication_queue')
    op.drop_index('ix_adjudication_queue_position', table_name='adjudication_queue')
    op.drop_index('ix_adjudication_queue_status', table_name='adjudication_queue')
    op.drop_table('project_status_counts')
    with op.batch_alter_table('adjudication_queue', schema=None) as batch_op:
        for column in ('shown_open', 'shown_agreement', 'seconds', 'holders', 'status'):
            batch_op.drop_column(column)
