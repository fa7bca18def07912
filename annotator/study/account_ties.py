"""Who may manage an account (reset its password, change its e-mail, deactivate it, add it
to a project): the one rule every route that manages accounts asks (issue 41, finding 3).

Admins manage everyone. A lead manages an annotator only if every project the annotator
is *tied to* is one she leads; an annotator tied to no project may be managed by any lead
(so a new account can be added to a project). A person is tied to a project by anything
that lets them read or that records their work there:

- membership (:class:`~annotator.models.ProjectMember`, any project role);
- an assignment they still hold on one of its documents, tie-break assignments included
  (a lead who removes a member leaves the documents the member holds with them, and an
  annotator from outside may be given a document to break a tie);
- adjudication work: decisions they made, documents whose adjudication they completed
  (a former lead whose role an admin changed to annotator);
- suggestions they accepted or dismissed.

Membership alone is not enough: a lead who could reset the password of an annotator a
second lead just removed (but who still holds that lead's documents) would log in as them
and read the other project (the probe of issue 41). Audit events are not ties: they
record what happened (logins included) and never grant access.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.models import (
    AdjudicationDecision,
    AdjudicationState,
    Assignment,
    Document,
    ProjectMember,
    Suggestion,
    SuggestionAction,
    User,
)


def _tie_queries(user_ids: list[int]):
    """(user id, project id) of every kind of tie, one query per kind."""
    yield select(ProjectMember.user_id, ProjectMember.project_id).where(
        ProjectMember.user_id.in_(user_ids))
    yield select(Assignment.user_id, Document.project_id).join(
        Document, Document.id == Assignment.document_id).where(Assignment.user_id.in_(user_ids))
    yield select(AdjudicationDecision.user_id, Document.project_id).join(
        Document, Document.id == AdjudicationDecision.document_id).where(
        AdjudicationDecision.user_id.in_(user_ids))
    yield select(AdjudicationState.completed_by_id, Document.project_id).join(
        Document, Document.id == AdjudicationState.document_id).where(
        AdjudicationState.completed_by_id.in_(user_ids))
    yield select(SuggestionAction.user_id, Document.project_id).join(
        Suggestion, Suggestion.id == SuggestionAction.suggestion_id).join(
        Document, Document.id == Suggestion.document_id).where(
        SuggestionAction.user_id.in_(user_ids))


def tied_projects(session: Session, user_ids: Iterable[int]) -> dict[int, set[int]]:
    """The projects each user is tied to (see the module docstring); every given id is a
    key, with an empty set for someone tied to nothing."""
    ids = sorted(set(user_ids))
    ties: dict[int, set[int]] = {user_id: set() for user_id in ids}
    if not ids:
        return ties
    for query in _tie_queries(ids):
        for user_id, project_id in session.execute(query.distinct()):
            ties[user_id].add(project_id)
    return ties


def led_projects(session: Session, viewer: User) -> set[int]:
    """The ids of the projects ``viewer`` is a lead member of."""
    return set(session.scalars(select(ProjectMember.project_id).where(
        ProjectMember.user_id == viewer.id, ProjectMember.role == "lead")))


def manageable(session: Session, viewer: User, users: Iterable[User]) -> set[int]:
    """The ids of those of ``users`` whom ``viewer`` may manage: the rule of this module,
    for a whole list at once (the users page)."""
    users = list(users)
    if viewer.role == "admin":
        return {user.id for user in users}
    if viewer.role != "lead":
        return set()
    annotators = [user for user in users if user.role == "annotator"]
    ties = tied_projects(session, (user.id for user in annotators))
    led = led_projects(session, viewer)
    return {user.id for user in annotators if ties[user.id] <= led}


def may_manage(session: Session, viewer: User, user: User) -> bool:
    """Whether ``viewer`` may manage the account ``user`` (module docstring)."""
    return user.id in manageable(session, viewer, [user])
