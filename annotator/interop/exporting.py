"""Writing a project's annotations in another tool's format.

Every exporter reads the annotators' own work (one record per annotator and document, see
:func:`~annotator.interop.annotations_store.project_records`) and writes files; what a
format cannot represent is returned as notes, never dropped silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.safe_paths import child_path
from annotator.interop.annotations_store import project_documents, project_records
from annotator.interop.infolossqa import to_infolossqa
from annotator.interop.labelstudio_tasks import to_min_rows, to_tasks
from annotator.interop.records import AnnotationRecord
from annotator.interop.tabular import to_csv, to_jsonl
from annotator.interop.thresh_export import to_thresh
from annotator.models import Document, Project, Suggestion
from annotator.schemas import Schema
from annotator.schemas.files import project_schema


@dataclass
class ExportResult:
    written: list[Path] = field(default_factory=list)
    records: int = 0
    notes: list[str] = field(default_factory=list)


def _dump(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def export_project(session: Session, project: Project, fmt: str, out: Path) -> ExportResult:
    exporter = EXPORTERS.get(fmt)
    if exporter is None:
        raise ValueError(f"unknown export format {fmt!r}")
    records = project_records(session, project)
    result = ExportResult(records=len(records))
    exporter.write(ExportRequest(session, project, project_schema(project), records, out),
                   result)
    return result


@dataclass
class ExportRequest:
    """What a format's writer gets: the annotators' own work (one record per annotator and
    document) and ``out``, the file or folder to write (the default: the format's
    ``default_name`` under the exports folder, or the lead's ``--out``)."""

    session: Session
    project: Project
    schema: Schema
    records: list[AnnotationRecord]
    out: Path


def _thresh(export: ExportRequest, result: ExportResult) -> None:
    for annotator, rows in to_thresh(export.records, export.schema).items():
        result.written.append(_dump(child_path(export.out, annotator, suffix=".json"), rows))


def _labelstudio(export: ExportRequest, result: ExportResult) -> None:
    tasks, result.notes = to_tasks(export.schema,
                                   project_documents(export.session, export.project),
                                   export.records,
                                   project_suggestions(export.session, export.project))
    result.written.append(_dump(export.out, tasks))


def _labelstudio_min(export: ExportRequest, result: ExportResult) -> None:
    # One file per annotator, as a per-rater Label Studio project exports it.
    documents = project_documents(export.session, export.project)
    by_annotator: dict[str, list] = {}
    for r in export.records:
        by_annotator.setdefault(r.annotator, []).append(r)
    for annotator, rows in by_annotator.items():
        result.written.append(_dump(child_path(export.out, annotator, suffix=".json"),
                                    to_min_rows(export.schema, documents, rows)))


def _infolossqa(export: ExportRequest, result: ExportResult) -> None:
    documents, questions = to_infolossqa(project_documents(export.session, export.project),
                                         export.records)
    result.written += [_dump(export.out / "documents.json", documents),
                       _dump(export.out / "questions.json", questions)]


def _one_text_file(render: Callable[[ExportRequest], str]):
    """A writer of one text file: ``render(export)`` is its content."""
    def write(export: ExportRequest, result: ExportResult) -> None:
        export.out.parent.mkdir(parents=True, exist_ok=True)
        export.out.write_text(render(export), encoding="utf-8")
        result.written.append(export.out)
    return write


@dataclass(frozen=True)
class ExportFormat:
    # Where the format goes by default, under the exports folder ({p}: the project's slug):
    # a folder (one file per annotator, or several files) or a file name.
    default_name: str
    # Writes the files, appends them to ``result.written`` and what the format cannot hold
    # to ``result.notes`` (never dropped silently).
    write: Callable[[ExportRequest, ExportResult], None]


# The export formats, by the name `annotator export --format` takes. docs/extending.md:
# adding a format.
EXPORTERS: dict[str, ExportFormat] = {
    "thresh": ExportFormat("{p}-thresh", _thresh),
    "labelstudio": ExportFormat("{p}-labelstudio.json", _labelstudio),
    "labelstudio-min": ExportFormat("{p}-labelstudio-min", _labelstudio_min),
    "jsonl": ExportFormat("{p}-annotations.jsonl",
                          _one_text_file(lambda e: to_jsonl(e.records))),
    "csv": ExportFormat("{p}-annotations.csv",
                        _one_text_file(lambda e: to_csv(e.records, e.schema))),
    "infolossqa": ExportFormat("{p}-infolossqa", _infolossqa),
}
EXPORT_FORMATS = tuple(EXPORTERS)


def project_suggestions(session: Session, project: Project) -> dict[str, list[Suggestion]]:
    found: dict[str, list[Suggestion]] = {}
    rows = session.execute(select(Document.external_id, Suggestion).join(
        Suggestion, Suggestion.document_id == Document.id).where(
        Document.project_id == project.id).order_by(Suggestion.id))
    for external_id, suggestion in rows:
        found.setdefault(external_id, []).append(suggestion)
    return found
