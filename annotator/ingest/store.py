"""Storing validated document records in a project, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from annotator.core.records import (
    DocumentRecord,
    IngestError,
    Problem,
    read_documents,
    read_uploaded_documents,
)
from annotator.ingest.rows import BATCH_SIZE, ImportResult, document_row, document_texts
from annotator.models import Assignment, Document, Edit, Project, Rating
from annotator.study import audit
from annotator.study.document_status import add_entries, remove_entries
from annotator.study.prehighlight_queue import queue_prehighlight

# New documents go straight into the table (see ``write_batch``).
DOCUMENTS = Document.__table__


def import_file(
    session: Session,
    project: Project,
    path: Path,
    fmt: str | None = None,
    *,
    update: bool = False,
    user_id: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    in_batches: bool = False,
    records: list[DocumentRecord] | None = None,
) -> ImportResult:
    """Read, validate and store a file (``records``: its documents, when the caller read
    them already: ``annotator import`` after its direct path declined, see
    :mod:`annotator.ingest.sqlite_import`). Raises IngestError (and writes nothing) on any
    problem; the caller's transaction is left for the caller to commit.

    ``in_batches`` (new documents only, used by ``annotator import``): after validation,
    documents are written and committed :data:`BATCH_SIZE` at a time, so the database is
    never held for the whole import and annotators' saves go through meanwhile; if any
    batch fails, the documents already written by this import are deleted again."""
    if records is None:
        records = read_documents(path, fmt)
    result = store_documents(session, project, records, str(path), update=update,
                             progress=progress, in_batches=in_batches and not update)
    audit.record(
        session, "documents.imported", user_id=user_id, project_id=project.id,
        object_type="project", object_id=project.id, file=path.name,
        created=result.created, updated=result.updated,
    )
    return result


def import_uploads(
    session: Session,
    project: Project,
    uploads: list[tuple[str, bytes]],
    fmt: str | None = None,
    *,
    user_id: int | None = None,
) -> ImportResult:
    """Files sent from the web page, ``(name, bytes)`` each, as ONE import: every file is
    read and checked first and the problems of all of them are raised together; then
    everything is stored in the caller's transaction (a clash found while storing, such as
    an id in two files, raises too: the caller rolls back, nothing is kept)."""
    if not uploads:
        raise IngestError([Problem("(no file)", None, None, "choose at least one file")])
    read: list[tuple[str, list[DocumentRecord]]] = []
    problems: list[Problem] = []
    for name, raw in uploads:
        try:
            read.append((name, read_uploaded_documents(raw, name, fmt)))
        except IngestError as exc:
            problems.extend(exc.problems)
    if problems:
        raise IngestError(problems)
    created = updated = 0
    for name, records in read:
        result = store_documents(session, project, records, name)
        audit.record(session, "documents.imported", user_id=user_id, project_id=project.id,
                     object_type="project", object_id=project.id, file=name,
                     created=result.created, updated=result.updated)
        created, updated = created + result.created, updated + result.updated
    return ImportResult(created=created, updated=updated)


def store_documents(
    session: Session,
    project: Project,
    records: list[DocumentRecord],
    file_name: str,
    *,
    update: bool = False,
    progress: Callable[[int, int], None] | None = None,
    in_batches: bool = False,
) -> ImportResult:
    existing = _existing(session, project, [r.external_id for r in records])
    annotated = _annotated(session, [d.id for d in existing.values()]) if update else set()
    problems = []
    for record in records:
        doc = existing.get(record.external_id)
        if doc is None:
            continue
        if not update:
            problems.append(Problem(file_name, record.line, "id",
                                    f"document {record.external_id!r} already exists in project "
                                    f"{project.name!r} (use --update to replace documents that "
                                    "have no annotations yet)"))
        elif doc.id in annotated:
            problems.append(Problem(file_name, record.line, "id",
                                    f"document {record.external_id!r} already has annotations "
                                    "and cannot be replaced"))
    if problems:
        raise IngestError(problems)

    next_position = (session.scalar(
        select(func.max(Document.position)).where(Document.project_id == project.id)
    ) or 0) + 1
    created = updated = 0
    batch: list[dict] = []  # new documents' rows, written BATCH_SIZE at a time
    committed: list[int] = []  # ids written by earlier batches, deleted again on failure

    def insert_rows() -> list[int]:
        # Each new document gets its data-manager entry ('unassigned', counted) in the same
        # transaction (study.document_status.add_entries): whoever stores documents adds
        # their entries, no ORM event does it behind a caller's back.
        ids = session.execute(insert(DOCUMENTS).returning(DOCUMENTS.c.id),
                              batch).scalars().all()
        batch.clear()
        add_entries(session.connection(), project.id, list(ids))
        return ids

    def write_batch() -> None:
        # New documents are inserted as rows (one executemany into the table), not as ORM
        # objects: no object of the session refers to a document not yet stored, and the
        # table's insert skips the ORM's per-row bulk bookkeeping (a third of the time per
        # document; benchmarks/bench_import_labelstudio.py). Column defaults (version,
        # created_at) are the table's own, so the rows are those the ORM wrote
        # (tests/test_import_bulk_rows.py).
        if batch:
            ids = insert_rows()
            if in_batches:
                committed.extend(ids)
        session.flush()
        if in_batches:
            session.commit()

    try:
        for done, record in enumerate(records, start=1):
            doc = existing.get(record.external_id)
            if doc is None:
                batch.append(document_row(project.id, record, next_position + created))
                created += 1
            else:
                _replace(doc, record)
                updated += 1
            if done % BATCH_SIZE == 0:
                write_batch()
            if progress is not None:
                progress(done, len(records))
        if batch:  # the last, partial batch: the caller commits it
            insert_rows()
        session.flush()
        chunks = []
        if created or updated:  # queued in the import's last transaction: all or nothing
            chunks = queue_prehighlight(session, project.id)
    except BaseException:
        if in_batches and committed:
            _undo(session, committed)
        raise
    return ImportResult(created=created, updated=updated,
                        prehighlight_job=chunks[0].id if chunks else None,
                        prehighlight_chunks=len(chunks))


def _undo(session: Session, document_ids: list[int]) -> None:
    """Delete what the failed import committed, in batches (the all-or-nothing promise)."""
    session.rollback()
    for start in range(0, len(document_ids), BATCH_SIZE):
        remove_entries(session.connection(), document_ids[start:start + BATCH_SIZE])
        session.execute(delete(Document).where(
            Document.id.in_(document_ids[start:start + BATCH_SIZE])))
        session.commit()


def _replace(doc: Document, record: DocumentRecord) -> None:
    """Replace ``doc``'s texts (a document without annotations, ``--update``)."""
    for key, value in document_texts(record).items():
        setattr(doc, key, value)
    doc.suggestions.clear()  # pre-highlights of the old text no longer apply
    doc.prehighlighted_at = None


def _existing(session: Session, project: Project, ids: list[str]) -> dict[str, Document]:
    found: dict[str, Document] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for doc in session.scalars(select(Document).where(
            Document.project_id == project.id, Document.external_id.in_(chunk)
        )):
            found[doc.external_id] = doc
    return found


def _annotated(session: Session, document_ids: list[int]) -> set[int]:
    """The documents among ``document_ids`` that carry any edit or rating."""
    found: set[int] = set()
    for start in range(0, len(document_ids), 500):
        chunk = document_ids[start:start + 500]
        for model in (Edit, Rating):
            found.update(session.scalars(
                select(Assignment.document_id).join(model, model.assignment_id == Assignment.id)
                .where(Assignment.document_id.in_(chunk)).distinct()))
    return found
