"""Creating a project in the browser (leads and admins), as ``annotator project create``
does: a name, a task schema (built-in, or an uploaded file: this tool's YAML, a Thresh
typology, a Label Studio labeling config), annotators per document and leads.

Before creating, the page shows what the schema file was understood to say
(``POST /projects/new/preview``, the lines of ``annotator schema show``); the preview reads
the file and writes nothing. Every form is a POST with the CSRF token.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from sqlalchemy import select

from annotator.models import User
from annotator.schemas import Schema, SchemaError, builtin_names, resolve
from annotator.schemas.files import load_schema_file, schema_from_text, schema_kind
from annotator.schemas.summary import describe
from annotator.study.projects import ProjectError, create_project
from annotator.web.access import db, lead_required, load_user
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash

bp = Blueprint("project_create", __name__, url_prefix="/projects")
MAX_PER_DOCUMENT = 20  # as the command's --annotators-per-doc


@bp.route("/new")
@lead_required
def new():
    return _form()


@bp.post("/new/preview")
@lead_required
def preview():
    """What the chosen schema says, as JSON lines; a bad file is a 422 naming the file,
    the key and what was expected."""
    try:
        schema, kind, text = _schema_from_request()
    except SchemaError as exc:
        return jsonify(error="invalid", message=str(exc)), 422
    return jsonify(name=schema.name, title=schema.title, kind=kind,
                   lines=describe(schema, kind, text))


@bp.post("/new")
@lead_required
def create():
    viewer = load_user()
    try:
        schema, _kind, _text = _schema_from_request()
        per_document = _per_document(request.form.get("annotators_per_doc", ""))
        leads = _leads(viewer, request.form.getlist("leads"))
        project = create_project(db(), request.form.get("name", ""), schema,
                                 annotators_per_doc=per_document, leads=leads)
        commit_work()
    except (SchemaError, ProjectError) as exc:
        db().rollback()
        return _form(error=f"Not created: {exc}"), 400
    flash(f"Project {project.name} created (schema {project.schema_name}). Next: import "
          "documents, assign them, pre-highlight.", "ok")
    return redirect(url_for("project_setup.setup", project_id=project.id))


def _form(error: str | None = None):
    viewer = load_user()
    choices = db().scalars(select(User).where(User.role.in_(("lead", "admin")),
                                              User.active.is_(True))
                           .order_by(User.username)).all()
    chosen = set(request.form.getlist("leads")) if request.method == "POST" else {
        viewer.username} if viewer.role == "lead" else set()
    return render_template("project_new.html", builtins=_builtin_titles(), leads=choices,
                           chosen=chosen, form=request.form, error=error,
                           max_per_document=MAX_PER_DOCUMENT)


@lru_cache(maxsize=1)
def _builtin_titles() -> list[tuple[str, str]]:
    """(name, title) of every built-in schema: files of the package, read once."""
    return [(name, load_schema_file(resolve(name)).title) for name in builtin_names()]


def _schema_from_request() -> tuple[Schema, str, str]:
    """The schema the form names: a built-in (by name only: never a path on the server)
    or the uploaded file; with its kind and text for the preview."""
    if request.form.get("schema_source") == "file":
        return schema_from_upload(request.files.get("schema_file"))
    name = request.form.get("builtin", "")
    if name not in builtin_names():
        raise SchemaError(name or "(none)", "schema",
                          f"a built-in schema ({', '.join(builtin_names())})")
    path = resolve(name)
    text = path.read_text(encoding="utf-8")
    return load_schema_file(path), schema_kind(text), text


def schema_from_upload(upload) -> tuple[Schema, str, str]:
    """An uploaded schema file of any kind (a werkzeug FileStorage or None), with its kind
    and text; the file's own name (never a server path) is what error messages cite. Also
    the schema revision of a running project (:mod:`annotator.web.project_schema`)."""
    if upload is None or not upload.filename:
        raise SchemaError("schema file", "file", "a schema file to upload (this tool's "
                          "YAML, a Thresh typology or a Label Studio config)")
    name = Path(upload.filename).name
    try:
        text = upload.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SchemaError(name, "file", "a UTF-8 text file",
                          f"byte 0x{exc.object[exc.start]:02x} at {exc.start}") from None
    return schema_from_text(text, name), schema_kind(text), text


def _per_document(raw: str) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ProjectError(f"annotators per document: expected a whole number from 1 to "
                           f"{MAX_PER_DOCUMENT}, got {raw!r}") from None
    if not 1 <= value <= MAX_PER_DOCUMENT:
        raise ProjectError(f"annotators per document: expected 1 to {MAX_PER_DOCUMENT}, "
                           f"got {value}")
    return value


def _leads(viewer: User, names: list[str]) -> list[User]:
    """The chosen leads (active leads or admins); a lead who creates a project leads it."""
    found = []
    for name in dict.fromkeys(n.strip() for n in names if n.strip()):
        user = db().scalar(select(User).where(User.username == name))
        if user is None or not user.active or user.role not in ("lead", "admin"):
            raise ProjectError(f"lead {name!r}: no active lead or admin with that name")
        found.append(user)
    if viewer.role == "lead" and viewer not in found:
        found.insert(0, viewer)
    return found
