"""The data manager's search reads the trigram indexes of migration 0013 on PostgreSQL
(issue 44): the plan of each statement the search sends has a Bitmap Index Scan on them,
and the pages it returns through them are the Python scan's. On SQLite there are no such
indexes and the search is the scan (docs/deploy.md, "Large studies").
Runs on the SQLite file and on PostgreSQL (ANNOTATOR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import json
import logging

from sqlalchemy import create_engine, event, inspect, make_url, text

from annotator.db import Database
from annotator.migrations import current_revisions, head_revisions
from annotator.models import Project
from annotator.operations.document_table import document_page
from tests.test_document_table_sql import (
    FILTERS,
    build_project,
    reference_rows,
    reference_select,
    sql_ids,
)

TRIGRAM_INDEXES = {f"ix_documents_lower_{c}_trgm" for c in ("external_id", "source", "target")}
SEARCHES = [query["search"] for query in FILTERS if "search" in query]


def _index_scans(plan: dict) -> set[str]:
    """The indexes a plan (EXPLAIN (FORMAT JSON)'s tree) reads by Bitmap Index Scan."""
    found = {plan["Index Name"]} if plan.get("Node Type") == "Bitmap Index Scan" else set()
    for child in plan.get("Plans", []):
        found |= _index_scans(child)
    return found


def _search_statements(session, project, search: str) -> list[tuple[str, dict]]:
    """The statements (and parameters) the first page of a search sends that read the texts."""
    sent = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if " LIKE " in statement:
            sent.append((statement, parameters))

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", record)
    try:
        document_page(session, project, search=search, page_size=7)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return sent


def test_search_reads_the_trigram_indexes_on_postgresql_and_finds_what_the_scan_finds(
        database):
    project_id = build_project(database)
    indexes = {i["name"] for i in inspect(database.engine).get_indexes("documents")}
    postgresql = database.engine.dialect.name == "postgresql"
    assert (TRIGRAM_INDEXES <= indexes) is postgresql, indexes
    with database.session() as session:
        project = session.get(Project, project_id)
        reference = reference_rows(session, project_id)
        if postgresql:
            # At 60 documents reading every text (a scan, a walk of the primary key, a
            # look-up per queue entry) is cheaper, so the planner is told to avoid those;
            # what is checked is that the indexes serve the statements as sent, LIKE ...
            # ESCAPE and parameters included (at 100,000 documents the planner picks them
            # itself: docs/deploy.md, "Large studies").
            for plan_kind in ("seqscan", "indexscan", "nestloop"):
                session.execute(text(f"SET LOCAL enable_{plan_kind} = off"))
        found = 0
        for search in SEARCHES:
            expected = reference_select(reference, search=search)
            assert sql_ids(session, project, search=search) == expected, search
            found += len(expected)
            if not postgresql:
                continue
            statements = _search_statements(session, project, search)
            assert statements, search
            for statement, parameters in statements:
                explained = session.connection().exec_driver_sql(
                    "EXPLAIN (FORMAT JSON) " + statement, parameters).scalar()
                plan = (explained if isinstance(explained, list) else json.loads(explained))
                assert TRIGRAM_INDEXES <= _index_scans(plan[0]["Plan"]), (search, plan)
        assert found > 60  # "50%" is in every document, the others in some or none


def test_a_role_that_may_not_create_pg_trgm_gets_a_warning_and_no_indexes(postgres, caplog):
    """pg_trgm is trusted: a role with CREATE on the database may create it. One without
    (not the owner, not granted) is refused; the upgrade goes on, without the indexes, and
    the warning names the statements a superuser runs (migration 0013)."""
    admin = create_engine(postgres.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("CREATE ROLE plain LOGIN"))
        connection.execute(text("CREATE DATABASE refused"))
    refused = make_url(postgres.url).set(database="refused")
    with create_engine(refused, isolation_level="AUTOCOMMIT").connect() as connection:
        connection.execute(text("GRANT ALL ON SCHEMA public TO plain"))  # tables, no CREATE
    database = Database(refused.set(username="plain").render_as_string(hide_password=False))
    with caplog.at_level(logging.WARNING):
        database.upgrade()
    assert current_revisions(database.engine) == head_revisions()
    indexes = {i["name"] for i in inspect(database.engine).get_indexes("documents")}
    assert not TRIGRAM_INDEXES & indexes and "ix_documents_project_position" in indexes
    warning = " ".join(r.getMessage() for r in caplog.records
                       if r.levelno == logging.WARNING and "pg_trgm" in r.getMessage())
    assert "permission denied" in warning, caplog.text
    assert "CREATE EXTENSION pg_trgm;" in warning
    assert all(f"CREATE INDEX IF NOT EXISTS {name} ON documents" in warning
               for name in TRIGRAM_INDEXES)
    database.dispose()
    admin.dispose()
