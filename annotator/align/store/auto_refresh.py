"""Automatic refresh while annotators work (issue #14, "an automatic refresh a lead can
switch on").

With ``settings['prehighlight']['auto_learn']`` on, every request that marks a document
done calls :func:`after_completion` *after its commit*. That starts a background thread
and returns at once, so the annotator's save never waits for the fit. The thread opens
its own session and, once ``refit_every`` documents (default 5) were newly completed since
the last fit, refits the project's model and re-ranks the loss suggestions of the open
documents (:func:`~annotator.align.store.learning.learn_project`, audited with trigger
``auto-refresh``).

Never two at once for one project: within a process a set of running project ids; across
processes (several gunicorn workers) a claim written into the project's settings, which
carry a version counter, so of two workers claiming together one gets a stale-data error
and backs off. A claim older than :data:`CLAIM_TIMEOUT` is taken to be from a process
that died.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta, timezone

from annotator.models import Project

from .learning import (
    auto_learn_enabled,
    learn_project,
    newly_completed,
    refit_every,
    refresh_running,
    update_settings,
)

CLAIM_TIMEOUT = timedelta(hours=1)
log = logging.getLogger(__name__)

_running: set[int] = set()
_threads: dict[int, threading.Thread] = {}
_lock = threading.Lock()


def after_completion(database, project: Project) -> threading.Thread | None:
    """Called after the commit of a request that marked a document of ``project`` done.
    Returns the started thread (None when the switch is off or a refresh of the project
    is already running in this process)."""
    if not auto_learn_enabled(project):
        return None
    project_id = project.id
    with _lock:
        if project_id in _running:
            return None
        _running.add(project_id)
        thread = threading.Thread(target=_run_guarded, args=(database, project_id),
                                  name=f"annotator-refresh-{project_id}", daemon=True)
        _threads[project_id] = thread
    thread.start()
    return thread


def wait_for_refreshes(timeout: float | None = None) -> None:
    """Join the refresh threads started so far (tests; a clean shutdown)."""
    with _lock:
        threads = list(_threads.values())
    for thread in threads:
        thread.join(timeout)


def _run_guarded(database, project_id: int) -> None:
    try:
        # Documents completed while a refit ran count towards the next one: check again.
        for _ in range(3):
            if not refresh_if_due(database, project_id):
                break
    except Exception:  # a background thread has no one to report to but the log
        log.exception("automatic pre-highlight refresh of project %s failed", project_id)
    finally:
        with _lock:
            _running.discard(project_id)


def refresh_if_due(database, project_id: int, *, embedder=None) -> bool:
    """Refit and re-rank if the switch is on and enough documents were newly completed;
    True if it did. Runs in the caller's thread (the background thread calls it)."""
    session = database.sessions()
    try:
        project = session.get(Project, project_id)
        if project is None or not auto_learn_enabled(project):
            return False
        if newly_completed(session, project) < refit_every(project):
            return False
        if not _claim(session, project):
            return False
        try:
            learn_project(session, project, embedder=embedder, trigger="auto-refresh")
        finally:
            session.rollback()
            session.refresh(project)
            update_settings(session, project, {"prehighlight": {"refresh_running": None}})
        return True
    finally:
        session.close()


def _claim(session, project: Project) -> bool:
    """Mark the refresh as running in the project's settings; False if another process
    holds a fresh claim or claimed it at the same moment."""
    running = refresh_running(project)
    now = datetime.now(timezone.utc)
    if running and now - datetime.fromisoformat(running) < CLAIM_TIMEOUT:
        return False
    return update_settings(session, project, {"prehighlight": {
        "refresh_running": now.isoformat(timespec="seconds")}}, retry=False)
