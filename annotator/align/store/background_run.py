"""Pre-highlighting a project from the web page: a ``prehighlight`` job in the jobs table
(:mod:`annotator.study.jobs`), its progress read back by the page.

An import queues the job itself (``ingest.store``); the lead's button queues one when none
is waiting and documents are left. Any worker runs it (``annotator serve`` keeps one in
its process, ``annotator worker`` runs more, on any server): nothing depends on the process
that served the click. The progress is what the run stores anyway: each document is marked
``prehighlighted_at`` in the transaction that stores its suggestions, so "done of total" is
a count of stored marks, the same through every server and after a restart.

Start and status live here together, and the web layer calls only these two.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.models import Document, Job, Project
from annotator.study import jobs

from . import pending_documents

WAITING = ("queued", "running")


class RunRefused(ValueError):
    """Why no run was queued (one is waiting or going, nothing to do); nothing changed."""


def run_status(session: Session, project: Project) -> dict:
    """``{"total", "done", "running", "state", "started", "last_run"}``: documents of the
    project and how many carry their pre-highlights, whether a job is waiting or going
    (and since when), and the outcome of the last finished one. A read: nothing is
    written."""
    total, done = session.execute(
        select(func.count(Document.id), func.count(Document.prehighlighted_at))
        .where(Document.project_id == project.id)).one()
    newest = session.scalars(select(Job).where(
        Job.project_id == project.id, Job.kind == "prehighlight")
        .options(*jobs.WITHOUT_JSON).order_by(Job.id.desc()).limit(1)).first()
    waiting = newest is not None and newest.state in WAITING
    finished = session.scalars(select(Job).where(
        Job.project_id == project.id, Job.kind == "prehighlight",
        Job.state.in_(("done", "failed"))).options(*jobs.WITHOUT_JSON)
        .order_by(Job.id.desc()).limit(1)).first()
    last_run = None
    if finished is not None:
        # An unreadable stored result shows no counts (the job's error says what it did).
        result = jobs.readable_or_empty(
            jobs.stored_json(session, Job.result, [finished.id])[finished.id])
        last_run = {"finished": _iso(finished.finished_at),
                    "documents": result.get("documents"),
                    "suggestions": result.get("suggestions"), "error": finished.error or None}
    return {"total": total, "done": done, "running": waiting,
            "state": newest.state if waiting else None,
            "started": _iso(newest.started_at or newest.created_at) if waiting else None,
            "last_run": last_run}


def start_run(session: Session, project: Project, *, user_id: int | None = None) -> Job:
    """Queue a ``prehighlight`` job for the documents not pre-highlighted yet, committed in
    ``session``. Raises :class:`RunRefused` when one is waiting or going, or when every
    document is pre-highlighted already."""
    status = run_status(session, project)
    if status["running"]:
        raise RunRefused(f"a pre-highlight run of this project is going already ({status['state']} "
                         f"since {status['started']}); its progress is shown below")
    if not pending_documents(session, project, force=False):
        raise RunRefused("every document of the project is pre-highlighted already"
                         if status["total"] else "the project has no documents yet: "
                         "import some first")
    job = jobs.enqueue(session, "prehighlight", project.id, {"user_id": user_id})
    session.commit()
    return job


def _iso(moment) -> str | None:
    return None if moment is None else jobs.aware(moment).isoformat(timespec="seconds")
