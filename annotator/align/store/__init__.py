"""Running the alignment engine over a project and storing its suggestions.

(Learning from the project's annotations, ``--learn`` and the automatic refresh, lives in
:mod:`annotator.align.store.learning`.)

Resumable: a document is marked ``prehighlighted_at`` in the same transaction that stores
its suggestions, and work is committed in chunks, so an interrupted run continues where it
stopped. ``force`` recomputes everything (old suggestions and their accept/dismiss actions
are replaced).

Idempotent per document (issue 44: several workers pre-highlight chunks of one project, and
a chunk whose lease expired may still be running when another worker takes it over): the
run computes first, then marks its documents with one ``UPDATE ... WHERE prehighlighted_at
IS NULL RETURNING id`` and stores suggestions only for the documents that statement
returned. The update locks those rows (PostgreSQL: a second run waits, then finds them
marked; SQLite: writers are serialised), so a document ends with one set of suggestions.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from annotator.align import suggest_many
from annotator.align.settings import AlignSettings
from annotator.core.edit_match import Mark
from annotator.core.overlap import spans_overlap
from annotator.models import Document, Project, Suggestion
from annotator.schemas.files import project_schema
from annotator.study import audit

# What a stored suggestion keeps of an engine suggestion (align.suggestions.Suggestion).
# Besides the kind and spans, these may change when a recomputed suggestion updates its row.
UPDATABLE_FIELDS = ("score", "target_score", "kind_scores", "method", "explanation", "category")


def suggestion_row(suggestion, **columns) -> Suggestion:
    """The database row of an engine suggestion (its ``to_dict`` is the serialisation)."""
    d = suggestion.to_dict()
    return Suggestion(kind=d["kind"], source_spans=d["source_spans"],
                      target_spans=d["target_spans"], **{k: d[k] for k in UPDATABLE_FIELDS},
                      **columns)

CHUNK = 50
MIN_DOCUMENTS_PER_WORKER = 40


@dataclass
class PrehighlightSummary:
    documents: int
    suggestions: int
    skipped: int
    # Of ``documents``: stored by another run (a worker's chunk) while this one computed.
    by_another_run: int = 0


def align_settings(project: Project):
    """The project's thresholds: defaults, overridden by ``project.settings['align']``."""
    overrides = (project.settings or {}).get("align", {})
    known = {f.name for f in fields(AlignSettings)}
    return AlignSettings(**{k: v for k, v in overrides.items() if k in known})


def pending_documents(session: Session, project: Project, force: bool,
                      document_ids: list[int] | None = None) -> list[int]:
    """The project's documents to pre-highlight (of ``document_ids`` only, when given)."""
    query = select(Document.id).where(Document.project_id == project.id)
    if not force:
        query = query.where(Document.prehighlighted_at.is_(None))
    if document_ids is not None:
        query = query.where(Document.id.in_(document_ids))
    return list(session.scalars(query.order_by(Document.position, Document.id)))


def prehighlight_project(
    session: Session,
    project: Project,
    *,
    workers: int = 1,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    user_id: int | None = None,
    chunk: int = CHUNK,
    document_ids: list[int] | None = None,
) -> PrehighlightSummary:
    """Suggestions for the project's documents not yet pre-highlighted (all with ``force``;
    of ``document_ids`` only, a job's chunk, when given), aligned ``chunk`` documents at a
    time and committed one document at a time (each commit is progress others can read;
    ``progress`` is called after it). A document another run stored meanwhile is left as
    that run stored it (module docstring)."""
    schema = project_schema(project)
    detectors = set(schema.prehighlighters) or None
    settings = align_settings(project)
    total = session.scalar(select(func.count(Document.id)).where(
        Document.project_id == project.id))
    pending = pending_documents(session, project, force, document_ids)
    # Each worker process loads the embedding model (seconds): only worth it for many documents.
    workers = max(1, min(workers, len(pending) // MIN_DOCUMENTS_PER_WORKER))
    stored = stored_documents = elsewhere = 0
    for start in range(0, len(pending), chunk):
        documents = session.scalars(select(Document).where(
            Document.id.in_(pending[start:start + chunk])).order_by(Document.position)).all()
        inputs = [_pair(doc) for doc in documents]
        by_id = {str(doc.id): doc for doc in documents}
        for doc_id, suggestions, groups in suggest_many(
                inputs, workers=workers, detectors=detectors, settings=settings,
                with_alignment=True):
            doc = by_id[doc_id]
            # Mark, then store, in one transaction per document: a document another run
            # marked meanwhile is left as that run stored it (module docstring), and the
            # set-up page, which counts the stored marks, moves document by document
            # instead of stalling for a whole chunk and then jumping (issue 43).
            if doc.id not in _mark(session, [doc.id], force):
                elsewhere += 1
            else:
                session.expire(doc, ["suggestions"])  # read them under the row lock
                doc.alignment = sentence_groups(groups, doc.source_sentences,
                                                doc.target_sentences)
                doc.suggestions.clear()
                for s in suggestions:
                    doc.suggestions.append(suggestion_row(s))
                doc.prehighlighted_at = datetime.now(timezone.utc)
                stored += len(suggestions)
            session.commit()
            if progress is not None:  # also the heartbeat: a stopping worker stops here
                progress(stored_documents := stored_documents + 1, len(pending))
    audit.record(session, "prehighlight.run", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, documents=len(pending),
                 suggestions=stored, force=force)
    session.commit()
    return PrehighlightSummary(documents=len(pending), suggestions=stored,
                               skipped=total - len(pending), by_another_run=elsewhere)


def _mark(session: Session, document_ids: list[int], force: bool) -> set[int]:
    """Mark the documents pre-highlighted now and lock them until the commit; the ids this
    run may store suggestions for (with ``force``: all; else those no run marked before)."""
    moment = datetime.now(timezone.utc)
    query = update(Document).where(Document.id.in_(document_ids))
    if not force:
        query = query.where(Document.prehighlighted_at.is_(None))
    return set(session.scalars(query.values(prehighlighted_at=moment).returning(Document.id)
                               .execution_options(synchronize_session=False)))


def sentence_groups(groups, source_sentences, target_sentences) -> list:
    """Aligned character-span groups as indices of the document's stored sentences:
    ``[[[source_i, ...], [target_j, ...]], ...]``."""
    def covered(span, sentences):
        return [i for i, sentence in enumerate(sentences) if spans_overlap([span], [sentence])]

    result = []
    for source_span, target_span in groups:
        src, tgt = covered(source_span, source_sentences), covered(target_span, target_sentences)
        if src and tgt:
            result.append([src, tgt])
    return result


def _pair(doc: Document) -> dict:
    pair = {"id": str(doc.id), "source": doc.source, "target": doc.target}
    if doc.sentence_pairs:
        pair["sentence_pairs"] = [
            (tuple(doc.source_sentences[i]), tuple(doc.target_sentences[j]))
            for i, j in doc.sentence_pairs
        ]
    return pair


def loss_suggestion_marks(session: Session, project: Project) -> dict:
    """document external id -> the stored deletion / oversimplification suggestions as
    marks of :mod:`annotator.core.edit_match` (keyed like the agreement
    input's documents); a suggestion carrying both kinds is a mark of both."""
    rows = session.execute(select(Document.external_id, Suggestion.kind, Suggestion.source_spans,
                                  Suggestion.kind_scores)
                           .select_from(Suggestion)
                           .join(Document, Document.id == Suggestion.document_id)
                           .where(Document.project_id == project.id,
                                  Suggestion.kind.in_(("deletion", "oversimplification"))))
    out: dict[str, list] = {}
    for doc_id, kind, spans, kind_scores in rows:
        mark = Mark.of(kind, spans or [], also=[k for k in kind_scores or () if k != kind])
        if mark is not None:
            out.setdefault(str(doc_id), []).append(mark)
    return out
