"""The project page's background-jobs panel (``templates/_jobs.html``): the project's
recent jobs with their state, progress and error, and whether any worker is alive."""

from __future__ import annotations

from annotator.study import jobs
from annotator.web.access import db


def project_jobs(project_id: int, limit: int = 10) -> dict:
    """What the panel shows (reads only)."""
    seen = jobs.newest_beat(db())
    alive = seen is not None and (jobs.now() - seen).total_seconds() <= \
        jobs.WORKER_ALIVE_SECONDS
    return {"jobs": jobs.recent_jobs(db(), project_id, limit), "worker_alive": alive}


def register(app) -> None:
    app.jinja_env.globals["project_jobs"] = project_jobs
