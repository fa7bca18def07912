"""Writing imported annotations, and reading a project's annotations for export.

Writing is all or nothing: every record is checked (schema, offsets, texts of documents
that already exist, annotators who already have work on a document) before the first row is
added; any problem raises :class:`~annotator.ingest.IngestError` and nothing is written.
For each record the store creates the document if the project does not hold it yet, the
user if nobody has that name (an annotator who cannot log in: inactive, random password),
the annotator's assignment (status, seconds spent, what the record carried beyond its
edits in ``Assignment.meta``), the edits with every span in the file's order, their fields,
their own ids/keys (``Edit.meta``) and constituents (``Edit.parent_id``), and the ratings.

Work the file calls done but whose required values are missing (the same check as "mark
document done" in the annotation page) is stored as in progress with a warning, unless the
file says done and the import accepts incomplete work (``--accept-incomplete``).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from sqlalchemy import select, true
from sqlalchemy.orm import Session, selectinload

from annotator.annotate.store import (
    adjudication_started,
    build_edit,
    missing_for_done,
    span_rows,
)
from annotator.core.records import DocumentRecord, IngestError, Problem
from annotator.core.serialise import edit_to_dict, rating_to_dict
from annotator.ingest.store import store_documents
from annotator.interop.records import (
    UPDATE_HINT,
    AnnotationRecord,
    EditIn,
    ImportOptions,
    ImportReport,
    RatingIn,
    SpanIn,
    check_records,
    keep_later,
    where,
)
from annotator.models import (
    AdjudicationState,
    Assignment,
    Document,
    Edit,
    Project,
    Rating,
    User,
)
from annotator.schemas.files import project_schema
from annotator.study import audit
from annotator.study.accounts import create_user
from annotator.study.projects import add_member
from annotator.study.queue_marks import document_changed


def store_annotations(session: Session, project: Project, records: list[AnnotationRecord],
                      file_name: str, *, fmt: str, report: ImportReport | None = None,
                      user_id: int | None = None,
                      options: ImportOptions | None = None,
                      replace: bool = False) -> ImportReport:
    """``replace``: an annotator's earlier work on a document is replaced by the file's (a
    pull that follows ongoing work in another tool) instead of refused.

    ``options.update`` (``annotator import --update``): the same for a study imported batch
    by batch whose later batches re-rate items, as the study's analysis keeps the later
    rating: of two records by one annotator on one item the later is kept, an earlier
    annotation in the project is replaced, each replacement is audited
    (``annotations.replaced``, with the replaced edits and ratings) and counted in
    ``report.replaced``; an item whose adjudication is complete is refused until the
    adjudication is reopened."""
    report = report or ImportReport()
    options = options or ImportOptions()
    schema = project_schema(project)
    documents = {d.external_id: d for d in session.scalars(
        select(Document).where(Document.project_id == project.id))}
    texts = {k: (d.source, d.target) for k, d in documents.items()}
    _match_by_texts(records, texts)
    if options.update:
        records = keep_later(records, report)
    problems = check_records(records, schema, file_name, texts, options, report)
    if not records and not problems:
        problems.append(Problem(file_name, None, None, "the file holds no annotations"))
    earlier: dict[int, Assignment] = {}
    if not replace:
        found, earlier = _already_annotated(session, project, records, documents, file_name,
                                            options.update)
        problems += found
        if not problems:  # work to be replaced (--update) was checked just above
            problems += _frozen(session, [r for r in records if id(r) not in earlier],
                                documents, file_name)
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file or "", p.line or 0)))

    new_documents, queued = [], set()
    for r in records:
        if r.document_id not in documents and r.document_id not in queued:
            queued.add(r.document_id)
            new_documents.append(DocumentRecord(external_id=r.document_id, source=r.source,
                                                target=r.target, line=r.line, meta=r.meta))
    if new_documents:
        store_documents(session, project, new_documents, file_name)
        report.documents_created = len(new_documents)
        documents = {d.external_id: d for d in session.scalars(
            select(Document).where(Document.project_id == project.id))}

    documents_only = [r for r in records if r.document_only]
    if documents_only:
        report.notes.append(f"{len(documents_only)} task(s) without annotations: imported "
                            "as documents only")
    records = [r for r in records if not r.document_only]
    users = {}
    stored: set[int] = set()  # documents whose work changed: their queue entries
    for r in records:
        if r.annotator not in users:
            users[r.annotator] = _user(session, project, r.annotator, report)
    for r in records:
        if replace and _frozen_work(session, documents[r.document_id], users[r.annotator]):
            report.notes.append(f"{r.file or file_name}:{r.line}: {r.annotator} on "
                                f"{r.document_id}: kept as stored, not replaced: adjudication "
                                "has started on this document (gold points at this work)")
            continue
        if id(r) in earlier:
            _audit_replaced(session, project, earlier[id(r)], r, file_name, user_id, report)
        assignment = _store_one(session, documents[r.document_id], users[r.annotator], r,
                                replace or id(r) in earlier)
        report.records += 1
        report.edits += _count(r.edits)
        report.ratings += len(r.ratings)
        session.flush()
        _settle_status(assignment, r, schema, options, report)
        stored.add(assignment.document_id)
    session.flush()
    document_changed(session, *stored)
    audit.record(session, "annotations.imported", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, file=file_name, format=fmt,
                 records=report.records, edits=report.edits, ratings=report.ratings,
                 users_created=report.users_created, notes=report.notes,
                 invalid=report.invalid, ignored=report.ignored, clipped=report.clipped,
                 incomplete=report.incomplete, replaced=len(report.replaced))
    return report


def _count(edits: list[EditIn]) -> int:
    return sum(1 + _count(e.constituents) for e in edits)


def _match_by_texts(records: list[AnnotationRecord], texts: dict[str, tuple[str, str]]):
    """A record keyed by its texts (the file gives no id) joins the project's document with
    the same two texts, whatever that document's id. A record that names its item keeps its
    id: two items with the same texts are two documents."""
    by_texts = {pair: doc_id for doc_id, pair in texts.items()}
    for r in records:
        if r.keyed_by_texts and r.document_id not in texts and r.source is not None:
            r.document_id = by_texts.get((r.source, r.target), r.document_id)


def _settle_status(assignment: Assignment, r: AnnotationRecord, schema, options, report):
    """Done only if complete, or if the file says done and incomplete work is accepted."""
    if assignment.status != "done":
        return
    missing = missing_for_done(assignment, schema)
    if not missing:
        return
    what = "; ".join(m["message"] for m in missing[:5]) + (
        f"; and {len(missing) - 5} more" if len(missing) > 5 else "")
    where = f"{r.file}:{r.line}" if r.file else f"line {r.line}"
    if options.accept_incomplete and r.says_done:
        report.incomplete.append(f"{where}: {r.annotator} on {r.document_id}: kept as done "
                                 f"(--accept-incomplete) although {what}")
        return
    assignment.status, assignment.completed_at = "in_progress", None
    hint = "" if r.says_done or not options.accept_incomplete else (
        " (the file does not say done)")
    report.incomplete.append(f"{where}: {r.annotator} on {r.document_id}: imported as in "
                             f"progress{hint}: {what}")


def _already_annotated(session, project, records, documents, file_name, update=False
                       ) -> tuple[list[Problem], dict[int, Assignment]]:
    """Problems for annotators who already have work on a record's document, and (with
    ``update``) that work by ``id(record)``, to be replaced. Work on a document whose
    adjudication has started is frozen (``adjudication_started``, as for every writer) and
    refused even then, until the lead reopens the adjudication: reopening is the lead's
    word that the annotators' work may change."""
    problems, earlier = [], {}
    for r in records:
        doc = documents.get(r.document_id)
        if doc is None or r.document_only:
            continue
        assignment = session.scalar(select(Assignment).join(User).where(
            Assignment.document_id == doc.id, User.username == r.annotator))
        if assignment is None or not (assignment.edits or assignment.ratings):
            continue
        state = session.scalar(select(AdjudicationState).where(
            AdjudicationState.document_id == doc.id))
        name = r.file or file_name
        if not update:
            problems.append(Problem(name, r.line, "id", f"{r.annotator!r} already has "
                                    f"annotations on document {r.document_id!r} in project "
                                    f"{project.name!r}; {UPDATE_HINT}"))
        elif state is not None and state.status == "complete":
            problems.append(Problem(name, r.line, "id", f"document {r.document_id!r} is "
                                    "adjudicated: reopen its adjudication before --update "
                                    f"replaces the annotation by {r.annotator!r}"))
        elif adjudication_started(session, doc.id) and not (
                state is not None and state.status == "open" and state.round > 1):
            problems.append(Problem(name, r.line, "id", f"adjudication has started on "
                                    f"document {r.document_id!r}, so the annotators' work is "
                                    "frozen: reopen its adjudication (with a reset while it "
                                    f"is open) before --update replaces the annotation by "
                                    f"{r.annotator!r}"))
        else:
            earlier[id(r)] = assignment
    return problems, earlier


def _audit_replaced(session, project, assignment: Assignment, r: AnnotationRecord,
                    file_name: str, user_id: int | None, report: ImportReport) -> None:
    """The replaced annotation goes into the audit trail whole, so it can be traced back."""
    report.replaced.append(f"{where(r, file_name)}: {r.annotator} on {r.document_id} "
                           "replaces the project's earlier annotation")
    if adjudication_started(session, assignment.document_id):
        # Decisions keep their snapshot of the replaced edits, but no longer point at them.
        report.notes.append(f"{where(r, file_name)}: document {r.document_id} has "
                            f"adjudication decisions on {r.annotator}'s replaced work: "
                            "review them (reopening with a reset regroups the document)")
    audit.record(session, "annotations.replaced", user_id=user_id, project_id=project.id,
                 object_type="assignment", object_id=assignment.id,
                 file=r.file or file_name, line=r.line, document=r.document_id,
                 annotator=r.annotator, status=assignment.status,
                 seconds_spent=assignment.seconds_spent,
                 edits=[edit_to_dict(e) for e in assignment.edits],
                 ratings=[rating_to_dict(g) for g in assignment.ratings])


def _user(session: Session, project: Project, username: str, report: ImportReport) -> User:
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        # Imported work needs an owner, but nobody should be able to log in as them until
        # an admin sets a password and activates the account.
        user = create_user(session, username, secrets.token_urlsafe(32), "annotator")
        user.active = False
        report.users_created.append(username)
    if user.role == "annotator":
        add_member(session, project, user, "annotator")
    return user


def _frozen(session, records, documents, file_name) -> list[Problem]:
    """Records that would add to an annotator's stored assignment on a document a lead has
    started adjudicating (an assignment without edits yet, which the check for existing
    annotations lets through): refused, the work is frozen."""
    problems = []
    for r in records:
        user = session.scalar(select(User).where(User.username == r.annotator))
        if (r.document_id in documents and user is not None
                and _frozen_work(session, documents[r.document_id], user)):
            problems.append(Problem(r.file or file_name, r.line, "id", f"{r.annotator!r} on "
                                    f"document {r.document_id!r}: adjudication has started "
                                    "there, so the annotators' work is frozen; nothing was "
                                    "imported"))
    return problems


def _frozen_work(session: Session, document: Document, user: User) -> bool:
    """The user's stored work on a document a lead has started adjudicating: frozen for a
    replacing import (Label Studio pull) as for the annotation API."""
    return adjudication_started(session, document.id) and session.scalar(
        select(Assignment.id).where(Assignment.document_id == document.id,
                                    Assignment.user_id == user.id)) is not None


def _store_one(session: Session, document: Document, user: User,
               r: AnnotationRecord, replace: bool = False) -> Assignment:
    assignment = session.scalar(select(Assignment).where(
        Assignment.document_id == document.id, Assignment.user_id == user.id))
    if assignment is None:
        assignment = Assignment(document_id=document.id, user_id=user.id)
        session.add(assignment)
    elif replace:
        # Children (constituents) first: they point at their composite edit.
        for old in sorted(assignment.edits, key=lambda e: e.parent_id is None):
            session.delete(old)
        for old in assignment.ratings:
            session.delete(old)
        session.flush()
        session.expire(assignment, ["edits", "ratings"])
        if assignment.meta and "seconds_unknown" in assignment.meta:  # the new time counts
            assignment.meta = {k: v for k, v in assignment.meta.items()
                               if k != "seconds_unknown"}
    now = datetime.now(timezone.utc)
    assignment.status = r.status
    assignment.seconds_spent = float(r.seconds_spent or 0.0)
    assignment.started_at = assignment.started_at or now
    assignment.completed_at = now if r.status == "done" else None
    meta = dict(r.assignment_meta or {})
    if r.seconds_spent is None:
        meta["seconds_unknown"] = True  # the file gave no time: not the same as zero
    if meta:
        assignment.meta = {**(assignment.meta or {}), **meta}
    for e in r.edits:
        _store_edit(session, assignment, e, None)
    for g in r.ratings:
        session.add(Rating(assignment=assignment, level=g.level, item=g.item, field=g.field,
                           value=None if g.value == "" else g.value, rationale=g.rationale))
    return assignment


def _store_edit(session: Session, assignment: Assignment, e: EditIn, parent: Edit | None):
    # In the file's order: the first span is the first one marked.
    spans = span_rows((s.side, s.start, s.end) for s in e.spans)
    edit = build_edit(assignment, e.edit_type, e.fields, spans, meta=e.meta, parent=parent)
    session.add(edit)
    if e.constituents:
        session.flush()  # the composite's id, for its constituents' parent_id
        for c in e.constituents:
            _store_edit(session, assignment, c, edit)


def project_records(session: Session, project: Project, *,
                    document_ids: list[int] | None = None) -> list[AnnotationRecord]:
    """Every assignment with work in it (edits, ratings, time, or a status beyond
    'assigned'), in document order then annotator name; only those of ``document_ids``
    when given (the data manager's ticked documents: not the whole project loaded to
    keep a few)."""
    rows = session.scalars(
        select(Assignment).join(Document).join(User)
        .where(Document.project_id == project.id,
               Assignment.document_id.in_(document_ids) if document_ids is not None
               else true())
        .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                 selectinload(Assignment.ratings), selectinload(Assignment.document),
                 selectinload(Assignment.user))
        .order_by(Document.position, Document.id, User.username)).all()
    records = []
    for a in rows:
        if a.status == "assigned" and not a.edits and not a.ratings:
            continue
        doc = a.document
        records.append(AnnotationRecord(
            document_id=doc.external_id, annotator=a.user.username, line=0,
            source=doc.source, target=doc.target, meta=dict(doc.meta or {}),
            edits=edit_tree(a.edits),
            ratings=[_rating_in(rating_to_dict(g)) for g in a.ratings],
            seconds_spent=round(a.seconds_spent or 0.0, 3), status=a.status,
            assignment_meta=dict(a.meta or {})))
    return records


def edit_tree(edits: list[Edit]) -> list[EditIn]:
    """An assignment's edits as records: top-level edits in the order they were made, each
    composite edit holding its constituents; spans in the order they were marked."""
    children: dict[int, list[Edit]] = {}
    for e in edits:
        if e.parent_id is not None:
            children.setdefault(e.parent_id, []).append(e)

    def one(e: Edit) -> EditIn:
        data = edit_to_dict(e)
        return EditIn(data["edit_type"], data["fields"], [SpanIn(**s) for s in data["spans"]],
                      meta=data["meta"], constituents=[one(c) for c in children.get(e.id, [])])

    return [one(e) for e in edits if e.parent_id is None]


def _rating_in(rating: dict) -> RatingIn:
    return RatingIn(rating["level"], rating["item"], rating["field"], rating["value"],
                    rating["rationale"])


def project_documents(session: Session, project: Project) -> list[Document]:
    return list(session.scalars(select(Document).where(Document.project_id == project.id)
                                .order_by(Document.position, Document.id)))
