"""Writing a project's annotations in another tool's format.

Every exporter reads the annotators' own work (one record per annotator and document, see
:func:`~annotator.interop.annotations_store.project_records`) and writes files; what a
format cannot represent is returned as notes, never dropped silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.safe_paths import child_path
from annotator.interop.annotations_store import project_documents, project_records
from annotator.interop.infolossqa import to_infolossqa
from annotator.interop.labelstudio_tasks import to_min_rows, to_tasks
from annotator.interop.tabular import to_csv, to_jsonl
from annotator.interop.thresh_export import to_thresh
from annotator.models import Document, Project, Suggestion
from annotator.schemas.files import project_schema

EXPORT_FORMATS = ("thresh", "labelstudio", "labelstudio-min", "jsonl", "csv", "infolossqa")
# Where each format goes by default, under the exports folder: a folder or a file name.
DEFAULT_NAMES = {"thresh": "{p}-thresh", "labelstudio": "{p}-labelstudio.json",
                 "labelstudio-min": "{p}-labelstudio-min",
                 "jsonl": "{p}-annotations.jsonl", "csv": "{p}-annotations.csv",
                 "infolossqa": "{p}-infolossqa"}


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
    schema = project_schema(project)
    records = project_records(session, project)
    result = ExportResult(records=len(records))
    if fmt == "thresh":
        for annotator, rows in to_thresh(records, schema).items():
            result.written.append(_dump(child_path(out, annotator, suffix=".json"), rows))
    elif fmt == "labelstudio":
        tasks, result.notes = to_tasks(schema, project_documents(session, project), records,
                                       project_suggestions(session, project))
        result.written.append(_dump(out, tasks))
    elif fmt == "labelstudio-min":
        # One file per annotator, as a per-rater Label Studio project exports it.
        documents = project_documents(session, project)
        by_annotator: dict[str, list] = {}
        for r in records:
            by_annotator.setdefault(r.annotator, []).append(r)
        for annotator, rows in by_annotator.items():
            result.written.append(_dump(child_path(out, annotator, suffix=".json"),
                                        to_min_rows(schema, documents, rows)))
    elif fmt == "infolossqa":
        documents, questions = to_infolossqa(project_documents(session, project), records)
        result.written += [_dump(out / "documents.json", documents),
                           _dump(out / "questions.json", questions)]
    elif fmt in ("jsonl", "csv"):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_jsonl(records) if fmt == "jsonl" else to_csv(records, schema),
                       encoding="utf-8")
        result.written.append(out)
    else:
        raise ValueError(f"unknown export format {fmt!r}")
    return result


def project_suggestions(session: Session, project: Project) -> dict[str, list[Suggestion]]:
    found: dict[str, list[Suggestion]] = {}
    rows = session.execute(select(Document.external_id, Suggestion).join(
        Suggestion, Suggestion.document_id == Document.id).where(
        Document.project_id == project.id).order_by(Suggestion.id))
    for external_id, suggestion in rows:
        found.setdefault(external_id, []).append(suggestion)
    return found
