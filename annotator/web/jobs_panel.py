"""The project page's background-jobs panel (``templates/_jobs.html``): the project's
recent jobs with their state, progress and error, and whether any worker is alive."""

from __future__ import annotations

from annotator.study import jobs
from annotator.web.access import db


def worker_alive() -> bool:
    """Whether some worker showed a sign of life lately (queued work will be taken)."""
    seen = jobs.newest_beat(db())
    return seen is not None and (jobs.now() - seen).total_seconds() <= \
        jobs.WORKER_ALIVE_SECONDS


def project_jobs(project_id: int, limit: int = 10) -> dict:
    """What the panel shows (reads only)."""
    return {"jobs": jobs.recent_jobs(db(), project_id, limit), "worker_alive": worker_alive()}


def register(app) -> None:
    app.jinja_env.globals["project_jobs"] = project_jobs
