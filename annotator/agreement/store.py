"""From the database to the agreement engine's plain input.

The agreement package is pure (it knows nothing of the database); this module is the one
place that reads a project's documents, edits, ratings and assignments and hands them over
as :class:`annotator.agreement.data.AgreementInput`. Statistics are computed on the
annotators' own work, never on adjudicated gold.
"""

from __future__ import annotations

import threading

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from annotator.agreement.bootstrap import DEFAULT_RESAMPLES
from annotator.agreement.composites import convention_of
from annotator.agreement.data import AgreementInput, Document, Edit, Rating, Span, Work
from annotator.agreement.report import build_report
from annotator.core.serialise import edit_to_dict
from annotator.models import Assignment, Project, Suggestion, SuggestionAction
from annotator.models import Document as DocumentRow
from annotator.models import Edit as EditRow
from annotator.models import Rating as RatingRow
from annotator.schemas.files import project_schema


def bootstrap_settings(project: Project) -> dict:
    """The project's bootstrap: ``settings["agreement"]`` ``{"bootstrap": B, "seed": S}``
    (default 1000 resamples, seed 0). Every report a release ships (web or command line)
    uses it, so two releases of the same data carry byte-identical agreement files."""
    stored = (project.settings or {}).get("agreement", {})
    return {"bootstrap": int(stored.get("bootstrap", DEFAULT_RESAMPLES)),
            "seed": int(stored.get("seed", 0))}


def save_agreement_settings(project: Project, *, bootstrap: int | None = None,
                            seed: int | None = None, constituents: str | None = None) -> dict:
    """Store the project's own bootstrap, seed and constituent convention (issue 34: how
    constituents of composite edits count, :data:`composites.CONVENTIONS`), checked here so
    that a report is never the first to find a bad value."""
    current = bootstrap_settings(project)
    if bootstrap is not None:
        current["bootstrap"] = int(bootstrap)
    if seed is not None:
        current["seed"] = int(seed)
    if constituents is not None:
        current["constituents"] = convention_of({"agreement": {"constituents": constituents}})
    settings = dict(project.settings or {})
    settings["agreement"] = {**settings.get("agreement", {}), **current}
    project.settings = settings  # a new dict, so the JSON column is seen as changed
    return current


def load_agreement_input(session: Session, project: Project, *, embed=None,
                         constituents: str | None = None) -> AgreementInput:
    """The project's agreement input; ``constituents`` overrides the project's convention
    for this report only."""
    documents = [
        Document(id=doc.external_id, source=doc.source, target=doc.target,
                 source_sentences=[tuple(s) for s in doc.source_sentences],
                 target_sentences=[tuple(s) for s in doc.target_sentences],
                 meta=dict(doc.meta or {}))
        for doc in session.scalars(select(DocumentRow).where(DocumentRow.project_id == project.id)
                                   .order_by(DocumentRow.position, DocumentRow.id))
    ]
    assignments = session.scalars(
        select(Assignment).join(DocumentRow).where(DocumentRow.project_id == project.id)
        .options(selectinload(Assignment.edits).selectinload(EditRow.spans),
                 selectinload(Assignment.ratings),
                 selectinload(Assignment.user), selectinload(Assignment.document))
        .order_by(Assignment.id)
    ).all()
    edits, ratings, work = [], [], []
    for a in assignments:
        doc_id, name = a.document.external_id, a.user.username
        # An import whose file carried no time (e.g. Thresh records without _seconds_spent)
        # leaves the time unknown: not a zero in the median seconds per document.
        unknown = (a.meta or {}).get("seconds_unknown") and not a.seconds_spent
        work.append(Work(document_id=doc_id, annotator=name,
                         seconds=None if unknown else a.seconds_spent,
                         status=a.status))
        for row in a.edits:
            e = edit_to_dict(row)
            edits.append(Edit(id=str(e["id"]), document_id=doc_id, annotator=name,
                              edit_type=e["edit_type"], fields=e["fields"],
                              spans=[Span(**s) for s in e["spans"]],
                              parent_id=None if e["parent_id"] is None
                              else str(e["parent_id"])))
        for r in a.ratings:
            if r.value is not None:
                ratings.append(Rating(document_id=doc_id, annotator=name, level=r.level,
                                      item=r.item, field=r.field, value=r.value))
    return AgreementInput(schema=project_schema(project), documents=documents, edits=edits,
                          ratings=ratings, work=work, embed=embed,
                          constituents=convention_of(
                              {"agreement": {"constituents": constituents}} if constituents
                              else project.settings))


def change_marker(session: Session, project: Project) -> tuple:
    """Cheap fingerprint of everything the agreement depends on: recompute when it moves."""
    in_project = select(Assignment.id).join(DocumentRow).where(
        DocumentRow.project_id == project.id).scalar_subquery()
    edits = session.execute(select(func.count(EditRow.id), func.max(EditRow.updated_at))
                            .where(EditRow.assignment_id.in_(in_project))).one()
    ratings = session.execute(select(func.count(RatingRow.id), func.max(RatingRow.updated_at))
                              .where(RatingRow.assignment_id.in_(in_project))).one()
    statuses = session.execute(select(func.count(Assignment.id), func.max(Assignment.updated_at))
                               .where(Assignment.id.in_(in_project))).one()
    documents = session.scalar(select(func.count(DocumentRow.id)).where(
        DocumentRow.project_id == project.id))
    return (documents, *map(str, (*edits, *ratings, *statuses)))



def prehighlighter_precision(session: Session, project: Project) -> dict:
    """Per suggestion kind (its primary kind): how many suggestions there are, how many
    annotator reviews they call for (each suggestion is shown to every annotator holding
    its document), how many of those reviews accepted or dismissed it, how many are still
    open, and the precision that implies (accepted / acted on). A suggestion reviewed by
    three annotators counts once under ``suggestions`` and three times under ``reviews``,
    so ``accepted + dismissed + open == reviews`` (issue 43: the page showed 3 suggestions
    beside 2 accepted + 2 dismissed)."""
    holders = (select(func.count(Assignment.id))
               .where(Assignment.document_id == Suggestion.document_id)
               .correlate(Suggestion).scalar_subquery())
    shown = session.execute(
        select(Suggestion.kind, func.count(Suggestion.id), func.coalesce(func.sum(holders), 0))
        .join(DocumentRow).where(DocumentRow.project_id == project.id)
        .group_by(Suggestion.kind)).all()
    acted = session.execute(
        select(Suggestion.kind, SuggestionAction.action, func.count(SuggestionAction.id))
        .join(Suggestion, Suggestion.id == SuggestionAction.suggestion_id)
        .join(DocumentRow, DocumentRow.id == Suggestion.document_id)
        .where(DocumentRow.project_id == project.id)
        .group_by(Suggestion.kind, SuggestionAction.action)).all()
    result = {kind: {"suggestions": count, "reviews": int(reviews), "accepted": 0,
                     "dismissed": 0}
              for kind, count, reviews in sorted(shown)}
    for kind, action, count in acted:
        result.setdefault(kind, {"suggestions": 0, "reviews": 0, "accepted": 0,
                                 "dismissed": 0})[action] = count
    for entry in result.values():
        decided = entry["accepted"] + entry["dismissed"]
        # An action of an annotator who no longer holds the document still counts as a
        # review: open never goes below zero and the columns still add up.
        entry["reviews"] = max(entry["reviews"], decided)
        entry["open"] = entry["reviews"] - decided
        entry["precision"] = round(entry["accepted"] / decided, 4) if decided else None
    return result


# The agreement summary on the lead's project page, cached per project: recomputed only
# when the project's annotations (change_marker) or its settings change. It runs
# the report's own computation with the project's bootstrap (resamples and seed), so the
# intervals and the resample count it shows are those of the full report (issue 43).
_cache: dict[int, tuple[tuple, dict]] = {}
_lock = threading.Lock()


def live_summary(session: Session, project: Project) -> dict:
    settings = bootstrap_settings(project)
    marker = (change_marker(session, project), project.version, settings["bootstrap"],
              settings["seed"])
    with _lock:
        cached = _cache.get(project.id)
    if cached is not None and cached[0] == marker:
        return cached[1]
    report = build_report(load_agreement_input(session, project),
                          bootstrap=settings["bootstrap"], seed=settings["seed"])
    summary = {"counts": report["counts"], "rows": report["interpretation"],
               "warnings": report["warnings"], "settings": report["settings"],
               "spans": {side: {kind: entry[kind]["macro"] for kind in ("exact", "partial")
                                if kind in entry}
                         for side, entry in report["spans"].items()}}
    with _lock:
        _cache[project.id] = (marker, summary)
    return summary
