"""Logging in and out."""

from __future__ import annotations

from urllib.parse import urlparse

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from annotator import audit
from annotator.accounts import authenticate
from annotator.web.access import db, load_user

bp = Blueprint("auth", __name__)


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        username = request.form.get("username", "")
        user = authenticate(db(), username, request.form.get("password", ""))
        if user is None:
            audit.record(db(), "login.failed", username=username[:80])
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
