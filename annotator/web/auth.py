"""Logging in and out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from urllib.parse import urlparse

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from annotator.study import audit
from sqlalchemy import func, select

from annotator.study.accounts import authenticate
from annotator.models import AuditEvent
from annotator.web.access import db, load_user

bp = Blueprint("auth", __name__)


MAX_FAILURES = 5
FAILURE_WINDOW = timedelta(minutes=15)


def recent_failures(username: str) -> int:
    since = datetime.now(timezone.utc) - FAILURE_WINDOW
    return db().scalar(select(func.count(AuditEvent.id)).where(
        AuditEvent.action == "login.failed", AuditEvent.object_type == "login",
        AuditEvent.object_id == username[:64], AuditEvent.created_at >= since)) or 0


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        # Throttle per user name, whatever the address: guessing one account's password
        # from many machines is throttled too. Checked before the password, so a correct
        # guess during the lock-out does not reveal itself.
        if recent_failures(username) >= MAX_FAILURES:
            flash("Too many failed attempts for this user name. Wait 15 minutes or ask "
                  "your lead to check the account.", "error")
            return render_template("login.html", username=username), 429
        user = authenticate(db(), username, request.form.get("password", ""))
        if user is None:
            audit.record(db(), "login.failed", object_type="login", object_id=username[:64],
                         address=request.remote_addr)
            db().commit()
            flash("Unknown user name or wrong password.", "error")
            return render_template("login.html", username=username), 401
        session.clear()
        session["user_id"] = user.id
        session.permanent = True
        audit.record(db(), "login", user_id=user.id)
        db().commit()
        return redirect(_safe_next(request.args.get("next")) or url_for("documents.home"))
    return render_template("login.html", username="")


@bp.post("/logout")
def logout():
    session.clear()
    return redirect(url_for("auth.login"))


def _safe_next(target: str | None) -> str | None:
    """Only same-site relative paths: never redirect a fresh login to another host."""
    if not target:
        return None
    parsed = urlparse(target)
    if parsed.scheme or parsed.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


@bp.app_context_processor
def inject_user():
    return {"current_user": load_user()}
