"""Pre-highlighting a project from the web page: started by the lead, run in the
background, its progress read back by the page.

:func:`start_run` claims the project and starts a thread of the serving process that runs
:func:`annotator.align.store.prehighlight_project` over the documents not yet
pre-highlighted; the page polls :func:`run_status`. The progress is what the run stores
anyway: each document is marked ``prehighlighted_at`` in the transaction that stores its
suggestions (committed every :data:`CHUNK` documents), so "done of total" is a count of
stored marks, the same for every process of the server and after a restart.

In ``project.settings['prehighlight']``:

- ``run_started`` (ISO time, or None): the claim that keeps two runs of one project apart,
  across processes too (as the automatic refresh's claim does, :mod:`.auto_refresh`). A
  claim with no document marked for :data:`STALE_AFTER` is taken to be from a process that
  died, and a new run may start;
- ``last_run``: ``{"finished", "documents", "suggestions", "error"}`` of the last run.

Start and status live here together, and the web layer calls only these two, so that a
jobs table can later take the thread's place without the page changing.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.models import Document, Project

from . import pending_documents, prehighlight_project
from .learning import update_settings

CHUNK = 10  # documents per commit: the page's progress moves at least this often
STALE_AFTER = timedelta(minutes=15)
log = logging.getLogger(__name__)

_threads: dict[int, threading.Thread] = {}
_lock = threading.Lock()


class RunRefused(ValueError):
    """Why no run was started (already running, nothing to do); nothing was changed."""


def run_status(session: Session, project: Project) -> dict:
    """``{"total", "done", "running", "started", "last_run"}``: documents of the project and
    how many of them carry their pre-highlights, whether a run is going (and since when),
    and the outcome of the last one. A read: nothing is written."""
    total, done, last_mark = session.execute(
        select(func.count(Document.id), func.count(Document.prehighlighted_at),
               func.max(Document.prehighlighted_at))
        .where(Document.project_id == project.id)).one()
    started = _settings(project).get("run_started")
    return {"total": total, "done": done, "running": _live(started, last_mark),
            "started": started, "last_run": _settings(project).get("last_run")}


def start_run(database, session: Session, project: Project, *,
              user_id: int | None = None) -> threading.Thread:
    """Claim the project (committed in ``session``) and start the run in a thread, which
    opens its own session of ``database``. Raises :class:`RunRefused` when a run is going
    or every document is pre-highlighted already."""
    status = run_status(session, project)
    if status["running"]:
        raise RunRefused(f"a pre-highlight run of this project is going already (started "
                         f"{status['started']}); its progress is shown below")
    if not pending_documents(session, project, force=False):
        raise RunRefused("every document of the project is pre-highlighted already"
                         if status["total"] else "the project has no documents yet: "
                         "import some first")
    claimed = update_settings(session, project, {"prehighlight": {
        "run_started": _now().isoformat(timespec="seconds")}}, retry=False)
    if not claimed:
        raise RunRefused("another pre-highlight run of this project started just now")
    project_id = project.id
    thread = threading.Thread(target=_run, args=(database, project_id, user_id),
                              name=f"annotator-prehighlight-{project_id}", daemon=True)
    with _lock:
        _threads[project_id] = thread
    thread.start()
    return thread


def wait_for_runs(timeout: float | None = None) -> None:
    """Join the runs started in this process (tests; a clean shutdown)."""
    with _lock:
        threads = list(_threads.values())
    for thread in threads:
        thread.join(timeout)


def _run(database, project_id: int, user_id: int | None) -> None:
    session = database.sessions()
    try:
        try:
            summary = prehighlight_project(session, session.get(Project, project_id),
                                           user_id=user_id, chunk=CHUNK)
            outcome = {"documents": summary.documents, "suggestions": summary.suggestions,
                       "error": None}
        except Exception as exc:  # a background thread reports to the page and the log
            log.exception("pre-highlight run of project %s failed", project_id)
            session.rollback()
            outcome = {"documents": None, "suggestions": None,
                       "error": f"{type(exc).__name__}: {exc}"[:500]}
        project = session.get(Project, project_id)
        session.refresh(project)
        update_settings(session, project, {"prehighlight": {
            "run_started": None,
            "last_run": {"finished": _now().isoformat(timespec="seconds"), **outcome}}})
    except Exception:  # the database went away (shutdown): only the log is left
        log.exception("pre-highlight run of project %s could not record its end", project_id)
    finally:
        session.close()
        with _lock:
            _threads.pop(project_id, None)


def _settings(project: Project) -> dict:
    return dict((project.settings or {}).get("prehighlight", {}))


def _live(started: str | None, last_mark: datetime | None) -> bool:
    """A claim is live while the run started, or last marked a document, recently."""
    if not started:
        return False
    latest = datetime.fromisoformat(started)
    if last_mark is not None:
        # SQLite hands back the stored UTC time without its zone.
        mark = last_mark if last_mark.tzinfo else last_mark.replace(tzinfo=timezone.utc)
        latest = max(latest, mark)
    return _now() - latest < STALE_AFTER


def _now() -> datetime:
    return datetime.now(timezone.utc)
