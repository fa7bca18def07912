"""``annotator release PROJECT --version V``: cut an immutable release into the database.

Files of a release (stored as blobs, :mod:`annotator.releases.store`; ``annotator release
export`` writes them as the folder ``<V>/``):

- ``gold.jsonl`` one gold record per released document (:func:`gold.gold_record`);
- ``gold.csv`` the same, flat: one row per gold edit and per gold rating;
- ``annotations/<annotator>.jsonl`` each annotator's raw work on the released documents;
- ``agreement.json`` / ``agreement.html`` the agreement report of those documents computed
  on the annotators' own (pre-adjudication) work, without embeddings (deterministic);
- ``schema.yaml`` and ``guideline.md`` exactly as the project used them (the manifest lists
  the schema's revisions, see ``annotator project schema``);
- ``results/`` (evaluation projects) the mode's results as JSON and CSV;
- ``MANIFEST.json`` counts, tool version, notes, the automatic adjudication rules (edit rule,
  span rule for gold spans of units marked at different granularity, field modes), excluded
  documents with reasons, and the sha256 and size of every other file.

An existing version is refused. Documents not fully adjudicated are left out with their
reason, or (``require_complete``) the whole release is refused. The release is stored in
the caller's transaction, in one savepoint: all of it or nothing. Two releases of the same
database state differ only in ``created_at`` of the manifest.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator import __version__
from annotator.adjudication.gold import gold_record, release_blocker
from annotator.adjudication.rules import AutoRules, RulesError
from annotator.adjudication.store import tiebreak_assignment_ids
from annotator.agreement.report import build_report
from annotator.agreement.store import bootstrap_settings, load_agreement_input
from annotator.core.safe_paths import file_component
from annotator.core.serialise import edit_to_dict, rating_to_dict
from annotator.core.stable_json import json_text, jsonl_text, stable
from annotator.models import Assignment, Document, Project
from annotator.releases.browse import valid_version
from annotator.releases.formats import gold_csv_text
from annotator.releases.results import results_files
from annotator.releases.store import VersionTaken, find_release, store_release
from annotator.schemas.files import project_schema
from annotator.schemas.guideline_text import schema_guideline
from annotator.study import audit
from annotator.study.schema_history import revisions as schema_revisions


class ReleaseError(Exception):
    """The release was refused (message says why); nothing was written."""


def cut_release(session: Session, project: Project, version: str, *, notes: str = "",
                require_complete: bool = False, bootstrap: int | None = None,
                seed: int | None = None, user_id: int | None = None,
                job_id: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Store the release in the database and return its manifest. The agreement report's
    resamples and seed default to the project's own (``agreement.store.bootstrap_settings``).
    ``progress(done, total)`` is told of every gold record and of the report (a worker's
    job shows it); ``job_id`` is kept in the audit event (a job run again after its worker
    died finds its own release, :mod:`annotator.releases.building`)."""
    progress = progress or (lambda done, total: None)
    configured = bootstrap_settings(project)
    bootstrap = configured["bootstrap"] if bootstrap is None else bootstrap
    seed = configured["seed"] if seed is None else seed
    problem = version_problem(session, project, version)
    if problem:
        raise ReleaseError(problem)
    documents = session.scalars(select(Document).where(Document.project_id == project.id)
                                .order_by(Document.position, Document.id)).all()
    released, excluded = [], []
    for document in documents:
        reason = release_blocker(session, document)
        (excluded.append({"id": document.external_id, "reason": reason}) if reason
         else released.append(document))
    if require_complete and excluded:
        listing = "; ".join(f"{e['id']}: {e['reason']}" for e in excluded[:20])
        raise ReleaseError(f"{len(excluded)} document(s) not fully adjudicated: {listing}")
    if not released:
        raise ReleaseError("no document is fully adjudicated yet: nothing to release")
    total = len(released) + 2  # every gold record, the report and files, storing
    records = []
    for document in released:
        records.append(gold_record(session, document))
        progress(len(records), total)
    files = _files(session, project, released, records, bootstrap, seed)
    progress(total - 1, total)
    manifest = {
        "project": project.name, "version": version, "notes": notes,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tool": {"name": "annotator", "version": __version__},
        "schema": {"name": project.schema_name, "file": "schema.yaml",
                   "guideline": _guideline_origin(project_schema(project)),
                   "revisions": schema_revisions(session, project)},
        "agreement": {"on": "annotators' own work (pre-adjudication) on released documents",
                      "bootstrap": bootstrap, "seed": seed, "embeddings": False,
                      **_agreement_exclusions(files["agreement.json"])},
        "adjudication": _adjudication_rules(project),
        "counts": _counts(records, documents, excluded, files),
        "excluded": excluded,
        "files": {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                  for name, data in sorted(files.items())},
    }
    try:
        store_release(session, project, version, files, json_text(manifest).encode("utf-8"))
    except VersionTaken:
        # Cut a moment ago through another server or process on the same database.
        raise ReleaseError(_exists(project, version)) from None
    audit.record(session, "release.created", user_id=user_id, project_id=project.id,
                 object_type="release", object_id=version,
                 documents=len(released), excluded=len(excluded),
                 **({"job": job_id} if job_id is not None else {}))
    progress(total, total)
    return manifest


def version_problem(session: Session, project: Project, version: str) -> str | None:
    """Why ``version`` cannot be released (a bad name, or taken: releases are immutable);
    None when it can."""
    if not valid_version(version):
        return f"version {version!r}: use letters, digits, '.', '_' or '-' (e.g. v1.0)"
    if find_release(session, project, version) is not None:
        return _exists(project, version)
    return None


def _exists(project, version) -> str:
    return (f"release {version} of {project.name} exists already; releases are immutable: "
            "choose a new version")


def _guideline_origin(schema) -> str | None:
    """Where the release's guideline.md came from: the guideline file's name, "schema"
    (text the schema file carried: a Thresh typology's instructions...), or None (none)."""
    guideline = schema_guideline(schema)
    if guideline.markdown is None:
        return None
    return guideline.file or "schema"


def _files(session, project, released, records, bootstrap, seed) -> dict[str, bytes]:
    schema = project_schema(project)
    files = {"gold.jsonl": jsonl_text(records), "gold.csv": gold_csv_text(records),
             "schema.yaml": project.schema_yaml}
    guideline = schema_guideline(schema).markdown
    if guideline is not None:
        files["guideline.md"] = guideline
    for name, lines in _raw_annotations(session, released).items():
        files[f"annotations/{name}.jsonl"] = jsonl_text(lines)
    report = agreement_report(session, project, released, bootstrap, seed)
    files["agreement.json"] = json_text(report)
    # matplotlib (about half a second) is loaded by the release that draws, not by the
    # web app's start-up, which imports this module.
    from annotator.agreement.html_report import render_html

    files["agreement.html"] = render_html(stable(report))
    files.update(results_files(session, project))  # evaluation projects only
    return {k: v.encode("utf-8") if isinstance(v, str) else v for k, v in files.items()}


def _raw_annotations(session, released) -> dict[str, list[dict]]:
    ids = [d.id for d in released]
    tiebreak = tiebreak_assignment_ids(session, ids)
    by_name: dict[str, list[dict]] = {}
    assignments = session.scalars(select(Assignment).where(Assignment.document_id.in_(ids))
                                  .order_by(Assignment.id)).all()
    for a in sorted(assignments, key=lambda a: (a.user.username, a.document.position,
                                                a.document.id)):
        by_name.setdefault(file_component(a.user.username), []).append({
            "document_id": a.document.external_id, "annotator": a.user.username,
            "role": "tiebreak" if a.id in tiebreak else "annotator", "status": a.status,
            "seconds_spent": round(a.seconds_spent or 0.0, 1),
            "meta": dict(a.meta or {}),
            "edits": [edit_to_dict(e) for e in a.edits],
            "ratings": [rating_to_dict(r)
                        for r in sorted(a.ratings, key=lambda r: (r.level, r.item, r.field))],
        })
    return by_name


def agreement_report(session, project, released, bootstrap: int, seed: int) -> dict:
    """The agreement engine's report on the released documents, pre-adjudication work of
    the original annotators only (third annotators' tie-break labels left out)."""
    data = load_agreement_input(session, project, embed=None)
    keep = {d.external_id for d in released}
    tiebreak = {(a.document.external_id, a.user.username) for a in session.scalars(
        select(Assignment).where(Assignment.id.in_(
            tiebreak_assignment_ids(session, [d.id for d in released]))))}
    data.documents = [d for d in data.documents if d.id in keep]
    data.edits = [e for e in data.edits if e.document_id in keep
                  and (e.document_id, e.annotator) not in tiebreak]
    data.ratings = [r for r in data.ratings if r.document_id in keep
                    and (r.document_id, r.annotator) not in tiebreak]
    data.work = [w for w in data.work if w.document_id in keep
                 and (w.document_id, w.annotator) not in tiebreak]
    report = build_report(data, bootstrap=bootstrap, seed=seed)
    report["project"] = project.name
    return report


def _agreement_exclusions(report_json) -> dict:
    """The agreement report's convention for composite edits and the edits it left out,
    with the reasons, so the manifest says what the figures do not cover."""
    composites = json.loads(report_json).get("composites") or {}
    if not composites:
        return {}
    return {"constituents": composites["convention"],
            "constituents_explained": composites["explanation"],
            "excluded_edits": composites["excluded"]}


def _counts(records, documents, excluded, files) -> dict:
    return {
        "documents_in_project": len(documents), "documents_released": len(records),
        "documents_excluded": len(excluded),
        "gold_edits": sum(len(r["edits"]) for r in records),
        "gold_ratings": sum(len(r["ratings"]) for r in records),
        "annotators": len([f for f in files if f.startswith("annotations/")]),
    }


def _adjudication_rules(project) -> dict:
    """The automatic rules the gold was decided by, as the project sets them (issue 42: the
    span rule a granularity unit's gold span follows is stated with the release)."""
    try:
        return AutoRules.from_settings(project.settings).as_settings()
    except RulesError as exc:  # the rules could not have run: say so rather than guess
        return {"invalid": str(exc)}
