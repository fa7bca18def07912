"""Writing imported annotations, and reading a project's annotations for export.

Writing is all or nothing: every record is checked (schema, offsets, texts of documents
that already exist, annotators who already have work on a document) before the first row is
added; any problem raises :class:`~annotator.ingest.IngestError` and nothing is written.
For each record the store creates the document if the project does not hold it yet, the
user if nobody has that name (an annotator who cannot log in: inactive, random password),
the annotator's assignment (status and seconds spent), the edits with every span and their
fields, and the ratings.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from annotator.core.serialise import edit_to_dict, rating_to_dict
from annotator.ingest.readers import DocumentRecord, IngestError, Problem
from annotator.ingest.store import store_documents
from annotator.interop.records import (
    AnnotationRecord, EditIn, ImportReport, RatingIn, SpanIn, check_records,
)
from annotator.models import Assignment, Document, Edit, Project, Rating, Span, User
from annotator.study import audit
from annotator.study.accounts import create_user
from annotator.study.projects import add_member, project_schema


def store_annotations(session: Session, project: Project, records: list[AnnotationRecord],
                      file_name: str, *, fmt: str, report: ImportReport | None = None,
                      user_id: int | None = None) -> ImportReport:
    report = report or ImportReport()
    schema = project_schema(project)
    documents = {d.external_id: d for d in session.scalars(
        select(Document).where(Document.project_id == project.id))}
    texts = {k: (d.source, d.target) for k, d in documents.items()}
    problems = check_records(records, schema, file_name, texts)
    if not records and not problems:
        problems.append(Problem(file_name, None, None, "the file holds no annotations"))
    problems += _already_annotated(session, project, records, documents, file_name)
    if problems:
        raise IngestError(sorted(problems, key=lambda p: p.line or 0))

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

    users = {}
    for r in records:
        if r.annotator not in users:
            users[r.annotator] = _user(session, project, r.annotator, report)
    for r in records:
        _store_one(session, documents[r.document_id], users[r.annotator], r)
        report.records += 1
        report.edits += len(r.edits)
        report.ratings += len(r.ratings)
    session.flush()
    audit.record(session, "annotations.imported", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, file=file_name, format=fmt,
                 records=report.records, edits=report.edits, ratings=report.ratings,
                 users_created=report.users_created, notes=report.notes,
                 invalid=report.invalid)
    return report


def _already_annotated(session, project, records, documents, file_name) -> list[Problem]:
    problems = []
    for r in records:
        doc = documents.get(r.document_id)
        if doc is None:
            continue
        assignment = session.scalar(select(Assignment).join(User).where(
            Assignment.document_id == doc.id, User.username == r.annotator))
        if assignment is not None and (assignment.edits or assignment.ratings):
            problems.append(Problem(file_name, r.line, "id", f"{r.annotator!r} already has "
                                    f"annotations on document {r.document_id!r} in project "
                                    f"{project.name!r}; nothing was imported"))
    return problems


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


def _store_one(session: Session, document: Document, user: User, r: AnnotationRecord) -> None:
    assignment = session.scalar(select(Assignment).where(
        Assignment.document_id == document.id, Assignment.user_id == user.id))
    if assignment is None:
        assignment = Assignment(document_id=document.id, user_id=user.id)
        session.add(assignment)
    now = datetime.now(timezone.utc)
    assignment.status = r.status
    assignment.seconds_spent = float(r.seconds_spent or 0.0)
    assignment.started_at = assignment.started_at or now
    assignment.completed_at = now if r.status == "done" else None
    for e in r.edits:
        spans, seen = [], set()
        for s in e.spans:
            if (s.side, s.start, s.end) not in seen:
                seen.add((s.side, s.start, s.end))
                spans.append(Span(side=s.side, start=s.start, end=s.end))
        session.add(Edit(assignment=assignment, edit_type=e.edit_type, fields=e.fields,
                         spans=spans))
    for g in r.ratings:
        session.add(Rating(assignment=assignment, level=g.level, item=g.item, field=g.field,
                           value=None if g.value == "" else g.value, rationale=g.rationale))


def project_records(session: Session, project: Project) -> list[AnnotationRecord]:
    """Every assignment with work in it (edits, ratings, time, or a status beyond
    'assigned'), in document order then annotator name."""
    rows = session.scalars(
        select(Assignment).join(Document).join(User)
        .where(Document.project_id == project.id)
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
            edits=[_edit_in(edit_to_dict(e)) for e in a.edits],
            ratings=[_rating_in(rating_to_dict(g)) for g in a.ratings],
            seconds_spent=round(a.seconds_spent or 0.0, 3), status=a.status))
    return records


def _edit_in(edit: dict) -> EditIn:
    return EditIn(edit["edit_type"], edit["fields"], [SpanIn(**s) for s in edit["spans"]])


def _rating_in(rating: dict) -> RatingIn:
    return RatingIn(rating["level"], rating["item"], rating["field"], rating["value"],
                    rating["rationale"])


def project_documents(session: Session, project: Project) -> list[Document]:
    return list(session.scalars(select(Document).where(Document.project_id == project.id)
                                .order_by(Document.position, Document.id)))
