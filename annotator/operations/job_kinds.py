"""What each kind of background job does (the rows of :mod:`annotator.study.jobs`).

Every kind is safe to run again from the start, because a worker may die halfway and
another one then runs the job again:

- ``prehighlight``: pre-highlight a chunk of the project's documents (the ids in the
  payload, :mod:`annotator.study.prehighlight_queue`; without a list: every document),
  those with no suggestions yet (queued by every document import); a document is marked in
  the same transaction that stores its suggestions, so a second run continues where the
  first stopped, and a document two runs computed is stored once;
- ``refit``: refit the loss ranker and re-rank the open documents
  (:func:`annotator.align.store.auto_refresh.run_refit`);
- ``queue-refresh``: recompute the adjudication queue entries left stale (of the project,
  or of every project), 100 documents a transaction;
- ``release``: cut the release a lead asked for on the web page
  (:func:`annotator.releases.building.run_release_job`; a second run finds the release
  its first run stored).
"""

from __future__ import annotations

from typing import Callable

from sqlalchemy.orm import Session

from annotator.adjudication.queue import refresh_stale
from annotator.align.store import prehighlight_project
from annotator.align.store.auto_refresh import run_refit
from annotator.core.vocabulary import JOB_KINDS
from annotator.models import Job, Project
from annotator.releases.building import run_release_job
from annotator.study.jobs import JobRefused

Progress = Callable[[int, int], None]


def _prehighlight(session: Session, job: Job, progress: Progress) -> dict:
    project = session.get(Project, job.project_id)
    if project is None:
        return {"skipped": "the project was deleted"}
    ids = job.payload.get("document_ids")
    if ids is not None and not (isinstance(ids, list) and all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids)):
        raise JobRefused(f"payload field document_ids: expected a list of document ids, got "
                         f"{str(ids)[:100]!r}")
    summary = prehighlight_project(session, project, progress=progress, document_ids=ids)
    return {"documents": summary.documents, "suggestions": summary.suggestions}


def _refit(session: Session, job: Job, progress: Progress) -> dict:
    project = session.get(Project, job.project_id)
    if project is None:
        return {"skipped": "the project was deleted"}
    summary = run_refit(session, project, resumed=job.attempts > 1, progress=progress)
    if summary is None:
        return {"skipped": "not due: an earlier refit covered these documents"}
    return {"documents": summary.documents, "refreshed": summary.refreshed}


def _queue_refresh(session: Session, job: Job, progress: Progress) -> dict:
    count = refresh_stale(session, job.project_id)
    session.commit()
    progress(count, count)
    return {"entries": count}


# The job kinds and what each runs (docs/extending.md: adding one). A runner gets the open
# session, the job (its project_id and payload) and progress(done, total); it returns a
# JSON summary stored on the job, and raises JobRefused for a payload it cannot use.
RUNNERS: dict[str, Callable[[Session, Job, Progress], dict]] = {
    "prehighlight": _prehighlight,
    "refit": _refit,
    "queue-refresh": _queue_refresh,
    "release": run_release_job,
}
assert tuple(RUNNERS) == JOB_KINDS, "every kind jobs.enqueue accepts has its runner"
