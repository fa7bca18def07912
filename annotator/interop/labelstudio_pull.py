"""One Label Studio pull into a project (``annotator labelstudio pull --import``), all or
nothing, and an account of everything it did.

The export is read (``labelstudio``), merged into the stored work (``labelstudio_merge``)
and what changed is stored (``annotations_store``); then, in the same transaction:

- stored work absent from the export (the whole annotation deleted in Label Studio) is
  cleared with ``allow_deletions`` (its edits and ratings deleted, the assignment back to
  ``assigned``, audited as ``annotations.deleted``); without it the merge refused already;
- work that was done and that the pull would leave incomplete (a region relabelled so a
  required answer or side is missing: the same check as "mark done") is refused, naming
  task, region and what is missing, unless ``allow_incomplete`` stores it in progress.

Any refusal raises IngestError before the caller commits: nothing is changed. The summary
(``PullSummary``) is computed from what was read and written: users created, drafts stored
or set aside (and why), skips, deletions, work stored incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from annotator.annotate.store import adjudication_started, missing_for_done
from annotator.core.records import IngestError, Problem
from annotator.core.serialise import edit_to_dict, rating_to_dict
from annotator.interop.annotations_store import project_records
from annotator.interop.importing import import_annotations
from annotator.interop.labelstudio import draft_note, draft_why
from annotator.interop.labelstudio_merge import MergeResult, merge_pull, task_of
from annotator.interop.records import AnnotationRecord, ImportOptions, ImportReport
from annotator.models import Assignment, Document, Edit, Project, User
from annotator.schemas.files import project_schema
from annotator.study import audit
from annotator.study.queue_marks import document_changed


@dataclass
class PullSummary:
    report: ImportReport  # what was stored (records, edits, ratings, users created, notes)
    merge: MergeResult  # unchanged, kept without region, deletions
    drafts_stored: list[str] = field(default_factory=list)
    drafts_unchanged: list[str] = field(default_factory=list)
    drafts_ignored: list[str] = field(default_factory=list)  # each with why
    skips_stored: list[str] = field(default_factory=list)
    skips_unchanged: list[str] = field(default_factory=list)
    cleared: list[str] = field(default_factory=list)  # whole annotations deleted
    kept_frozen: list[str] = field(default_factory=list)  # deletions refused by adjudication
    incomplete: list[str] = field(default_factory=list)  # stored in progress, and why
    draft_notes: set[str] = field(default_factory=set)  # the report's notes on drafts

    def as_json(self) -> dict[str, Any]:
        return {"imported": {"records": self.report.records, "edits": self.report.edits,
                             "ratings": self.report.ratings,
                             "documents_created": self.report.documents_created},
                "unchanged": self.merge.unchanged,
                "kept_without_region": self.merge.kept_without_region,
                "users_created": list(self.report.users_created),
                "drafts": {"stored": self.drafts_stored, "unchanged": self.drafts_unchanged,
                           "ignored": self.drafts_ignored},
                "skips": {"stored": self.skips_stored, "unchanged": self.skips_unchanged},
                "deletions": list(self.merge.deletions),
                "deletions_kept": self.kept_frozen,
                "incomplete": self.incomplete, "notes": self.notes()}

    def notes(self) -> list[str]:
        """The import's notes but the drafts', which ``drafts_ignored`` lists."""
        return [n for n in self.report.notes if n not in self.draft_notes]


class _NothingChanged(Exception):
    """Every pulled annotation equals the stored one: nothing to write."""


def pull_into(session: Session, project: Project, path: Path, *, members: dict[str, str],
              item_key: tuple[str, ...] = (), allow_deletions: bool = False,
              allow_incomplete: bool = False) -> PullSummary:
    """Merge the Label Studio export at ``path`` into ``project``; raises IngestError (and
    the caller rolls back) on any refusal. ``members``: user id and e-mail -> account."""
    merged: dict[str, Any] = {}
    finished: set[tuple[str, str]] = set()  # stored work done and complete before the pull

    def prepare(records, report):
        merged["pulled"] = list(records)
        stored = project_records(session, project)
        incomplete = _incomplete(session, project, stored)
        finished.update((s.document_id, s.annotator) for s in stored
                        if s.status == "done" and (s.document_id, s.annotator) not in incomplete)
        result = merge_pull(records, stored, file_name=str(path),
                            allow_deletions=allow_deletions, incomplete=incomplete)
        merged["result"], merged["report"] = result, report
        if result.problems:
            raise IngestError(result.problems)
        # A task nobody worked on is a document only: nothing to write once it exists.
        known = set(session.scalars(select(Document.external_id).where(
            Document.project_id == project.id)))
        result.records = [r for r in result.records
                          if not (r.document_only and r.document_id in known)]
        if not result.records:
            raise _NothingChanged()
        return result.records

    try:
        report = import_annotations(session, project, path, "labelstudio",
                                    annotator_map=members, replace=True, item_key=item_key,
                                    prepare=prepare,
                                    options=ImportOptions(settle_side_answers=True))
    except _NothingChanged:
        report = merged["report"]
    result: MergeResult = merged["result"]
    summary = PullSummary(report, result, draft_notes={
        draft_note(d) for d in report.drafts if not d["stored"]})
    _clear(session, project, result.cleared, str(path), summary)
    problems = _made_incomplete(session, project, result.records, finished, str(path),
                                allow_incomplete, summary)
    if problems:
        raise IngestError(problems)
    written = {(r.document_id, r.annotator) for r in result.records}
    for d in report.drafts:
        line = f"task {d['task']} ({d['document']}) {d['annotator']}"
        if not d["stored"]:
            summary.drafts_ignored.append(f"{line}: {draft_why(d)}")
        elif (d["document"], d["annotator"]) in written:
            summary.drafts_stored.append(line)
        else:
            summary.drafts_unchanged.append(line)
    for r in merged["pulled"]:
        if r.status == "skipped":
            line = f"task {task_of(r)} ({r.document_id}) {r.annotator}"
            (summary.skips_stored if (r.document_id, r.annotator) in written
             else summary.skips_unchanged).append(line)
    return summary


def _incomplete(session: Session, project: Project,
                stored: list[AnnotationRecord]) -> set[tuple[str, str]]:
    """(document, annotator) of stored work, in progress or done, that misses required
    answers or sides (``missing_for_done``)."""
    keys = {(s.document_id, s.annotator) for s in stored
            if s.status in ("in_progress", "done")}
    if not keys:
        return set()
    schema = project_schema(project)
    found = set()
    for assignment, doc_id, name in session.execute(
            select(Assignment, Document.external_id, User.username).join(Document)
            .join(User).where(Document.project_id == project.id,
                              Assignment.status.in_(("in_progress", "done")))
            .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                     selectinload(Assignment.ratings), selectinload(Assignment.document))):
        if (doc_id, name) in keys and missing_for_done(assignment, schema):
            found.add((doc_id, name))
    return found


def _assignment(session: Session, project: Project, document_id: str,
                annotator: str) -> Assignment | None:
    return session.scalar(select(Assignment).join(Document).join(User).where(
        Document.project_id == project.id, Document.external_id == document_id,
        User.username == annotator))


def _clear(session: Session, project: Project, cleared: list[AnnotationRecord],
           file_name: str, summary: PullSummary) -> None:
    """Delete the work of annotations deleted in Label Studio: edits and ratings go, the
    assignment is ``assigned`` again (the document stays theirs), the deleted work goes into
    the audit trail whole. Work a lead has started adjudicating is frozen and kept."""
    for r in cleared:
        assignment = _assignment(session, project, r.document_id, r.annotator)
        if assignment is None:
            continue
        line = f"task {task_of(r)} ({r.document_id}) {r.annotator}"
        if adjudication_started(session, assignment.document_id):
            summary.kept_frozen.append(f"{line}: kept as stored, not deleted: adjudication "
                                       "has started on this document")
            continue
        audit.record(session, "annotations.deleted", project_id=project.id,
                     object_type="assignment", object_id=assignment.id, file=file_name,
                     document=r.document_id, annotator=r.annotator,
                     status=assignment.status, seconds_spent=assignment.seconds_spent,
                     edits=[edit_to_dict(e) for e in assignment.edits],
                     ratings=[rating_to_dict(g) for g in assignment.ratings],
                     reason="not in the Label Studio export (deleted there)")
        for old in sorted(assignment.edits, key=lambda e: e.parent_id is None):
            session.delete(old)  # constituents first: they point at their composite
        for old in assignment.ratings:
            session.delete(old)
        assignment.status, assignment.completed_at = "assigned", None
        assignment.seconds_spent = 0.0
        assignment.meta = {k: v for k, v in (assignment.meta or {}).items()
                           if k != "labelstudio"}
        summary.cleared.append(line)
        document_changed(session, assignment.document_id)
    session.flush()


def _made_incomplete(session: Session, project: Project, records: list[AnnotationRecord],
                     finished: set[tuple[str, str]], file_name: str,
                     allow_incomplete: bool, summary: PullSummary) -> list[Problem]:
    """Submitted work the store left in progress because required answers or sides are
    missing: a summary line each (task, regions, what is missing). Work that was done and
    complete before this pull (``finished``) is refused so, unless ``allow_incomplete``."""
    schema = project_schema(project)
    problems = []
    for r in records:
        if not r.says_done:
            continue
        assignment = _assignment(session, project, r.document_id, r.annotator)
        if assignment is None or assignment.status != "in_progress":
            continue
        missing = missing_for_done(assignment, schema)
        if not missing:
            continue
        edits = {e.id: e for e in assignment.edits}
        what = "; ".join(_where_missing(m, edits) for m in missing)
        head = f"task {task_of(r)}, document {r.document_id!r}, {r.annotator}"
        if (r.document_id, r.annotator) not in finished:
            summary.incomplete.append(f"{head}: submitted in Label Studio, stored as in "
                                      f"progress: {what}")
        elif allow_incomplete:
            summary.incomplete.append(f"{head}: done before, stored as in progress "
                                      f"(--allow-incomplete): {what}")
        else:
            problems.append(Problem(r.file or file_name, r.line, "annotations",
                                    f"{head}: the pull would make finished work "
                                    f"incomplete: {what}; pass --allow-incomplete to store "
                                    "it as in progress"))
    return problems


def _where_missing(missing: dict, edits: dict[int, Edit]) -> str:
    """A "mark done" problem with the region it is about (label and offsets, as the page
    shows it)."""
    edit = edits.get(missing.get("edit_id"))
    if edit is None:
        return missing["message"]
    if not edit.spans:
        return f"{edit.edit_type} edit without a region: {missing['message']}"
    spans = ", ".join(f"{s.side} {s.start}-{s.end}" for s in edit.spans)
    return f"{edit.edit_type} region at {spans}: {missing['message']}"
