"""The lead's data manager: one row per document of a project (status, annotators,
agreement, open decisions, time), with search, filters and sort, in the spirit of Label
Studio's data manager.

A document's status follows the data flow: 'unassigned' (nobody holds it), 'not started',
'in progress', 'skipped' (every original annotator skipped it), 'partly skipped' (every
original annotator is done or skipped it, at least one skipped), 'ready' (every original
annotator marked it done: waiting for adjudication) and 'adjudicated'. Tie-break
assignments (a third annotator rating disputed items) do not count towards the status.
Agreement and open decisions come from the stored adjudication queue (each entry is
:func:`annotator.adjudication.overview.document_entry`), so both pages agree.

Everything is computed in the database (issue 44: a 100,000-document study on
PostgreSQL): the status is a CASE over per-document aggregates of the assignments, the
counts one GROUP BY, filter, sort and page are SQL, and only the shown page's documents
(at most one page) are loaded with their holders. No statement carries a list of ids that
grows with the project (PostgreSQL refuses more than 65,535 parameters).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import and_, case, exists, func, literal, or_, select, true
from sqlalchemy.orm import Session

from annotator.models import (
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    Project,
    TieBreakRequest,
    User,
)

STATUSES = ("unassigned", "not started", "in progress", "skipped", "partly skipped", "ready",
            "adjudicated")
SORTS = ("position", "document", "status", "annotators", "agreement", "open", "time")
SCORED = ("ready", "adjudicated")  # the statuses whose row shows agreement and open decisions


@dataclass
class DocumentRow:
    document: Document
    status: str
    holders: list[dict] = field(default_factory=list)  # {username, status, assignment_id}
    agreement: float | None = None
    open_decisions: int | None = None
    seconds: float = 0.0

    @property
    def annotators(self) -> list[str]:
        return [h["username"] for h in self.holders]


@dataclass
class DocumentPage:
    rows: list[DocumentRow]  # the shown page, in order
    matching: int  # documents that pass search and filters
    total: int  # documents of the project
    counts: dict[str, int]  # documents per status, over the whole project
    page: int
    pages: int


def _status_case(originals, done, fresh, skipped, adjudication_status):
    """The status of :data:`STATUSES` from the aggregates, in the order the rules are
    checked: adjudicated, unassigned, ready, not started, skipped, partly skipped."""
    return case(
        (adjudication_status == "complete", "adjudicated"),
        (originals == 0, "unassigned"),
        (done == originals, "ready"),
        (fresh == originals, "not started"),
        (skipped == originals, "skipped"),
        (and_(skipped > 0, done + skipped == originals), "partly skipped"),
        else_="in progress")


def _table(session: Session, project: Project, ids: list[int] | None = None, *,
           scores: bool = True):
    """The project's documents (or those of ``ids``, at most a page) as one SQL row each
    (id, position, external_id, status, seconds, agreement, open_total), as a subquery to
    filter, count and sort; without ``scores``, no agreement and open decisions (what
    the status counts need: no join with the queue).

    One GROUP BY over the documents outer-joined with their assignments (a join of the
    documents with a grouped subquery got a nested loop from PostgreSQL's planner): the
    original (non tie-break) assignments by status, and the time of every assignment
    (tie-breaks included, as the page shows). Tie-break assignments come from one outer
    join (an EXISTS in each sum cost a probe per assignment and sum)."""
    tiebreaks = (select(TieBreakRequest.assignment_id.label("assignment_id"))
                 .where(TieBreakRequest.document_id.in_(
                     select(Document.id).where(Document.project_id == project.id)))
                 .distinct().subquery("tiebreaks"))
    original = and_(Assignment.id.is_not(None), tiebreaks.c.assignment_id.is_(None))

    def count_of(condition):
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    adjudication = AdjudicationState.__table__.alias("adjudication")
    status = _status_case(
        count_of(original), count_of(and_(original, Assignment.status == "done")),
        count_of(and_(original, Assignment.status == "assigned")),
        count_of(and_(original, Assignment.status == "skipped")),
        func.max(adjudication.c.status))
    base = (select(Document.id.label("id"), Document.position.label("position"),
                   Document.external_id.label("external_id"), status.label("status"),
                   func.coalesce(func.sum(Assignment.seconds_spent), 0.0).label("seconds"))
            .select_from(Document)
            .outerjoin(Assignment, Assignment.document_id == Document.id)
            .outerjoin(tiebreaks, tiebreaks.c.assignment_id == Assignment.id)
            .outerjoin(adjudication, adjudication.c.document_id == Document.id)
            .where(Document.project_id == project.id,
                   Document.id.in_(ids) if ids is not None else true())
            # Grouped by (position, id), the order of the index on (project, position):
            # SQLite walks the groups in index order without sorting the rows; the other
            # document columns depend on the primary key.
            .group_by(Document.position, Document.id)).subquery("base")
    if not scores:
        return base
    queue = AdjudicationQueueEntry.__table__.alias("queue")
    scored = base.c.status.in_(SCORED)
    return (select(*base.c, case((scored, queue.c.agreement)).label("agreement"),
                   case((scored, queue.c.open_total)).label("open_total"))
            .select_from(base)
            .outerjoin(queue, and_(queue.c.document_id == base.c.id,
                                   queue.c.project_id == project.id,
                                   queue.c.ready.is_(True), queue.c.stale.is_(False)))
            ).subquery("document_table")


def _annotators_key(session: Session, table):
    """Every holder's username (tie-breaks included), in order, joined by ', ': the
    'annotators' sort key. Compared code point by code point as Python compares strings
    (the "C" collation on PostgreSQL; SQLite compares bytes of UTF-8, the same order)."""
    names = (select(User.username.label("name")).join(Assignment, Assignment.user_id == User.id)
             .where(Assignment.document_id == table.c.id).correlate(table))
    if session.get_bind().dialect.name == "postgresql":
        # PostgreSQL's ordered aggregate: imported only where that dialect runs
        from sqlalchemy.dialects.postgresql import aggregate_order_by

        joined = names.with_only_columns(func.string_agg(
            User.username, aggregate_order_by(literal(", "), User.username.collate("C"))))
        return func.coalesce(joined.scalar_subquery(), "").collate("C")
    # SQLite 3.40 has no ORDER BY inside group_concat: it concatenates in the order of an
    # ordered subquery (the behaviour SQLite keeps for a plain subquery scan).
    inner = names.order_by(User.username).subquery()
    return func.coalesce(select(func.group_concat(inner.c.name, ", ")).scalar_subquery(), "")


def _document_filters(id_column, *, search: str, annotator: str) -> list:
    """WHERE clauses of the search (document id or either text, case-insensitive) and
    the annotator filter (any holder, tie-breaks included) over a column of document ids."""
    where = []
    needle = search.strip().lower()
    if needle:
        where.append(id_column.in_(select(Document.id).where(or_(
            func.lower(Document.external_id).contains(needle, autoescape=True),
            func.lower(Document.source).contains(needle, autoescape=True),
            func.lower(Document.target).contains(needle, autoescape=True)))))
    if annotator:
        where.append(exists().where(Assignment.document_id == id_column,
                                    Assignment.user_id == User.id, User.username == annotator))
    return where


def _order(session: Session, table, sort: str, descending: bool) -> list:
    """ORDER BY of a sort column: documents without a value come last either way, ties in
    document order (position, id) either way, as Python's stable sort kept them. ``table``
    is the documents table for the first two sorts, the document table for any."""
    keys = {
        "position": lambda: None,
        "document": lambda: func.lower(table.c.external_id),
        "status": lambda: case({s: i for i, s in enumerate(STATUSES)}, value=table.c.status),
        "annotators": lambda: _annotators_key(session, table),
        "agreement": lambda: table.c.agreement,
        "open": lambda: table.c.open_total,
        "time": lambda: table.c.seconds,
    }
    key = keys.get(sort, keys["position"])()
    tail = [table.c.position, table.c.id]
    if key is None:
        return [column.desc() for column in tail] if descending else tail
    return [case((key.is_(None), 1), else_=0), key.desc() if descending else key, *tail]


def document_page(session: Session, project: Project, *, search: str = "", status: str = "",
                  annotator: str = "", sort: str = "position", descending: bool = False,
                  page: int = 1, page_size: int = 50) -> DocumentPage:
    """One page of the data manager: search (document id or either text,
    case-insensitive), filter by status and annotator, sort; counted and paged in SQL.

    The status counts are one GROUP BY over the project. A page in document order or by
    document id without a status filter is chosen from the documents alone and only its
    rows get a status; the other sorts and the status filter sort the project's rows."""
    statuses = _table(session, project, scores=False)
    counts = dict.fromkeys(STATUSES, 0)
    counts.update(session.execute(select(statuses.c.status, func.count()).group_by(
        statuses.c.status)).all())
    table = _table(session, project)
    total = sum(counts.values())
    by_document = not status and sort in ("position", "document")
    source = Document.__table__ if by_document else table
    where = _document_filters(source.c.id, search=search, annotator=annotator)
    if by_document:
        where.append(source.c.project_id == project.id)
    elif status:
        where.append(table.c.status == status)
    if search or annotator:
        matching = session.scalar(select(func.count()).select_from(source).where(*where))
    else:
        matching = counts.get(status, 0) if status else total
    pages = max(1, -(-matching // page_size))
    page = min(max(1, page), pages)
    chosen = (select(source.c.id).where(*where)
              .order_by(*_order(session, source, sort, descending))
              .limit(page_size).offset((page - 1) * page_size))
    if by_document:
        ids = list(session.scalars(chosen))
        shown_table = _table(session, project, ids)
        found = {r.id: r for r in session.execute(select(shown_table))}
        shown = [found[i] for i in ids]
    else:
        shown = session.execute(chosen.add_columns(
            table.c.status, table.c.seconds, table.c.agreement, table.c.open_total)).all()
    return DocumentPage(rows=_rows(session, shown), matching=matching, total=total,
                        counts=counts, page=page, pages=pages)


def _rows(session: Session, shown) -> list[DocumentRow]:
    """The shown documents with their holders (ordered by username) and tie-break flags:
    one query each over at most one page of ids."""
    ids = [r.id for r in shown]
    if not ids:
        return []
    documents = {d.id: d for d in session.scalars(select(Document).where(Document.id.in_(ids)))}
    tiebreaks = set(session.scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.document_id.in_(ids))))
    holders: dict[int, list[dict]] = defaultdict(list)
    for document_id, assignment_id, status, username in session.execute(
            select(Assignment.document_id, Assignment.id, Assignment.status, User.username)
            .join(User, User.id == Assignment.user_id)
            .where(Assignment.document_id.in_(ids)).order_by(User.username)):
        holders[document_id].append({"username": username, "status": status,
                                     "assignment_id": assignment_id,
                                     "tiebreak": assignment_id in tiebreaks})
    return [DocumentRow(document=documents[r.id], status=r.status, holders=holders[r.id],
                        agreement=r.agreement, open_decisions=r.open_total,
                        seconds=float(r.seconds or 0.0)) for r in shown]
