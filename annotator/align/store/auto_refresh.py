"""Automatic refresh while annotators work (issue #14, "an automatic refresh a lead can
switch on"), as a job any worker runs (issue 31).

With ``settings['prehighlight']['auto_learn']`` on, every request that marks a document
done calls :func:`after_completion` after its commit. Once ``refit_every`` documents
(default 5) were newly completed since the last fit, it queues a ``refit`` job
(:mod:`annotator.study.jobs`) and returns: the annotator's save never waits for the fit.
A worker (``annotator worker``, or the one ``annotator serve`` starts) runs
:func:`run_refit`: refit the project's model and re-rank the loss suggestions of the open
documents (:func:`~annotator.align.store.learning.learn_project`, audited with trigger
``auto-refresh``).

Never two at once for one project: the jobs table queues one refit per project and runs a
project's jobs one at a time. A refit whose worker died is claimed again once its lease
expires and runs from the start (fitting again on the same completed documents gives the
same model; re-ranking keeps what annotators acted on), so it is safe to repeat.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.models import Job, Project
from annotator.study import jobs

from .learning import (
    LearnSummary,
    auto_learn_enabled,
    learn_project,
    newly_completed,
    refit_every,
)


def refit_due(session: Session, project: Project) -> bool:
    """The switch is on and ``refit_every`` documents were completed since the last fit."""
    return auto_learn_enabled(project) and \
        newly_completed(session, project) >= refit_every(project)


def after_completion(session: Session, project: Project) -> Job | None:
    """Called after the commit of a request that marked a document of ``project`` done:
    queue (and commit) a refit job if one is due. Returns the queued job, or None."""
    if not refit_due(session, project):
        return None
    job = jobs.enqueue(session, "refit", project.id, {"trigger": "auto-refresh"})
    session.commit()
    return job


def run_refit(session: Session, project: Project, *, resumed: bool = False, embedder=None,
              progress: Callable[[int, int], None] | None = None) -> LearnSummary | None:
    """The ``refit`` job: refit and re-rank if still due (None if not: another refit
    covered these documents meanwhile). ``resumed``: a second attempt after the first
    worker died; its fit may already be stored (so the project no longer looks due) while
    the re-ranking was cut short, so it runs unconditionally."""
    if not resumed and not refit_due(session, project):
        return None
    return learn_project(session, project, embedder=embedder, progress=progress,
                         trigger="auto-refresh")


def refit_running(session: Session, project: Project) -> datetime | None:
    """When the project's running refit job started, or None."""
    return jobs.aware(session.scalar(select(Job.started_at).where(
        Job.project_id == project.id, Job.kind == "refit", Job.state == "running")
        .order_by(Job.id.desc()).limit(1)))
