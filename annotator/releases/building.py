"""A release built in the background (issue 31): the lead asks on the web page, a worker
cuts it (:func:`annotator.releases.writer.cut_release`), the page follows the job.

Cutting a release computes every gold record and the agreement report with its bootstrap
intervals: for a study of thousands of documents that takes longer than a web request
should, and a server recycled in the middle would lose it. So the web page queues a
``release`` job (one per version: :func:`annotator.study.jobs.enqueue` with the version as
its key) and any worker runs it. What can be refused at once is refused at once, before
anything is queued: a bad or taken version, or one already being built.

A job is safe to run again: the release is stored in one transaction with its audit event,
which names the job; a job whose worker died after that commit but before it marked the job
done finds its own release and is done, while a version cut meanwhile by someone else (the
command line, another job) fails the job with the usual "exists already".

The command line (``annotator release cut``) still cuts in its own process: the command is
itself the long-running process a job would need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.models import AuditEvent, Job, Project
from annotator.releases.store import find_release
from annotator.releases.writer import ReleaseError, cut_release, version_problem
from annotator.study import jobs

KIND = "release"
# Failed release jobs stay on the releases page this long (the lead reads why), unless the
# version was released since.
FAILED_SHOWN = 5


def queue_release(session: Session, project: Project, version: str, *, notes: str = "",
                  require_complete: bool = False, user_id: int | None = None) -> Job:
    """Queue the release ``version`` of ``project`` in the caller's transaction, or raise
    :class:`ReleaseError` saying why not (nothing queued)."""
    problem = version_problem(session, project, version)
    if problem:
        raise ReleaseError(problem)
    if _pending(session, project, version):
        raise ReleaseError(f"release {version} of {project.name} is being built already")
    return jobs.enqueue(session, KIND, project.id, {
        "version": version, "notes": notes, "require_complete": bool(require_complete),
        "user_id": user_id}, key=version)


def _versions(session: Session, job_ids) -> dict[int, str | None]:
    """The version each release job asks for; None when its payload cannot be read or
    names no version (the worker fails such a job, saying why)."""
    versions = {}
    for job_id, payload in jobs.stored_json(session, Job.payload, job_ids).items():
        version = jobs.readable_or_empty(payload).get("version")
        versions[job_id] = version if isinstance(version, str) else None
    return versions


def _pending(session: Session, project: Project, version: str) -> bool:
    waiting = session.scalars(select(Job.id).where(
        Job.project_id == project.id, Job.kind == KIND, Job.state.in_(("queued", "running"))))
    return version in _versions(session, waiting).values()


def run_release_job(session: Session, job: Job,
                    progress: Callable[[int, int], None]) -> dict:
    """The worker's side: cut the release the job asks for and commit it; its summary."""
    project = session.get(Project, job.project_id)
    if project is None:
        return {"skipped": "the project was deleted"}
    payload = job.payload
    version = payload.get("version")
    if not isinstance(version, str):
        raise jobs.JobRefused(f"payload: 'version' is {version!r}, not a release version")
    if job.attempts > 1 and _built_by(session, project, version, job.id):
        return {"version": version, "resumed": "stored by an earlier attempt of this job"}
    try:
        manifest = cut_release(session, project, version, notes=payload.get("notes", ""),
                               require_complete=bool(payload.get("require_complete")),
                               user_id=payload.get("user_id"), job_id=job.id,
                               progress=progress)
    except ReleaseError as exc:
        raise jobs.JobRefused(f"release {version} refused: {exc}") from None
    session.commit()
    counts = manifest["counts"]
    return {"version": version, "documents": counts["documents_released"],
            "excluded": counts["documents_excluded"]}


def _built_by(session: Session, project: Project, version: str, job_id: int) -> bool:
    events = session.scalars(select(AuditEvent).where(
        AuditEvent.action == "release.created", AuditEvent.project_id == project.id,
        AuditEvent.object_id == version))
    return any((event.details or {}).get("job") == job_id for event in events)


@dataclass
class ReleaseInProgress:
    """A release job the releases page shows: waiting, being built, or failed."""

    job_id: int
    version: str
    state: str
    done: int
    total: int
    error: str
    waiting: str = ""  # what a queued build waits for (jobs.waiting_for)

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0

    def to_dict(self) -> dict:
        return {"job": self.job_id, "version": self.version, "state": self.state,
                "done": self.done, "total": self.total, "percent": self.percent,
                "error": self.error, "waiting": self.waiting}


def releases_in_progress(session: Session, project: Project) -> list[ReleaseInProgress]:
    """The project's release jobs not finished, and its latest failed ones whose version
    was not released since (reads only), newest first."""
    found, failed = [], 0
    rows = session.scalars(select(Job).where(
        Job.project_id == project.id, Job.kind == KIND, Job.state != "done")
        .options(*jobs.WITHOUT_JSON).order_by(Job.id.desc())).all()
    versions = _versions(session, [job.id for job in rows])
    for job in rows:
        version, error = versions[job.id], job.error
        if job.state == "failed":
            if failed >= FAILED_SHOWN or (version is not None and find_release(
                    session, project, version) is not None):
                continue
            failed += 1
        if version is None and not error:  # (a failed one says why in its error)
            error = "payload unreadable: the worker will fail this job"
        found.append(ReleaseInProgress(
            job.id, version or "?", job.state, job.progress_done, job.progress_total,
            error or job.retry_reasons,
            jobs.waiting_for(session, job.id) if job.state == "queued" else ""))
    return found
