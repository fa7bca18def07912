"""The lead's data manager: one row per document of a project (status, annotators,
agreement, open decisions, time), with search, filters and sort, in the spirit of Label
Studio's data manager.

Each document's row is stored with its adjudication queue entry and kept current by the
queue's recomputation (:mod:`annotator.study.document_status`: the statuses and
their rules), and the counts per status are stored per project, so that at 1,000,000
documents (issue 44) the counts read a few rows and a page in any sort is an index range
scan of the entries: every sort key has an index per direction, ties in document order
either way. Documents without a value (agreement and open decisions of a document not
ready) come after the others in either direction: the page reads the entries with a value,
then those without. Search (a substring of the id or either text) reads the GIN trigram
indexes of migration 0013 on PostgreSQL (needles of 3 characters or more; shorter ones,
and SQLite, read every text). No statement carries a list of ids that grows with the project
(PostgreSQL refuses more than 65,535 parameters).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import Session

from annotator.models import (
    AdjudicationQueueEntry,
    Assignment,
    Document,
    Project,
    ProjectStatusCount,
    TieBreakRequest,
    User,
)
from annotator.study.document_status import STATUSES

SORTS = ("position", "document", "status", "annotators", "agreement", "open", "time")
# The stored column each sort reads (document_status.table_values).
SORT_COLUMNS = {"annotators": "holders", "agreement": "shown_agreement", "open": "shown_open",
                "time": "seconds"}
QUEUE = AdjudicationQueueEntry.__table__


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


def status_counts(session: Session, project_id: int) -> dict[str, int]:
    """Documents per status of :data:`STATUSES`, from the stored counts."""
    counts = dict.fromkeys(STATUSES, 0)
    counts.update(session.execute(select(ProjectStatusCount.status, ProjectStatusCount.documents)
                                  .where(ProjectStatusCount.project_id == project_id)).all())
    return counts


def _document_filters(id_column, *, search: str, annotator: str) -> list:
    """WHERE clauses of the search (document id or either text, case-insensitive) and
    the annotator filter (any holder, tie-breaks included) over a column of document ids."""
    where = []
    if search.strip():
        where.append(id_column.in_(select(Document.id).where(_search_matches(search))))
    if annotator:
        where.append(exists().where(Assignment.document_id == id_column,
                                    Assignment.user_id == User.id, User.username == annotator))
    return where


def _search_matches(search: str):
    """The document's id or either text contains the search, case-insensitive:
    ``lower(column) LIKE '%needle%' ESCAPE '/'`` (% and _ of the needle escaped), the form
    the trigram indexes of migration 0013 serve on PostgreSQL."""
    needle = search.strip().lower()
    return or_(*(func.lower(column).contains(needle, autoescape=True)
                 for column in (Document.external_id, Document.source, Document.target)))


def _segments(sort: str, descending: bool, status: str, counts: dict | None) -> list:
    """The page's order as segments read one after the other: ``(where, order_by, size)``
    each, ``size`` the segment's number of rows when known (else counted when a page
    starts after it). Every segment's order is one index's order."""
    tail = [QUEUE.c.position, QUEUE.c.document_id]
    if sort == "status":
        if status:  # one status: all ties, in document order either way
            return [([], tail, None)]
        order = reversed(STATUSES) if descending else STATUSES
        return [([QUEUE.c.status == s], tail, counts[s] if counts else None) for s in order]
    column = SORT_COLUMNS.get(sort)
    if column is None:  # document order (also the status sort within one status)
        return [([], [c.desc() for c in tail] if descending else tail, None)]
    key = QUEUE.c[column]
    return [([key.is_not(None)], [key.desc() if descending else key, *tail], None),
            ([key.is_(None)], tail, None)]


def _page_ids(session: Session, where: list, segments: list, offset: int,
              limit: int) -> list[int]:
    """The ids of rows ``offset`` to ``offset + limit`` of the segments in turn."""
    ids: list[int] = []
    for extra, order, size in segments:
        if len(ids) == limit:
            break
        condition = [*where, *extra]
        if offset and size is not None and size <= offset:
            offset -= size
            continue
        found = list(session.scalars(select(QUEUE.c.document_id).where(*condition)
                                     .order_by(*order).offset(offset).limit(limit - len(ids))))
        if found:
            ids += found
            offset = 0
        elif offset:  # the page starts after this segment: skip its rows
            offset -= session.scalar(select(func.count()).select_from(QUEUE).where(*condition))
    return ids


def _by_document_id(session: Session, where: list, descending: bool, offset: int,
                    limit: int) -> list[int]:
    """The sort by document id (case-insensitive): read from the documents' ids, not
    indexed for it (a sort of the matching documents)."""
    key = func.lower(Document.external_id)
    order = [key.desc() if descending else key, QUEUE.c.position, QUEUE.c.document_id]
    return list(session.scalars(select(QUEUE.c.document_id)
                                .join(Document, Document.id == QUEUE.c.document_id)
                                .where(*where).order_by(*order).offset(offset).limit(limit)))


def document_page(session: Session, project: Project, *, search: str = "", status: str = "",
                  annotator: str = "", sort: str = "position", descending: bool = False,
                  page: int = 1, page_size: int = 50) -> DocumentPage:
    """One page of the data manager: search (document id or either text,
    case-insensitive), filter by status and annotator, sort; counted and paged in SQL
    from the stored rows (module docstring)."""
    counts = status_counts(session, project.id)
    total = sum(counts.values())
    where = [QUEUE.c.project_id == project.id,
             *_document_filters(QUEUE.c.document_id, search=search, annotator=annotator)]
    if status:
        where.append(QUEUE.c.status == status)
    filtered = bool(search or annotator)
    if search.strip() and not (annotator or status):
        # Every document has one queue entry: the search alone counts the documents,
        # from the trigram indexes, without reading the whole queue (2 ms against 22 ms for
        # 1,111 matches of 100,000 documents on PostgreSQL; issue 44).
        matching = session.scalar(select(func.count()).select_from(Document).where(
            Document.project_id == project.id, _search_matches(search)))
    elif filtered:
        matching = session.scalar(select(func.count()).select_from(QUEUE).where(*where))
    else:
        matching = counts.get(status, 0) if status else total
    pages = max(1, -(-matching // page_size))
    page = min(max(1, page), pages)
    offset = (page - 1) * page_size
    if sort == "document":
        ids = _by_document_id(session, where, descending, offset, page_size)
    else:
        sort = sort if sort in SORTS else "position"
        ids = _page_ids(session, where, _segments(sort, descending, status,
                                                  None if filtered else counts),
                        offset, page_size)
    stored = {r.id: r for r in session.execute(select(
        QUEUE.c.document_id.label("id"), QUEUE.c.status, QUEUE.c.seconds,
        QUEUE.c.shown_agreement.label("agreement"), QUEUE.c.shown_open.label("open_total"))
        .where(QUEUE.c.document_id.in_(ids)))} if ids else {}
    return DocumentPage(rows=_rows(session, [stored[i] for i in ids]), matching=matching,
                        total=total, counts=counts, page=page, pages=pages)


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
