"""Revising a running project's schema in the browser (the project's leads and admins), as
``annotator project schema PROJECT FILE`` does on the command line.

The lead edits the stored YAML on the settings page or uploads a revised file (this tool's
YAML, a Thresh typology, a Label Studio config: read by content), previews what changes and
which stored annotations would break, and applies. The web only translates HTTP: checking
and revising are :func:`annotator.operations.schema_revision.preview_revision` and
:func:`~annotator.operations.schema_revision.revise_schema` (which marks the adjudication
queue stale). The preview writes nothing; the apply form carries the digest of the schema
the preview was checked against, so a revision made by someone else in between is refused
(409) rather than overwritten. A file that cannot be read, or a revision that would break
stored work, is a 422 that names the problem and changes nothing.
"""

from __future__ import annotations

from flask import Blueprint, Response, redirect, request, url_for

from annotator.operations.schema_revision import (
    SchemaRevisionRefused,
    SchemaRevisionStale,
    preview_revision,
    revise_schema,
)
from annotator.schemas import Schema, SchemaError
from annotator.schemas.files import schema_from_text, schema_kind
from annotator.schemas.summary import describe
from annotator.web.access import db, lead_required, load_user, project_for_lead
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash
from annotator.web.project_create import schema_from_upload
from annotator.web.project_settings import render_settings

bp = Blueprint("project_schema", __name__, url_prefix="/projects")
PROBLEMS_SHOWN = 100  # breaking annotations listed on the page (and how many more)
TEXT_NAME = "edited schema"  # what error messages cite for the text area


@bp.get("/<int:project_id>/schema.yaml")
@lead_required
def download(project_id: int):
    """The project's schema as stored (this tool's YAML), to edit offline and upload."""
    project = project_for_lead(project_id)
    return Response(project.schema_yaml, mimetype="application/yaml", headers={
        "Content-Disposition": f'attachment; filename="{project.slug}-schema.yaml"'})


@bp.post("/<int:project_id>/schema/preview")
@lead_required
def preview(project_id: int):
    project = project_for_lead(project_id)
    try:
        new, kind, text = _schema_from_request()
    except SchemaError as exc:
        return render_settings(project, _kept(error=str(exc)), 422)
    checked = preview_revision(db(), project, new)
    return render_settings(project, {
        "text": new.source_text, "previewed": True, "lines": describe(new, kind, text),
        "changes": checked.changes, "identical": checked.identical,
        "applies": checked.applies, "base_sha256": checked.base_sha256,
        **_listed(checked.problems)})


@bp.post("/<int:project_id>/schema")
@lead_required
def apply(project_id: int):
    project = project_for_lead(project_id)
    try:
        new, _kind, _text = _schema_from_request()
        revision = revise_schema(db(), project, new, user_id=load_user().id,
                                 base_sha256=request.form.get("base_sha256") or None)
        commit_work()
    except SchemaError as exc:
        db().rollback()
        return render_settings(project, _kept(error=f"Schema not changed: {exc}"), 422)
    except SchemaRevisionStale as exc:
        db().rollback()
        return render_settings(project, _kept(error=f"Schema not changed: {exc}."), 409)
    except SchemaRevisionRefused as exc:
        db().rollback()
        return render_settings(project, _kept(
            error=f"Schema not changed: {exc}. Change the schema so they fit, or change "
                  "those annotations first.", **_listed(exc.problems)), 422)
    flash(f"Schema revised (now {project.schema_name}): "
          f"{'; '.join(revision.changes) or 'no change in what is annotated'}.", "ok")
    # The page's top, where the message is: the new schema is summarised just below.
    return redirect(url_for("project_settings.settings", project_id=project.id))


def _schema_from_request() -> tuple[Schema, str, str]:
    """The revised schema: the uploaded file if one was chosen, else the edited text (any
    kind: a pasted Thresh typology or Label Studio config is read as such)."""
    upload = request.files.get("schema_file")
    if upload is not None and upload.filename:
        return schema_from_upload(upload)
    text = _posted_text()
    if not text.strip():
        raise SchemaError(TEXT_NAME, "(top level)", "the schema's YAML, a Thresh typology "
                          "or a Label Studio config (or a file to upload)", "nothing")
    return schema_from_text(text, TEXT_NAME), schema_kind(text), text


def _posted_text() -> str:
    # Browsers send a form's line breaks as CRLF; the stored schema uses LF, so an
    # unchanged text stays identical to it.
    return request.form.get("schema_text", "").replace("\r\n", "\n")


def _kept(**state) -> dict:
    """The section's state after a refusal: the lead's text stays in the editor."""
    text = _posted_text()
    return {**state, **({"text": text} if text.strip() else {})}


def _listed(problems: list[str]) -> dict:
    return {"problems": problems[:PROBLEMS_SHOWN],
            "more": max(0, len(problems) - PROBLEMS_SHOWN)}

