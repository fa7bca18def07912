"""Pre-highlighting a project from the web page: ``prehighlight`` jobs in the jobs table
(:mod:`annotator.study.jobs`), chunks of documents that any worker claims
(:mod:`annotator.study.prehighlight_queue`), their progress read back by the page.

An import queues the chunks itself (``ingest.store``); the lead's button queues chunks for
the documents left that no waiting chunk holds. Any worker runs them (``annotator serve``
keeps one in its process, ``annotator worker`` runs more, on any server): nothing depends
on the process that served the click. The progress is what the run stores anyway: each
document is marked ``prehighlighted_at`` in the transaction that stores its suggestions,
so "done of total" is a count of stored marks, summed over every chunk, the same through
every server and after a restart.

Start and status live here together, and the web layer calls only these two.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.models import Document, Job, Project
from annotator.study import jobs
from annotator.study.prehighlight_queue import (
    KIND,
    chunk_counts,
    queue_prehighlight,
)


class RunRefused(ValueError):
    """Why no run was queued (every document left is in a waiting chunk, nothing to do);
    nothing changed."""


def run_status(session: Session, project: Project) -> dict:
    """``{"total", "done", "running", "state", "started", "chunks", "last_run",
    "message"}``: documents of the project and how many carry their pre-highlights,
    whether chunks are waiting or going ("state": running when any runs) and since when,
    the chunks by state, the outcome of the finished chunks (documents and suggestions
    summed, the newest finished one's error if it failed), and the sentence the page
    shows. A read: nothing is written."""
    total, done = session.execute(
        select(func.count(Document.id), func.count(Document.prehighlighted_at))
        .where(Document.project_id == project.id)).one()
    chunks = chunk_counts(session, project.id)
    waiting = chunks["queued"] + chunks["running"] > 0
    state = started = None
    if waiting:
        state = "running" if chunks["running"] else "queued"
        started = _iso(session.scalar(select(
            func.min(Job.started_at) if state == "running" else func.min(Job.created_at))
            .where(Job.project_id == project.id, Job.kind == KIND, Job.state == state)))
    status = {"total": total, "done": done, "running": waiting, "state": state,
              "started": started, "chunks": chunks,
              "last_run": _last_run(session, project) if chunks["done"] + chunks[
                  "failed"] else None}
    status["message"] = _message(session, project, status)
    return status


def _last_run(session: Session, project: Project) -> dict:
    finished = session.execute(select(Job.id, Job.state, Job.finished_at, Job.error).where(
        Job.project_id == project.id, Job.kind == KIND, Job.state.in_(("done", "failed")))
        .order_by(Job.finished_at.desc(), Job.id.desc())).all()
    # An unreadable stored result adds no counts (the job's error says what it did).
    results = [jobs.readable_or_empty(r) for r in jobs.stored_json(
        session, Job.result, [row.id for row in finished if row.state == "done"]).values()]
    counted = [r for r in results if isinstance(r.get("documents"), int)]
    newest = finished[0]
    return {"finished": _iso(newest.finished_at),
            "documents": sum(r["documents"] for r in counted) if counted else None,
            "suggestions": sum(r.get("suggestions") or 0 for r in counted) if counted else None,
            "chunks": len(counted),
            "error": (newest.error or None) if newest.state == "failed" else None}


def _message(session: Session, project: Project, status: dict) -> str:
    """The page's sentence about the run, from the status it summarises."""
    chunks, last = status["chunks"], status["last_run"]
    if status["state"] == "queued":
        oldest = session.scalar(select(func.min(Job.id)).where(
            Job.project_id == project.id, Job.kind == KIND, Job.state == "queued"))
        why = jobs.waiting_for(session, oldest).removeprefix("waiting: ")
        return (f"Queued at {status['started']}: {_chunks(chunks['queued'])} waiting for a "
                f"worker ({why}).")
    if status["state"] == "running":
        parts = [f"{chunks['running']} running", f"{chunks['queued']} queued",
                 f"{chunks['done']} done"] + (
            [f"{chunks['failed']} failed"] if chunks["failed"] else [])
        return f"Running since {status['started']}: chunks {', '.join(parts)}…"
    if last is None:
        return "Not run yet."
    if last["error"]:
        return f"The last run failed: {last['error']}"
    return (f"Done: the last run pre-highlighted {last['documents']} documents "
            f"({last['suggestions']} suggestions) in {_chunks(last['chunks'])}, finished "
            f"{last['finished']}.")


def _chunks(count: int) -> str:
    return f"{count} chunk{'' if count == 1 else 's'}"


def start_run(session: Session, project: Project, *, user_id: int | None = None) -> list[Job]:
    """Queue ``prehighlight`` chunks for the documents not pre-highlighted yet and in no
    waiting chunk, committed in ``session``. Raises :class:`RunRefused` when there are
    none (every document is in a waiting chunk, or pre-highlighted already)."""
    queued = queue_prehighlight(session, project.id, user_id=user_id)
    if queued:
        session.commit()
        return queued
    status = run_status(session, project)
    if status["running"]:
        raise RunRefused(f"a pre-highlight run of this project is going already ({status['state']} "
                         f"since {status['started']}) and holds every document left; its "
                         "progress is shown below")
    raise RunRefused("every document of the project is pre-highlighted already"
                     if status["total"] else "the project has no documents yet: "
                     "import some first")


def _iso(moment) -> str | None:
    return None if moment is None else jobs.aware(moment).isoformat(timespec="seconds")
