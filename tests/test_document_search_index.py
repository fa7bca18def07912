"""The data manager's search reads the trigram indexes of migration 0013 on PostgreSQL
(issue 44): in a project of 10,000 documents the plans of the statements a search sends
read them (Bitmap Index Scan), and what they find, escaped % and _ included, is what a
Python scan of the texts finds. A project of 60 is read document by document on either
backend; SQLite has no such indexes (docs/deploy.md, "Search on PostgreSQL").
Runs on the SQLite file and on PostgreSQL (ANNOTATOR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path

from sqlalchemy import create_engine, event, inspect, make_url, select, text

from annotator.db import Database
from annotator.migrations import current_revisions, head_revisions
from annotator.models import Document, Project
from annotator.operations.document_table import document_page
from annotator.study.document_status import add_entries
from tests.test_document_table_sql import (
    FILTERS,
    build_project,
    reference_rows,
    reference_select,
    sql_ids,
)

# benchmarks/bench_list_pages.py's project, built in SQL (INSERT ... SELECT).
_spec = importlib.util.spec_from_file_location(
    "bench_list_pages",
    Path(__file__).resolve().parent.parent / "benchmarks" / "bench_list_pages.py")
bench_list_pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_list_pages)
LARGE = 10_000

TRIGRAM_INDEXES = {f"ix_documents_lower_{c}_trgm" for c in ("external_id", "source", "target")}
SEARCHES = [query["search"] for query in FILTERS if "search" in query]


def _index_scans(plan: dict) -> set[str]:
    """The indexes a plan (EXPLAIN (FORMAT JSON)'s tree) reads by Bitmap Index Scan."""
    found = {plan["Index Name"]} if plan.get("Node Type") == "Bitmap Index Scan" else set()
    for child in plan.get("Plans", []):
        found |= _index_scans(child)
    return found


def _scans_of_search(session, project, search: str) -> set[str]:
    """The indexes read by Bitmap Index Scan in the plans of the statements the first page
    of a search sends that read the texts (EXPLAIN (FORMAT JSON), their parameters)."""
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
    assert sent, search
    scans = set()
    for statement, parameters in sent:
        explained = session.connection().exec_driver_sql(
            "EXPLAIN (FORMAT JSON) " + statement, parameters).scalar()
        plan = explained if isinstance(explained, list) else json.loads(explained)
        scans |= _index_scans(plan[0]["Plan"])
    return scans


def test_search_reads_the_trigram_indexes_on_postgresql_and_finds_what_the_scan_finds(
        database):
    postgresql = database.engine.dialect.name == "postgresql"
    if postgresql:  # a project where reading every text costs more than the indexes
        large_id = bench_list_pages.build(database.engine.url.render_as_string(
            hide_password=False), LARGE)
    project_id = build_project(database)
    indexes = {i["name"] for i in inspect(database.engine).get_indexes("documents")}
    assert (TRIGRAM_INDEXES <= indexes) is postgresql, indexes
    with database.session() as session:
        project = session.get(Project, project_id)
        reference = reference_rows(session, project_id)
        found = 0
        for search in SEARCHES:  # 60 documents: read one by one, on either backend
            expected = reference_select(reference, search=search)
            assert sql_ids(session, project, search=search) == expected, search
            found += len(expected)
        assert found > 60  # "50%" is in every document, the others in some or none
    if not postgresql:
        return
    # The large project: the planner picks the indexes itself. Decoys for the escaped %
    # and _: only the first two hold the needles.
    with database.session() as session:
        decoys = [Document(project_id=large_id, external_id=f"decoy-{i}", source=source,
                           target="", position=LARGE + i)
                  for i, source in enumerate(["at 50% dose_2", "50%, then dose_2",
                                              "at 50 percent dose 2", "500 dosex2 5012"])]
        session.add_all(decoys)
        session.flush()
        add_entries(session.connection(), large_id, [d.id for d in decoys])
    with database.session() as session:
        large = session.get(Project, large_id)
        texts = session.execute(select(Document.id, Document.external_id, Document.source,
                                       Document.target)
                                .where(Document.project_id == large_id)).all()
        for search in ("medicine 12", "d4242", "50%", "dose_2",
                       "no such text"):
            expected = {row.id for row in texts
                        if any(search in value.lower() for value in row[1:])}
            assert set(sql_ids(session, large, page_size=500, search=search)) == expected
            assert TRIGRAM_INDEXES <= _scans_of_search(session, large, search), search
        assert len({row.id for row in texts if "50%" in row.source}) == 2


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
