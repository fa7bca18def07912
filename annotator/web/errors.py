"""Error pages inside the layout, with a way back; JSON for API and script requests.

A 500 never shows the exception (it goes to the log); a refused CSRF token says the form
expired instead of a bare "Bad Request".
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import g, jsonify, render_template, request, send_from_directory
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import (
    DisconnectionError,
    InterfaceError,
    OperationalError,
    PendingRollbackError,
)
from werkzeug.exceptions import HTTPException, InternalServerError

from annotator.core.resources import static_dir

PAGES = {
    400: ("Request not understood", "The page received something it could not use."),
    401: ("Please log in", "This page needs you to log in first."),
    403: ("Not allowed", "Your account may not open this page. If you think it should, ask "
          "your lead or an administrator."),
    404: ("Page not found", "There is nothing here, or it is not yours to see."),
    405: ("Not allowed this way", "This address does not take that kind of request."),
    413: ("Too large", "What was sent is larger than the server accepts."),
    503: ("Database unavailable", "The database did not answer (it may be restarting). "
          "Nothing was changed by this request; try again in a few seconds."),
    500: ("Something went wrong", "The server failed to answer this request. Nothing you "
          "entered is lost if it was saved before; try again, and tell your lead if it "
          "keeps happening."),
}


def _wants_json() -> bool:
    # A request that sent JSON (the page's fetch calls: the API, adjudication decisions) is
    # answered in JSON, whatever it says it accepts.
    if request.path.startswith("/api/") or request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > \
        request.accept_mimetypes["text/html"]


def _back() -> str | None:
    """The previous page, only when it is a page of this site."""
    referrer = request.referrer
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != request.host or parts.path == request.path:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def render_error(code: int, detail: str | None = None):
    title, text = PAGES.get(code, PAGES[500] if code >= 500 else PAGES[400])
    if _wants_json():
        return jsonify(error=title.lower(), message=detail or text), code
    try:
        return render_template("error.html", code=code, title=title, text=detail or text,
                               back=_back()), code
    except Exception:  # the layout itself failed (e.g. the database is down): plain text
        return f"{code} {title}. {text}", code, {"Content-Type": "text/plain; charset=utf-8"}


def register(app) -> None:
    @app.errorhandler(CSRFError)
    def csrf_expired(exc):
        return render_error(400, "The form expired or came from another page (its CSRF "
                            "security token was missing or wrong). Reload the "
                            "page and try again.")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.code is None or exc.code < 400:
            return exc
        # Messages written for people (abort(404, "...")) are kept; Werkzeug's defaults
        # are replaced by ours.
        default = type(exc).description
        return render_error(exc.code, exc.description if exc.description != default else None)

    @app.errorhandler(InternalServerError)
    def server_error(exc):
        return render_error(500)

    # The database went away mid-request (a restart, a failover, a dropped connection, a
    # lock held past the busy time-out): the request changed nothing (its transaction is
    # rolled back), so it is a 503 the page or proxy retries, never a 500 that reads like
    # lost work. A session left failed by such an error raises PendingRollbackError.
    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    @app.errorhandler(DisconnectionError)
    @app.errorhandler(PendingRollbackError)
    def database_unavailable(exc):
        app.logger.warning("database unavailable: %s", str(exc).splitlines()[0][:200])
        session = g.pop("db_session", None)
        if session is not None:
            try:
                session.rollback()
                session.close()
            except Exception:  # noqa: BLE001  the connection is gone; nothing to undo
                pass
        response = app.make_response(render_error(503))
        response.headers["Retry-After"] = "2"
        return response

    @app.route("/favicon.ico")
    def favicon():
        return send_from_directory(static_dir(), "favicon.svg", mimetype="image/svg+xml",
                                   max_age=86400)
