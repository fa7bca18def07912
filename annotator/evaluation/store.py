"""Database side of the evaluation modes: drawing the sample, assigning items to raters,
mining recall candidates, and reading ratings back as the plain data of the statistics
modules. Ratings are Rating rows at level 'qa' with item = str(QA item id) (qa-quality) or
'p<pair id>' (qa-recall); third annotators' tie-break assignments are left out."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from annotator.adjudication.store import tiebreak_assignment_ids
from annotator.annotate.assignment import AssignmentError, annotator_pool
from annotator.annotate.modes import project_mode
from annotator.evaluation import recall as recall_stats
from annotator.evaluation.sampling import Candidate, stratified_sample
from annotator.models import Assignment, Document, EvalQAItem, EvalRecallPair, Project, Rating
from annotator.schemas.files import project_schema
from annotator.study import audit
from annotator.study.projects import add_member
from annotator.study.queue_marks import document_changed


def pair_item(pair_id: int) -> str:
    return f"p{pair_id}"


def qa_items(session: Session, project: Project, **where) -> list[EvalQAItem]:
    query = select(EvalQAItem).where(EvalQAItem.project_id == project.id)
    for key, value in where.items():
        query = query.where(getattr(EvalQAItem, key) == value)
    return list(session.scalars(query.order_by(EvalQAItem.id)))


# ---------------------------------------------------------------- sample and assignment


def draw_sample(session: Session, project: Project, per_model: int, seed: int = 0,
                user_id: int | None = None) -> list[int]:
    """Mark the stratified sample (replacing an earlier one) and return the item ids."""
    items = qa_items(session, project, origin="model", valid=True)
    chosen = stratified_sample([Candidate(i.id, i.model, i.section) for i in items],
                               per_model, seed)
    session.execute(update(EvalQAItem).where(EvalQAItem.project_id == project.id)
                    .values(sampled=False))
    if chosen:
        session.execute(update(EvalQAItem).where(EvalQAItem.id.in_(chosen)).values(sampled=True))
    settings = dict(project.settings or {})
    settings["evaluation"] = {**settings.get("evaluation", {}), "sample": {
        "per_model": per_model, "seed": seed, "items": len(chosen)}}
    project.settings = settings
    session.flush()
    audit.record(session, "evaluation.sampled", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, per_model=per_model, seed=seed,
                 items=len(chosen))
    return chosen


def documents_to_rate(session: Session, project: Project) -> dict[int, int]:
    """document id -> number of items to rate there, as the project's mode counts them."""
    count = project_mode(project).hook("rated_documents")
    return count(session, project) if count is not None else {}


def documents_with_sampled_items(session: Session, project: Project) -> dict[int, int]:
    """qa-quality: the QA pairs drawn into the rating sample."""
    return dict(Counter(session.scalars(select(EvalQAItem.document_id).where(
        EvalQAItem.project_id == project.id, EvalQAItem.sampled.is_(True)))))


def documents_with_candidate_pairs(session: Session, project: Project) -> dict[int, int]:
    """qa-recall: the (reference, model) pairs mined as candidates."""
    return dict(Counter(session.scalars(select(EvalRecallPair.document_id).where(
        EvalRecallPair.project_id == project.id, EvalRecallPair.candidate.is_(True)))))


def assign_items(session: Session, project: Project, usernames: list[str] | None = None,
                 per_item: int = 2, user_id: int | None = None) -> int:
    """Give every document holding items to rate to ``per_item`` raters, balancing the
    number of items each rater holds; returns the number of assignments created."""
    pool = annotator_pool(session, project, usernames)
    if len(pool) < per_item:
        raise AssignmentError(f"{per_item} raters per item needed, the pool has {len(pool)}")
    for user in pool:
        add_member(session, project, user, "annotator")
    todo = documents_to_rate(session, project)
    held: dict[int, set[int]] = {}
    load: Counter[int] = Counter()
    for doc_id, uid in session.execute(select(Assignment.document_id, Assignment.user_id)
                                       .join(Document).where(Document.project_id == project.id)):
        held.setdefault(doc_id, set()).add(uid)
        load[uid] += todo.get(doc_id, 0)
    order = {u.id: i for i, u in enumerate(pool)}
    created = 0
    for doc_id in sorted(todo):
        have = held.setdefault(doc_id, set())
        for user in sorted((u for u in pool if u.id not in have),
                           key=lambda u: (load[u.id], order[u.id]))[:per_item - len(have)]:
            session.add(Assignment(document_id=doc_id, user_id=user.id))
            have.add(user.id)
            load[user.id] += todo[doc_id]
            created += 1
    session.flush()
    document_changed(session, *todo)
    audit.record(session, "evaluation.assigned", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, created=created)
    return created


# ---------------------------------------------------------------- recall candidates


def mine_recall(session: Session, project: Project, embedder, threshold: float | None = None,
                user_id: int | None = None) -> dict:
    """Store every (reference, model QA) pair of each document with its similarity and
    candidate flag; returns counts and the share of comparisons saved."""
    threshold = recall_stats.DEFAULT_THRESHOLD if threshold is None else float(threshold)
    texts = {}
    for origin in ("reference", "model"):
        texts[origin] = [recall_stats.QAText(i.id, str(i.document_id),
                                             recall_stats.qa_text(i.question, i.answer))
                         for i in qa_items(session, project, origin=origin, valid=True)]
    existing = {(p.reference_id, p.prediction_id): p for p in session.scalars(
        select(EvalRecallPair).where(EvalRecallPair.project_id == project.id))}
    mined = recall_stats.mine_pairs(texts["reference"], texts["model"], embedder, threshold)
    for ref, pred, sim, cand in mined:
        pair = existing.get((ref, pred))
        if pair is None:
            doc = int(next(t.document for t in texts["reference"] if t.id == ref))
            session.add(EvalRecallPair(project_id=project.id, document_id=doc,
                                       reference_id=ref, prediction_id=pred, similarity=sim,
                                       candidate=cand))
        else:
            pair.similarity, pair.candidate = sim, cand
    candidates = sum(1 for m in mined if m[3])
    summary = {"threshold": threshold, "pairs": len(mined), "candidates": candidates,
               "saved": recall_stats.saved_share(len(mined), candidates)}
    settings = dict(project.settings or {})
    settings["evaluation"] = {**settings.get("evaluation", {}), "recall": summary}
    project.settings = settings
    session.flush()
    audit.record(session, "evaluation.recall_mined", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, **summary)
    return summary


def recall_pairs(session: Session, project: Project, document_id: int | None = None,
                 candidates_only: bool = True) -> list[EvalRecallPair]:
    query = select(EvalRecallPair).where(EvalRecallPair.project_id == project.id)
    if document_id is not None:
        query = query.where(EvalRecallPair.document_id == document_id)
    if candidates_only:
        query = query.where(EvalRecallPair.candidate.is_(True))
    return list(session.scalars(query.order_by(EvalRecallPair.id)))


# ---------------------------------------------------------------- ratings


def original_ratings(session: Session, project: Project, level: str):
    """(assignment, rating) of the project's original annotators at ``level``."""
    doc_ids = list(session.scalars(select(Document.id).where(Document.project_id == project.id)))
    excluded = tiebreak_assignment_ids(session, doc_ids) if doc_ids else set()
    rows = session.execute(
        select(Assignment, Rating).join(Rating, Rating.assignment_id == Assignment.id)
        .join(Document, Document.id == Assignment.document_id)
        .where(Document.project_id == project.id, Rating.level == level)
        .order_by(Rating.id))
    return [(a, r) for a, r in rows if a.id not in excluded]


def rating_options(project: Project, level: str) -> dict[str, list]:
    return {spec.name: spec.option_values() for spec in project_schema(project).ratings
            if spec.level == level and spec.type != "text"}
