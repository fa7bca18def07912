"""``GET /healthz``: whether this server can do its work, for a proxy or a monitor.

No login, no writes: ``{"database": "ok", "migrations": "current", "worker": "alive"}``
with 200, or the same keys with what is wrong and 503. ``database``: a query answers
("ok"), does not ("unreachable"), or answers past the checks' time-outs ("slow");
``migrations``: the database is at this code's newest revision ("behind" after a deploy
whose migration has not run, "ahead" when the code is older than the database);
``worker``: some job worker wrote its heartbeat within
:data:`~annotator.study.jobs.WORKER_ALIVE_SECONDS`. ``?skip=worker`` leaves a check out of
the status code (a proxy that should keep a server in rotation while the workers are down).

The checks run on the database's own health engine (:func:`annotator.db.make_health_engine`:
its own connections, statements stopped after 100 ms), so they never queue behind busy
requests for a connection; ``checked_in_ms`` is how long they took inside the server (a
slower answer seen by a client waited for a free thread of the server, issue 44).
"""

from __future__ import annotations

import time

from flask import Blueprint, current_app, jsonify, request
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError

from annotator.migrations import code_heads, code_revisions, database_heads
from annotator.study import jobs

bp = Blueprint("health", __name__)

CHECKS = ("database", "migrations", "worker")
HEALTHY = {"database": "ok", "migrations": "current", "worker": "alive"}


@bp.get("/healthz")
def healthz():
    skipped = [name for name in request.args.get("skip", "").split(",") if name]
    unknown = [name for name in skipped if name not in CHECKS]
    if unknown:
        return jsonify(error="bad request", message=f"skip: expected some of "
                       f"{', '.join(CHECKS)}, got {','.join(unknown)!r}"), 400
    started = time.perf_counter()
    report = _report(current_app.extensions["annotator_db"].health_engine)
    report["checked_in_ms"] = round((time.perf_counter() - started) * 1000, 1)
    healthy = all(report[name] == HEALTHY[name] for name in CHECKS if name not in skipped)
    return jsonify(report), 200 if healthy else 503


def _report(engine, *, again: bool = True) -> dict:
    """The checks' report; ``again``: once more on a fresh connection if the pooled one
    turned out dead (the database restarted since; the health engine does not ping)."""
    report = {"database": "unreachable", "migrations": "unknown", "worker": "unknown",
              "revision": {"code": list(code_heads()), "database": None},
              "worker_seen_seconds_ago": None}
    try:
        with engine.connect() as connection:  # closed with a rollback: nothing written
            heads = database_heads(connection)
            report["database"] = "ok"
            report["revision"]["database"] = list(heads)
            report["migrations"] = _migrations(heads)
            if report["migrations"] == "current":  # else the heartbeat table may not exist
                seen = jobs.newest_beat(connection)
                ago = None if seen is None else (jobs.now() - seen).total_seconds()
                report["worker_seen_seconds_ago"] = None if ago is None else round(ago, 1)
                report["worker"] = "alive" if ago is not None and \
                    ago <= jobs.WORKER_ALIVE_SECONDS else "missing"
    except SQLAlchemyError as exc:
        if again and isinstance(exc, DBAPIError) and exc.connection_invalidated:
            return _report(engine, again=False)
        # (Also after a first read answered: a later one failing is the database's state.)
        report["database"] = "slow" if _too_slow(exc) else "unreachable"
        current_app.logger.warning("/healthz: database %s: %s", report["database"],
                                   str(exc).splitlines()[0][:200])
    return report


# PostgreSQL's codes for a statement cancelled by statement_timeout and a lock not granted
# within lock_timeout (https://www.postgresql.org/docs/current/errcodes-appendix.html).
QUERY_CANCELED, LOCK_NOT_AVAILABLE = "57014", "55P03"


def _too_slow(exc: SQLAlchemyError) -> bool:
    """Whether the database answered but past a time-out of the health engine (a
    statement, a lock, or no free connection of its small pool), rather than not at all."""
    if isinstance(exc, SQLAlchemyTimeoutError):
        return True
    return getattr(getattr(exc, "orig", None), "sqlstate", None) in (QUERY_CANCELED,
                                                                   LOCK_NOT_AVAILABLE)


def _migrations(heads: tuple[str, ...]) -> str:
    code = code_heads()
    if heads == code:
        return "current"
    if set(heads) - code_revisions():
        return "ahead"  # the database is at a revision this code does not know
    return "behind"
