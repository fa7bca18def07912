"""Who may see what. Checks run on the server for every request: hiding a link is not
access control."""

from __future__ import annotations

from functools import wraps

from flask import abort, current_app, g, redirect, request, session, url_for
from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.models import Assignment, Project, ProjectMember, User


def db() -> Session:
    """The request's database session (closed at teardown)."""
    if "db_session" not in g:
        g.db_session = current_app.extensions["annotator_db"].sessions()
    return g.db_session


def load_user() -> User | None:
    if "user" not in g:
        user_id = session.get("user_id")
        user = db().get(User, user_id) if user_id else None
        # A cookie from before the user's last logout, password change or deactivation
        # carries an older generation: it no longer opens anything.
        valid = (user is not None and user.active
                 and session.get("generation") == user.session_generation)
        g.user = user if valid else None
    return g.user


def login_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        if load_user() is None:
            if request.path.startswith("/api/"):
                abort(401)
            return redirect(url_for("auth.login", next=request.full_path))
        return view(*args, **kwargs)

    return wrapped


def lead_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        user = load_user()
        if user is None:
            return redirect(url_for("auth.login", next=request.full_path))
        if not user.is_lead:
            abort(403)
        return view(*args, **kwargs)

    return wrapped


def can_lead(user: User, project: Project) -> bool:
    """Admins lead every project; a lead leads the projects they are a lead member of."""
    if user.role == "admin":
        return True
    if user.role != "lead":
        return False
    return db().scalar(
        select(ProjectMember.id).where(
            ProjectMember.project_id == project.id,
            ProjectMember.user_id == user.id,
            ProjectMember.role == "lead",
        )
    ) is not None


def project_for_lead(project_id: int) -> Project:
    project = db().get(Project, project_id)
    if project is None or not can_lead(load_user(), project):
        abort(404)
    return project


def assignment_for_viewer(assignment_id: int) -> Assignment:
    """The annotator's own assignment, or any assignment in a project the viewer leads.

    Another annotator's assignment is a 404, not a 403: its existence is not disclosed.
    """
    user = load_user()
    assignment = db().get(Assignment, assignment_id)
    if assignment is None:
        abort(404)
    if assignment.user_id == user.id:
        return assignment
    if can_lead(user, assignment.document.project):
        return assignment
    abort(404)
