"""User management on the web: admins manage every account; a lead manages an annotator
only if every project the annotator is tied to (member, documents still held, tie-break or
adjudication work: :mod:`annotator.study.account_ties`, the one rule) is one she leads, or
the annotator is tied to no project yet, so a new one can be added. An annotator shared
with another lead's project is managed by an admin, or the lead could reset the password
and read the other project.
An account an import created inactive is activated by an admin only. The
`annotator user` commands stay for scripts. Every form is a POST with the CSRF token."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for
from sqlalchemy import select

from annotator.core.vocabulary import ROLES
from annotator.models import AuditEvent, Project, ProjectMember, User
from annotator.study import audit
from annotator.study.account_ties import manageable, may_manage
from annotator.study.accounts import (
    AccountError,
    create_user,
    set_active,
    set_email,
    set_password,
    set_role,
)
from annotator.study.projects import add_member
from annotator.web.access import can_lead, db, lead_required, load_user
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash
from annotator.web.url_ids import database_id

bp = Blueprint("manage", __name__, url_prefix="/users")


def _led_projects(viewer: User) -> list[Project]:
    projects = db().scalars(select(Project).order_by(Project.name)).all()
    return [p for p in projects if can_lead(viewer, p)]


def _never_activated(user: User) -> bool:
    """An inactive account no one has ever activated or deactivated: an imported owner of
    work (see ``annotations_store._user``), whose first password and activation are an
    admin's decision."""
    if user.active:
        return False
    return db().scalar(select(AuditEvent.id).where(
        AuditEvent.object_type == "user", AuditEvent.object_id == str(user.id),
        AuditEvent.action.in_(("user.activated", "user.deactivated"))).limit(1)) is None


def _managed_user(user_id: int) -> tuple[User, User, list[Project]]:
    """The account to change, or 404 when the viewer may not manage it (not disclosed)."""
    viewer = load_user()
    user = db().get(User, user_id)
    led = _led_projects(viewer)
    if user is None or not may_manage(db(), viewer, user):
        abort(404)
    if viewer.role != "admin" and _never_activated(user) and request.endpoint in (
            "manage.password", "manage.active"):
        abort(403)
    return viewer, user, led


def _done(message: str):
    commit_work()
    flash(message, "ok")
    return redirect(url_for("manage.users"))


def _refused(exc: Exception):
    """The users page again with the reason, answered 422: a refused form (a password
    under the minimum, a bad e-mail) is an error the server states itself, whatever the
    browser's own checks let through (issue 35)."""
    db().rollback()
    flash(f"Not changed: {exc}", "error")
    return users(), 422


@bp.route("/")
@lead_required
def users():
    viewer = load_user()
    led = _led_projects(viewer)
    led_ids = {p.id for p in led}
    everyone = db().scalars(select(User).order_by(User.username)).all()
    managed = manageable(db(), viewer, everyone)
    shown = [u for u in everyone if u.id in managed]
    memberships: dict[int, list[tuple[Project, str]]] = {}
    for member, project in db().execute(select(ProjectMember, Project).join(Project)
                                        .order_by(Project.name)):
        memberships.setdefault(member.user_id, []).append((project, member.role))
    return render_template("users.html", users=shown, memberships=memberships, projects=led,
                           led_ids=led_ids,
                           roles=ROLES if viewer.role == "admin" else ("annotator",),
                           viewer=viewer)


@bp.route("/", methods=["POST"])
@lead_required
def create():
    viewer = load_user()
    role = request.form.get("role", "annotator")
    if viewer.role != "admin" and role != "annotator":
        return _refused(AccountError("role: leads create annotators only"))
    try:
        user = create_user(db(), request.form.get("username", ""),
                           request.form.get("password", ""), role)
        if request.form.get("email", "").strip():
            set_email(db(), user, request.form["email"], by=viewer.id)
        project_id = request.form.get("project_id", type=database_id)
        if project_id:
            project = next((p for p in _led_projects(viewer) if p.id == project_id), None)
            if project is None:
                raise AccountError(f"project: no project {project_id} that you lead")
            add_member(db(), project, user, "lead" if role == "lead" else "annotator")
    except AccountError as exc:
        return _refused(exc)
    return _done(f"Account {user.username} ({role}) created.")


@bp.route("/<int:user_id>/email", methods=["POST"])
@lead_required
def email(user_id: int):
    viewer, user, _ = _managed_user(user_id)
    try:
        set_email(db(), user, request.form.get("email", ""), by=viewer.id)
    except AccountError as exc:
        return _refused(exc)
    return _done(f"E-mail of {user.username} " + (f"set to {user.email}." if user.email
                                                   else "cleared."))


@bp.route("/<int:user_id>/password", methods=["POST"])
@lead_required
def password(user_id: int):
    viewer, user, _ = _managed_user(user_id)
    try:
        set_password(db(), user, request.form.get("password", ""), by=viewer.id)
    except AccountError as exc:
        return _refused(exc)
    return _done(f"Password of {user.username} reset: give them the new one in person.")


@bp.route("/<int:user_id>/active", methods=["POST"])
@lead_required
def active(user_id: int):
    viewer, user, _ = _managed_user(user_id)
    wanted = request.form.get("active") == "1"
    try:
        set_active(db(), user, wanted, by=viewer.id)
    except AccountError as exc:
        return _refused(exc)
    return _done(f"{user.username} " + (
        "reactivated." if wanted else "deactivated: they can no longer log in; their work stays."))


@bp.route("/<int:user_id>/role", methods=["POST"])
@lead_required
def role(user_id: int):
    viewer, user, _ = _managed_user(user_id)
    if viewer.role != "admin":
        abort(403)
    try:
        set_role(db(), user, request.form.get("role", ""), by=viewer.id)
    except AccountError as exc:
        return _refused(exc)
    return _done(f"{user.username} is now {user.role}.")


@bp.route("/<int:user_id>/projects", methods=["POST"])
@lead_required
def join(user_id: int):
    viewer, user, led = _managed_user(user_id)
    chosen = request.form.get("project_id", type=database_id)
    project = next((p for p in led if p.id == chosen), None)
    if project is None:
        return _refused(AccountError("project: choose a project you lead"))
    add_member(db(), project, user, "lead" if user.role == "lead" else "annotator")
    audit.record(db(), "project.member_added", user_id=viewer.id, project_id=project.id,
                 object_type="user", object_id=user.id)
    return _done(f"{user.username} is a member of {project.name}.")


@bp.route("/<int:user_id>/projects/<int:project_id>/remove", methods=["POST"])
@lead_required
def leave(user_id: int, project_id: int):
    viewer, user, led = _managed_user(user_id)
    if project_id not in {p.id for p in led}:
        abort(404)
    member = db().scalar(select(ProjectMember).where(ProjectMember.user_id == user.id,
                                                     ProjectMember.project_id == project_id))
    if member is None:
        return _refused(AccountError(f"{user.username} is not a member of that project"))
    if member.user_id == viewer.id:
        return _refused(AccountError("you cannot leave a project you lead from here"))
    name = member.project.name
    db().delete(member)
    audit.record(db(), "project.member_removed", user_id=viewer.id, project_id=project_id,
                 object_type="user", object_id=user.id)
    return _done(f"{user.username} left {name}: documents they hold stay theirs; new "
                 "assignments skip them.")
