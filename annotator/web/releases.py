"""The lead's releases page: cut a release (queued, built by a worker), follow it, list,
verify and download every stored release (one file, or the whole release as a zip).

A release is cut in the background (:mod:`annotator.releases.building`): the POST refuses
what it can refuse at once (a bad, taken or pending version) and queues the rest; the page
follows the job through ``/releases/status`` and shows the release when it is stored. Every
download is checked against the release's manifest first: a changed file is refused (409),
never served.
"""

from __future__ import annotations

import io

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    stream_with_context,
    url_for,
)

from annotator.releases import ReleaseError, list_releases, release_file, verify_release
from annotator.releases.browse import next_free_version
from annotator.releases.building import queue_release, releases_in_progress
from annotator.releases.export import zip_chunks, zip_name
from annotator.releases.store import find_release, project_releases
from annotator.releases.verify import listed_file_problem
from annotator.web.access import db, lead_required, load_user, project_for_lead
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash
from annotator.web.jobs_panel import worker_alive

bp = Blueprint("releases", __name__)


@bp.route("/projects/<int:project_id>/releases", methods=["GET", "POST"])
@lead_required
def releases(project_id: int):
    project = project_for_lead(project_id)
    if request.method == "POST":
        version = request.form.get("version", "").strip()
        try:
            queue_release(db(), project, version,
                          notes=request.form.get("notes", "").strip(),
                          require_complete=bool(request.form.get("require_complete")),
                          user_id=load_user().id)
            commit_work()
            flash(f"Release {version} queued: a worker builds it in the background; this "
                  "page shows it when it is stored.", "ok")
        except ReleaseError as exc:
            db().rollback()
            flash(f"Release refused: {exc}", "error")
        return redirect(url_for("releases.releases", project_id=project.id))
    found = list_releases(db(), project)
    for manifest in found:
        manifest["verification"] = verify_release(db(), project, manifest["version"])
    in_progress = releases_in_progress(db(), project)
    newest_first = ([r.version for r in in_progress]
                    + [r.version for r in project_releases(db(), project)])
    return render_template("releases.html", project=project, releases=found,
                           in_progress=in_progress, worker_alive=worker_alive(),
                           suggested_version=next_free_version(newest_first,
                                                               set(newest_first)))


@bp.get("/projects/<int:project_id>/releases/status")
@lead_required
def releases_status(project_id: int):
    """The page's poll: releases being built (or failed), the stored versions (reads only)."""
    project = project_for_lead(project_id)
    return jsonify({
        "in_progress": [r.to_dict() for r in releases_in_progress(db(), project)],
        "stored": [r.version for r in project_releases(db(), project)],  # no manifest read
        "worker_alive": worker_alive(),
    })


def _refused(project, version: str, what: str, problem: str) -> Response:
    return Response(f"{what} of release {version} no longer matches its manifest "
                    f"({problem}); download refused. Run `annotator release verify "
                    f"{project.name} {version}`.\n", status=409, mimetype="text/plain")


@bp.route("/projects/<int:project_id>/releases/<version>.zip")
@lead_required
def release_zip(project_id: int, version: str):
    """The whole release as one zip, streamed a file at a time from the database."""
    project = project_for_lead(project_id)
    release = find_release(db(), project, version)
    if release is None:
        abort(404)
    verification = verify_release(db(), project, version)
    if not verification.ok:
        return _refused(project, version, "the release", "; ".join(verification.problems))
    name = zip_name(project, version)
    return Response(stream_with_context(zip_chunks(db(), project, release)),
                    mimetype="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}.zip"'})


@bp.route("/projects/<int:project_id>/releases/<version>/<path:filename>")
@lead_required
def release_download(project_id: int, version: str, filename: str):
    project = project_for_lead(project_id)
    data = release_file(db(), project, version, filename)
    if data is None:
        abort(404)
    problem = listed_file_problem(db(), project, version, filename, data)
    if problem:
        return _refused(project, version, filename, problem)
    download = filename.rsplit("/", 1)[-1]
    return send_file(io.BytesIO(data), as_attachment=True, download_name=download,
                     mimetype="application/octet-stream" if download.endswith(".html")
                     else "text/plain")
