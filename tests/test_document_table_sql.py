"""The data manager counts, filters, sorts and pages in SQL (issue 44) with the same result
as the Python version it replaced, on every sort and filter, ties and documents without a
value included; and no statement of a page carries a list that grows with the project.
Runs on the SQLite file and on PostgreSQL (ANNOTATOR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import random
from collections import defaultdict

from sqlalchemy import event, select

from annotator.core.vocabulary import ASSIGNMENT_STATUSES
from annotator.models import (
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    Project,
    TieBreakRequest,
    User,
)
from annotator.operations import work
from annotator.operations.document_table import SORTS, STATUSES, document_page
from annotator.study.accounts import create_user
from annotator.study.document_status import add_entries
from annotator.study.projects import create_project
from annotator.study.queue_marks import document_changed
from tests.conftest import PASSWORD

# Upper case sorts before lower case code point by code point, as Python compares strings.
NAMES = ("ana", "ben", "Cy", "dee")


# ------------------------------------------------------------ the Python version (before 44)
def _reference_status(holders: list[dict], adjudication: str | None) -> str:
    if adjudication == "complete":
        return "adjudicated"
    originals = [h for h in holders if not h["tiebreak"]]
    if not originals:
        return "unassigned"
    if all(h["status"] == "done" for h in originals):
        return "ready"
    if all(h["status"] == "assigned" for h in originals):
        return "not started"
    if all(h["status"] == "skipped" for h in originals):
        return "skipped"
    if all(h["status"] in ("done", "skipped") for h in originals):
        return "partly skipped"
    return "in progress"


def reference_rows(session, project_id: int) -> list[dict]:
    """Every document with its row, computed in Python from everything, as
    document_rows + add_scores did."""
    documents = session.scalars(select(Document).where(Document.project_id == project_id)
                                .order_by(Document.position, Document.id)).all()
    tiebreaks = set(session.scalars(select(TieBreakRequest.assignment_id)))
    holders, seconds = defaultdict(list), defaultdict(float)
    for document_id, assignment_id, status, spent, username in session.execute(
            select(Assignment.document_id, Assignment.id, Assignment.status,
                   Assignment.seconds_spent, User.username)
            .join(User, User.id == Assignment.user_id)):
        holders[document_id].append({"username": username, "status": status,
                                     "tiebreak": assignment_id in tiebreaks})
        seconds[document_id] += float(spent or 0.0)
    adjudication = dict(session.execute(select(AdjudicationState.document_id,
                                               AdjudicationState.status)).all())
    # Agreement and open decisions are the queue's (build_project gives them varied values).
    scores = {e.document_id: e for e in session.scalars(select(AdjudicationQueueEntry).where(
        AdjudicationQueueEntry.ready.is_(True)))}
    rows = []
    for d in documents:
        names = sorted(h["username"] for h in holders[d.id])
        status = _reference_status(holders[d.id], adjudication.get(d.id))
        entry = scores.get(d.id) if status in ("ready", "adjudicated") else None
        rows.append({"id": d.id, "doc": d, "status": status, "annotators": names,
                     "agreement": entry.shown_agreement if entry else None,
                     "open": entry.shown_open if entry else None, "time": seconds[d.id]})
    return rows


def reference_select(rows, *, search="", status="", annotator="", sort="position",
                     descending=False) -> list[int]:
    needle = search.strip().casefold()
    if needle:
        rows = [r for r in rows if needle in r["doc"].external_id.casefold()
                or needle in r["doc"].source.casefold() or needle in r["doc"].target.casefold()]
    if status:
        rows = [r for r in rows if r["status"] == status]
    if annotator:
        rows = [r for r in rows if annotator in r["annotators"]]
    keys = {
        "position": lambda r: (r["doc"].position, r["doc"].id),
        "document": lambda r: r["doc"].external_id.casefold(),
        "status": lambda r: STATUSES.index(r["status"]),
        "annotators": lambda r: ", ".join(r["annotators"]),
        "agreement": lambda r: r["agreement"],
        "open": lambda r: r["open"],
        "time": lambda r: r["time"],
    }
    key = keys[sort]
    present = [r for r in rows if key(r) is not None]
    missing = [r for r in rows if key(r) is None]
    return [r["id"] for r in sorted(present, key=key, reverse=descending) + missing]


# ------------------------------------------------------------ a project with every case
def build_project(database, documents: int = 60, seed: int = 44) -> int:
    """Documents in every status, tie-break holders, equal positions, equal agreements,
    equal times, stale and unready queue entries, mixed-case ids and user names."""
    rng = random.Random(seed)
    with work.session(database) as session:  # settles the marked entries at commit
        people = [session.scalar(select(User).where(User.username == name))
                  or create_user(session, name, PASSWORD, "annotator") for name in NAMES]
        project = create_project(session, f"paged-{seed}", "infolossqa")
        docs = []
        for i in range(documents):
            doc = Document(project_id=project.id, external_id=rng.choice(["Doc", "doc", "d"])
                           + f"{i % 17}-{i}", source=f"Source {i} with 50% dose_{i % 3}",
                           target=f"Target {i}", position=i // 3)  # three per position
            session.add(doc)
            docs.append(doc)
        session.flush()
        add_entries(session.connection(), project.id, [doc.id for doc in docs])
        for doc in docs:
            for person in rng.sample(people, rng.choice([0, 1, 2, 2, 3])):
                session.add(Assignment(document_id=doc.id, user_id=person.id,
                                       status=rng.choice(ASSIGNMENT_STATUSES + ("done", "skipped")),
                                       seconds_spent=rng.choice([0.0, 0.0, 30.0, 61.5])))
        session.flush()
        held = session.scalars(select(Assignment).join(Document).where(
            Document.project_id == project.id).order_by(Assignment.id)).all()
        for assignment in rng.sample(held, len(held) // 6):
            session.add(TieBreakRequest(document_id=assignment.document_id,
                                        assignment_id=assignment.id, level="document",
                                        item="", field="fluency"))
        for doc in rng.sample(docs, documents // 5):
            session.add(AdjudicationState(document_id=doc.id,
                                          status=rng.choice(["open", "complete"])))
        document_changed(session, *(doc.id for doc in docs))
        project_id = project.id
    with database.session() as session:
        # The entries were computed at commit (status, holders, time: the real path; no
        # edits, so every agreement is 1.0). Varied shown scores, with ties, exercise the
        # sorts; tests/test_stored_status.py checks the computed ones.
        for entry in session.scalars(select(AdjudicationQueueEntry).where(
                AdjudicationQueueEntry.project_id == project_id,
                AdjudicationQueueEntry.shown_agreement.is_not(None))):
            entry.shown_agreement = rng.choice([0.0, 0.5, 0.5, 0.75, 1.0])
            entry.shown_open = rng.choice([0, 1, 1, 3])
    return project_id


FILTERS = [{}, {"search": "DOC1"}, {"search": "50%"}, {"search": "dose_2"},
           {"search": "  target 1 "}, {"search": "no such text"}, {"annotator": "Cy"},
           {"annotator": "ana"}, {"annotator": "nobody"},
           *({"status": s} for s in STATUSES), {"status": "ready", "annotator": "ben"}]


def sql_ids(session, project, page_size=7, **query) -> list[int]:
    """Every page in turn, joined: the SQL result in full."""
    first = document_page(session, project, page_size=page_size, **query)
    ids = [r.document.id for r in first.rows]
    for page in range(2, first.pages + 1):
        ids += [r.document.id for r in document_page(session, project, page=page,
                                                     page_size=page_size, **query).rows]
    assert len(ids) == first.matching
    return ids


def test_every_sort_and_filter_as_the_python_version(database):
    project_id = build_project(database)
    with database.session() as session:
        project = session.get(Project, project_id)
        reference = reference_rows(session, project_id)
        by_id = {r["id"]: r for r in reference}
        statuses = {r["status"] for r in reference}
        assert statuses == set(STATUSES), statuses  # the data has every status
        assert {r["agreement"] is None for r in reference} == {True, False}
        compared = 0
        for query in FILTERS:
            for sort in SORTS:
                for descending in (False, True):
                    expected = reference_select(reference, sort=sort, descending=descending,
                                                **query)
                    got = sql_ids(session, project, sort=sort, descending=descending, **query)
                    assert got == expected, (query, sort, descending)
                    compared += len(expected)
        assert compared > 1000
        page = document_page(session, project, page_size=10)
        assert page.total == len(reference)
        assert page.counts == {s: sum(r["status"] == s for r in reference) for s in STATUSES}
        for row in page.rows:  # what a row shows: the reference's values
            expected = by_id[row.document.id]
            assert (row.status, row.agreement, row.open_decisions, row.seconds) == (
                expected["status"], expected["agreement"], expected["open"], expected["time"])
            assert sorted(row.annotators) == expected["annotators"]


def test_page_number_is_clamped_and_an_empty_project_has_one_page(database):
    project_id = build_project(database, documents=12)
    with database.session() as session:
        project = session.get(Project, project_id)
        last = document_page(session, project, page=99, page_size=5)
        assert (last.page, last.pages, len(last.rows), last.matching) == (3, 3, 2, 12)
        assert document_page(session, project, page=-4, page_size=5).page == 1
        empty = create_project(session, "empty", "infolossqa")
        nothing = document_page(session, empty)
        assert (nothing.rows, nothing.matching, nothing.total, nothing.pages) == ([], 0, 0, 1)
        assert nothing.counts == dict.fromkeys(STATUSES, 0)


def test_no_statement_grows_with_the_project(database):
    """PostgreSQL refuses more than 65,535 parameters: the statements of a page carry at
    most as many parameters for a project of 600 documents as for one of 30 (the largest
    list is one page of ids)."""
    small, large = build_project(database, 30, seed=1), build_project(database, 600, seed=2)

    def parameter_counts(project_id: int) -> list[int]:
        counts = []

        def record(conn, cursor, statement, parameters, context, executemany):
            counts.append(len(parameters) if parameters else 0)

        with database.session() as session:
            project = session.get(Project, project_id)
            engine = session.get_bind()
            event.listen(engine, "before_cursor_execute", record)
            try:
                for sort in SORTS:
                    document_page(session, project, sort=sort, search="doc", annotator="ana",
                                  page_size=10)
                    document_page(session, project, sort=sort, page_size=10)
            finally:
                event.remove(engine, "before_cursor_execute", record)
        return counts

    # How many statements depends on the data (a sort reads the entries with a value,
    # then those without, as far as the page needs); how many parameters does not.
    assert max(parameter_counts(small)) == max(parameter_counts(large)) < 100
