"""Learning from a project's own annotations: the database side of :mod:`.learning`.

``annotator prehighlight PROJECT --learn`` and the automatic refresh (:mod:`.auto_refresh`,
a job a worker runs) both call :func:`learn_project`: refit the deletion /
oversimplification ranker on the project's completed documents, store it in
``project.settings['align']['loss_model']``, then re-rank the loss suggestions of the
documents still open (:func:`rerank_open_documents`).

The lead's switches live in ``project.settings['prehighlight']``:

- ``auto_learn`` (bool): refit before every ``prehighlight`` run, and while annotators
  work, after every ``refit_every`` newly completed documents;
- ``refit_every`` (int, default :data:`DEFAULT_REFIT_EVERY`);
- ``last_fit``: ``{"completed": n, "at": ISO time}``, written by every refit, so "newly
  completed since the last fit" is ``completed now - n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from annotator.align import suggest_many
from annotator.align.embeddings import default_embedder
from annotator.align.learning import LearningDocument, learn
from annotator.align.loss_ranker import ranker_from_settings
from annotator.core.edit_match import Mark
from annotator.models import Assignment, Document, Project, Suggestion, SuggestionAction
from annotator.schemas.files import project_schema
from annotator.study import audit

from . import UPDATABLE_FIELDS, _pair, align_settings, suggestion_row

DEFAULT_REFIT_EVERY = 5
LOSS_KINDS = ("deletion", "oversimplification")
CHUNK = 20


@dataclass
class LearnSummary:
    documents: int          # completed documents learnt from
    annotations: int        # annotators' edits of a loss kind used
    actions: int            # accept / dismiss actions used
    thresholds: dict
    refreshed: int          # open documents whose loss suggestions were re-ranked


# ------------------------------------------------------------------ the lead's switches

def _prehighlight_settings(project: Project) -> dict:
    return dict((project.settings or {}).get("prehighlight", {}))


def auto_learn_enabled(project: Project) -> bool:
    """The lead's switch: refit before every ``prehighlight`` run of the project and after
    every ``refit_every`` newly completed documents."""
    return bool(_prehighlight_settings(project).get("auto_learn"))


def refit_every(project: Project) -> int:
    return int(_prehighlight_settings(project).get("refit_every") or DEFAULT_REFIT_EVERY)


def last_fit(project: Project) -> dict:
    return dict(_prehighlight_settings(project).get("last_fit") or {})


def update_settings(session: Session, project: Project, sections: dict[str, dict], *,
                    audit_event: dict | None = None, retry: bool = True) -> bool:
    """Merge ``sections`` (``{"prehighlight": {...}, "align": {...}}``) into the project's
    settings and commit, with the audit event ``audit_event`` (keyword arguments of
    :func:`annotator.study.audit.record`) if given.

    Projects carry a version counter: if another session changed the project in between
    (a lead's switch, a refit in another worker), reload it and apply the change again, up
    to three times; with ``retry=False`` give up at once and return False (a claim that
    lost the race)."""
    for attempt in range(3):
        if audit_event is not None:
            audit.record(session, **audit_event)
        settings = dict(project.settings or {})
        for name, changes in sections.items():
            settings[name] = {**settings.get(name, {}), **changes}
        project.settings = settings
        try:
            session.commit()
            return True
        except StaleDataError:
            session.rollback()
            if not retry:
                return False
            session.refresh(project)
            if attempt == 2:
                raise


def set_auto_learn(session: Session, project: Project, enabled: bool | None = None,
                   every: int | None = None, *, user_id: int | None = None) -> None:
    """Switch automatic learning on or off and/or set how many newly completed documents
    trigger a refit; audited as ``prehighlight.auto_learn``."""
    if every is not None and (not isinstance(every, int) or isinstance(every, bool)
                              or every < 1):
        raise ValueError(f"refit every: expected a whole number of documents >= 1, got {every!r}")
    before = {"auto_learn": auto_learn_enabled(project), "refit_every": refit_every(project)}
    changes = {}
    if enabled is not None:
        changes["auto_learn"] = bool(enabled)
    if every is not None:
        changes["refit_every"] = every
    if not changes:
        return
    update_settings(session, project, {"prehighlight": changes}, audit_event=dict(
        action="prehighlight.auto_learn", user_id=user_id, project_id=project.id,
        object_type="project", object_id=project.id, before=before,
        after={**before, **changes}))


def completed_document_count(session: Session, project: Project) -> int:
    """Documents at least one annotator marked done: the documents a refit learns from."""
    return session.scalar(
        select(func.count(func.distinct(Assignment.document_id))).join(Document)
        .where(Document.project_id == project.id, Assignment.status == "done")) or 0


def newly_completed(session: Session, project: Project) -> int:
    """Completed documents since the last refit (all of them if there was none)."""
    return completed_document_count(session, project) - int(last_fit(project).get("completed", 0))


# ------------------------------------------------------------------ training data

def learning_documents(session: Session, project: Project) -> list:
    """Completed documents (at least one assignment done) with the done annotators'
    loss edits and every accept / dismiss action on their loss suggestions."""
    done = session.scalars(select(Assignment).join(Document).where(
        Document.project_id == project.id, Assignment.status == "done")
        .order_by(Assignment.document_id, Assignment.id)).all()
    by_doc: dict[int, LearningDocument] = {}
    for assignment in done:
        doc = assignment.document
        item = by_doc.setdefault(doc.id, LearningDocument(str(doc.id), doc.source, doc.target))
        marks = []
        for edit in assignment.edits:
            spans = [(s.start, s.end) for s in edit.spans if s.side == "source"]
            mark = Mark.of(edit.edit_type, spans)
            if mark is not None:
                marks.append(mark)
        item.marks[str(assignment.user_id)] = marks
    if by_doc:
        actions = session.execute(
            select(Suggestion.document_id, Suggestion.kind, Suggestion.source_spans,
                   SuggestionAction.action)
            .join(SuggestionAction, SuggestionAction.suggestion_id == Suggestion.id)
            .where(Suggestion.document_id.in_(list(by_doc)))).all()
        for doc_id, kind, spans, action in actions:
            if spans:
                by_doc[doc_id].actions.append(
                    (kind, [tuple(s) for s in spans], action == "accepted"))
    return list(by_doc.values())


# ------------------------------------------------------------------ refit and re-rank

def learn_project(session: Session, project: Project, *, embedder=None, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None,
                  user_id: int | None = None, trigger: str = "learn") -> LearnSummary:
    """Refit the loss ranker on the project's completed documents, store it in
    ``project.settings['align']['loss_model']`` and re-rank the loss suggestions of the
    open documents (:func:`rerank_open_documents`); audited as ``prehighlight.learn``
    with ``trigger`` ("learn", "auto-learn" before a run, "auto-refresh" while
    annotators work)."""
    docs = learning_documents(session, project)
    completed = completed_document_count(session, project)
    session.commit()  # end the read transaction: SQLite writers must not wait for the fit
    if not docs:
        raise ValueError(f"project {project.name!r} has no completed documents to learn from")
    prior = ranker_from_settings((project.settings or {}).get("align", {}).get("loss_model"))
    model = learn(docs, embedder or default_embedder(), prior=prior,
                  trained_on=f"{len(docs)} completed documents of project {project.name}")
    update_settings(session, project, {
        "align": {"loss_model": model.to_dict()},
        "prehighlight": {"last_fit": {
            "completed": completed,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}}})
    refreshed = rerank_open_documents(session, project, embedder=embedder, workers=workers,
                                      progress=progress)
    audit.record(session, "prehighlight.learn", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, documents=len(docs),
                 thresholds=model.thresholds, refreshed=refreshed, trigger=trigger)
    session.commit()
    return LearnSummary(len(docs), sum(len(m) for d in docs for m in d.marks.values()),
                        sum(len(d.actions) for d in docs), model.thresholds, refreshed)


def open_document_ids(session: Session, project: Project) -> list[int]:
    """Pre-highlighted documents nobody has marked done yet."""
    completed = select(Assignment.document_id).where(Assignment.status == "done")
    return list(session.scalars(select(Document.id).where(
        Document.project_id == project.id, Document.prehighlighted_at.is_not(None),
        Document.id.not_in(completed)).order_by(Document.position, Document.id)))


def _key(kind, source_spans, target_spans) -> tuple:
    return (kind, tuple(tuple(s) for s in source_spans or ()),
            tuple(tuple(s) for s in target_spans or ()))


def rerank_open_documents(session: Session, project: Project, *, embedder=None,
                          workers: int = 1,
                          progress: Callable[[int, int], None] | None = None) -> int:
    """Recompute the deletion / oversimplification suggestions of the open documents with
    the project's current model; returns how many documents were re-ranked.

    Suggestions an annotator already accepted or dismissed stay exactly as they are; a
    recomputed suggestion on the same spans as a stored one updates that row in place
    (its id, which an open annotation page holds, survives); the other stored loss
    suggestions are replaced. Other kinds (trailing content, ...) do not depend on the
    model and are left alone. Suggestions are computed before each short write
    transaction, so annotators' saves never wait for the embedding work.
    """
    wanted = set(project_schema(project).prehighlighters or LOSS_KINDS) & set(LOSS_KINDS)
    ids = open_document_ids(session, project)
    session.commit()
    if not ids or not wanted:
        return 0
    settings = align_settings(project)
    done = 0
    for start in range(0, len(ids), CHUNK):
        chunk_ids = ids[start:start + CHUNK]
        inputs = [_pair(doc) for doc in session.scalars(
            select(Document).where(Document.id.in_(chunk_ids)).order_by(Document.position))]
        session.commit()
        fresh = {doc_id: found for doc_id, found in suggest_many(
            inputs, workers=workers, detectors=wanted, settings=settings, embedder=embedder)}
        for doc_id, found in fresh.items():
            _replace_loss_suggestions(session, int(doc_id), found)
            done += 1
            if progress is not None:
                progress(done, len(ids))
        session.commit()
    return done


def _replace_loss_suggestions(session: Session, document_id: int, found) -> None:
    stored = session.scalars(select(Suggestion).where(
        Suggestion.document_id == document_id, Suggestion.kind.in_(LOSS_KINDS))).all()
    acted = set(session.scalars(select(SuggestionAction.suggestion_id).where(
        SuggestionAction.suggestion_id.in_([s.id for s in stored])))) if stored else set()
    by_key = {_key(s.kind, s.source_spans, s.target_spans): s for s in stored}
    kept = set()
    for suggestion in found:
        d = suggestion.to_dict()
        key = _key(d["kind"], d["source_spans"], d["target_spans"])
        row = by_key.get(key)
        if row is not None:
            kept.add(row.id)
            if row.id not in acted:
                for name in UPDATABLE_FIELDS:
                    setattr(row, name, d[name])
            continue
        session.add(suggestion_row(suggestion, document_id=document_id))
    for row in stored:
        if row.id not in kept and row.id not in acted:
            session.delete(row)
