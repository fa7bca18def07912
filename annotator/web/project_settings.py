"""A project's settings page (lead only): the pre-highlight switches and the schema.

Today it holds the automatic refresh of the deletion / oversimplification ranker
(issue #14): on or off, and after how many newly completed documents it refits. The same
switches exist on the command line (``annotator prehighlight PROJECT --auto-learn
--refit-every N``); both are audited as ``prehighlight.auto_learn``.

The page also shows the project's schema (what ``annotator schema show`` prints, and its
YAML); revising it is :mod:`annotator.web.project_schema`, which renders this page with its
preview or refusal through :func:`render_settings`.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from annotator.align.store.auto_refresh import refit_running
from annotator.align.store.learning import (
    auto_learn_enabled,
    completed_document_count,
    last_fit,
    refit_every,
    set_auto_learn,
)
from annotator.models import Project
from annotator.operations.schema_revision import digest
from annotator.schemas.files import project_schema
from annotator.schemas.summary import describe
from annotator.web.access import db, lead_required, load_user, project_for_lead
from annotator.web.flash_messages import flash

bp = Blueprint("project_settings", __name__, url_prefix="/projects")


@bp.route("/<int:project_id>/settings")
@lead_required
def settings(project_id: int):
    return render_settings(project_for_lead(project_id))


def render_settings(project: Project, revision: dict | None = None, status: int = 200):
    """The settings page; ``revision`` is the schema section's state after a preview or a
    refused revision (the text to keep in the editor, the preview, the problems)."""
    model = (project.settings or {}).get("align", {}).get("loss_model") or {}
    revision = revision or {}
    running = refit_running(db(), project)
    return render_template(
        "project_settings.html", project=project, auto_learn=auto_learn_enabled(project),
        refit_every=refit_every(project), last_fit=last_fit(project),
        completed=completed_document_count(db(), project),
        running=running and running.isoformat(timespec="seconds"), model=model,
        schema_lines=describe(project_schema(project), "yaml", project.schema_yaml),
        schema_text=revision.get("text", project.schema_yaml),
        base_sha256=digest(project.schema_yaml), revision=revision), status


@bp.route("/<int:project_id>/settings/prehighlight", methods=["POST"])
@lead_required
def prehighlight(project_id: int):
    project = project_for_lead(project_id)
    raw = request.form.get("refit_every", "").strip()
    try:
        every = int(raw)
        if every < 1:
            raise ValueError
    except ValueError:
        flash(f"Not changed: refit after how many completed documents: expected a whole "
              f"number of at least 1, got {raw!r}.", "error")
        return redirect(url_for("project_settings.settings", project_id=project.id))
    enabled = request.form.get("auto_learn") == "on"
    set_auto_learn(db(), project, enabled, every, user_id=load_user().id)
    flash(f"Automatic refresh {'on' if enabled else 'off'}"
          + (f": refit after every {every} newly completed documents." if enabled else "."),
          "ok")
    return redirect(url_for("project_settings.settings", project_id=project.id))
