"""Logging in and out, and the session checks every request goes through."""

from __future__ import annotations

from urllib.parse import urlparse

from flask import (
    Blueprint,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from annotator.study import audit
from annotator.study.accounts import end_sessions, find_user, password_matches
from annotator.study.throttle import ThrottlePolicy, attempt_succeeded, reserve_attempt
from annotator.web.access import db, load_user
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash

bp = Blueprint("auth", __name__)

# Endpoints an anonymous visitor may reach; everything else answers with the login page
# (or 401 for the API) before any other code looks at the request, so nothing about what
# exists (assignment ids, projects) leaks to someone who is not logged in.
PUBLIC_ENDPOINTS = {"auth.login", "auth.logout", "static", "health.healthz"}


@bp.before_app_request
def anonymous_get_the_login_page_first():
    if request.endpoint in PUBLIC_ENDPOINTS or load_user() is not None:
        return None
    if request.path.startswith("/api/"):
        abort(401)
    if request.endpoint is None:
        abort(404)
    return redirect(url_for("auth.login", next=request.full_path))


def _policy() -> ThrottlePolicy:
    return current_app.config.get("LOGIN_THROTTLE") or ThrottlePolicy()


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        engine = current_app.extensions["annotator_db"].engine
        # Reserved before the password is checked (atomically), so parallel guesses cannot
        # overshoot the limit, and a correct guess while refused does not reveal itself.
        wait = reserve_attempt(engine, username, request.remote_addr, _policy())
        if wait is not None:
            flash(f"Too many failed attempts. Try again in {int(wait + 0.999)} seconds.",
                  "error")
            response = current_app.make_response(
                (render_template("login.html", username=username), 429))
            response.headers["Retry-After"] = str(int(wait + 0.999))
            return response
        found = find_user(db(), username)
        # The read ends here and its connection goes back to the pool before the password
        # is hashed (a deliberately slow ~0.1-0.3 s) and before the throttle's bookkeeping
        # takes one of its own: a request holding one connection while it waits for a
        # second is how 20 simultaneous logins emptied the pool into 500s (issue 41,
        # finding 8). (Sessions keep their objects after a commit.)
        commit_work()
        user = password_matches(found, request.form.get("password", ""))
        if user is None:
            audit.record(db(), "login.failed", object_type="login", object_id=username[:64],
                         address=request.remote_addr)
            commit_work()
            flash("Unknown user name or wrong password.", "error")
            return render_template("login.html", username=username), 401
        attempt_succeeded(engine, username, request.remote_addr)
        session.clear()
        session["user_id"] = user.id
        session["generation"] = user.session_generation
        session.permanent = True
        audit.record(db(), "login", user_id=user.id)
        commit_work()
        return redirect(_safe_next(request.args.get("next")) or url_for("documents.home"))
    return render_template("login.html", username="")


@bp.post("/logout")
def logout():
    user = load_user()
    if user is not None:
        # Ends every session of the user, including cookies copied before this logout.
        end_sessions(db(), user, "logout")
        commit_work()
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
