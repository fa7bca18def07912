"""Importing QA pairs into an evaluation project.

- Model predictions: an InfoLossQA-shaped questions file (JSON array, or JSONL with one
  object a line): ``{"id", "document_id", "model" (or "annotator"), "category"
  (omission|concept|deletion|oversimplification), "question", "answer", "input_idx",
  "output_idx"}`` with optional ``evidence`` / ``rationale`` snippets instead of offsets
  and an optional ``section``. The documents must be in the project already.
- References: ``gold.jsonl`` of a release (each gold edit with a question becomes one
  reference QA of the document with the same id).

A record whose spans do not occur in the texts is stored with ``valid = False`` and its
reason, and listed in the returned report (the published analysis flagged such outputs
rather than dropping them); it is never sampled or mined. Structural problems (missing
question, unknown document, malformed offsets) abort the whole file, nothing written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.records import IngestError, Problem, json_lines_rows, read_text
from annotator.core.shown import got
from annotator.core.spans import span_problem
from annotator.evaluation.sections import section_at
from annotator.interop.infolossqa import EDIT_TYPE_OF_CATEGORY, _invalid_spans
from annotator.interop.records import load_json_array, record_id, record_owner, span_pairs
from annotator.models import Document, EvalQAItem, Project
from annotator.study import audit

# InfoLossQA category names or our edit type names -> our edit type.
CATEGORIES = {**EDIT_TYPE_OF_CATEGORY, **{t: t for t in EDIT_TYPE_OF_CATEGORY.values()}}


@dataclass
class QAImportReport:
    stored: int = 0
    invalid: list[dict] = field(default_factory=list)
    models: dict[str, int] = field(default_factory=dict)


def _rows(path: Path) -> list[tuple[int, object]]:
    """(line, value) of a JSONL file or a JSON array, read by the importers' strict reader
    (UTF-8 and JSON errors, NaN, lone surrogates, NUL and deep nesting refused with their
    line; lines end at "\n" only)."""
    if path.suffix == ".jsonl":
        problems: list[Problem] = []
        rows = json_lines_rows(read_text(path), str(path), problems)
        if problems:
            raise IngestError(problems)
        return rows
    return load_json_array(path)


def _documents(session: Session, project: Project) -> dict[str, Document]:
    return {d.external_id: d for d in session.scalars(
        select(Document).where(Document.project_id == project.id))}


def _section(row: dict, document: Document, evidence: list) -> str:
    if isinstance(row.get("section"), str) and row["section"].strip():
        return row["section"].strip().lower()[:64]
    return section_at(document.source, evidence[0][0] if evidence else None)


def import_predictions(session: Session, project: Project, path: Path, *,
                       model: str | None = None, user_id: int | None = None) -> QAImportReport:
    name = str(path)
    documents = _documents(session, project)
    problems: list[Problem] = []
    items: list[EvalQAItem] = []
    report = QAImportReport()
    position = session.scalar(select(EvalQAItem.position).where(
        EvalQAItem.project_id == project.id).order_by(EvalQAItem.position.desc())) or 0
    for line, row in _rows(path):
        if not isinstance(row, dict):
            problems.append(Problem(name, line, None, "expected a QA object"))
            continue
        before = len(problems)
        doc_id = record_id(row, "document_id", name, line, problems)
        who = record_owner(row, ("model", "annotator"), model, name, line, problems,
                           "no model name: give 'model' or pass --model NAME")
        category = CATEGORIES.get(row.get("category"))
        if category is None:
            problems.append(Problem(name, line, "category", f"unknown category "
                                    f"{row.get('category')!r}: omission or concept"))
        for key in ("question", "answer"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                problems.append(Problem(name, line, key, "required: a non-empty string"))
        spans = (span_pairs(row.get("input_idx"), "source", "input_idx", name, line, problems)
                 + span_pairs(row.get("output_idx"), "target", "output_idx", name, line,
                              problems))
        if len(problems) > before:
            continue
        document = documents.get(doc_id)
        if document is None:
            problems.append(Problem(name, line, "document_id",
                                    f"document {doc_id!r} is not in project {project.name!r}"))
            continue
        reason = _invalid_spans(row, spans, {"source": document.source,
                                             "target": document.target})
        evidence = [[s.start, s.end] for s in spans if s.side == "source"]
        rationale = [[s.start, s.end] for s in spans if s.side == "target"]
        position += 1
        item = EvalQAItem(
            project_id=project.id, document_id=document.id, origin="model",
            model=who[:120], external_id=str(row["id"])[:200] if row.get("id") else None,
            category=category, question=row["question"].strip(), answer=row["answer"].strip(),
            evidence_spans=[] if reason else evidence, rationale_spans=[] if reason else rationale,
            section=_section(row, document, [] if reason else evidence), valid=reason is None,
            problem=None if reason is None else f"{reason[0]}: {reason[1]}", position=position)
        items.append(item)
        if reason:
            report.invalid.append({"file": name, "line": line, "id": row.get("id"),
                                   "document_id": doc_id, "model": item.model,
                                   "field": reason[0], "reason": reason[1]})
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    session.add_all(items)
    session.flush()
    for item in items:
        report.models[item.model] = report.models.get(item.model, 0) + 1
    report.stored = len(items)
    audit.record(session, "evaluation.qa_imported", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, file=name, stored=report.stored,
                 invalid=report.invalid)
    return report


def _reference_edits(record: dict, name: str, line: int,
                     problems: list[Problem]) -> list[tuple[int, str, dict, list, list]]:
    """(position, edit type, fields, evidence, rationale) of each gold edit that carries a
    question.

    A gold record is read through the importers' boundary checks: ``edits`` must be a
    list of objects, ``fields`` an object, the question a string, and each side's spans
    ``[[start, end], ...]`` of integers (interop.records.span_pairs); anything else is a
    problem naming FILE:LINE and the field, never a traceback."""
    edits = record.get("edits", [])
    if not isinstance(edits, list):
        problems.append(Problem(name, line, "edits", "must be a list of edits" + got(edits)))
        return []
    found = []
    for k, edit in enumerate(edits):
        where = f"edits[{k}]"
        if not isinstance(edit, dict):
            problems.append(Problem(name, line, where, "must be an object" + got(edit)))
            continue
        edit_type, fields = edit.get("edit_type", ""), edit.get("fields", {})
        if not isinstance(edit_type, str):
            problems.append(Problem(name, line, f"{where}.edit_type",
                                    "must be a string" + got(edit_type)))
            continue
        if not isinstance(fields, dict):
            problems.append(Problem(name, line, f"{where}.fields",
                                    "must be an object" + got(fields)))
            continue
        question = fields.get("question")
        if question is not None and not isinstance(question, str):
            problems.append(Problem(name, line, f"{where}.fields.question",
                                    "must be a string" + got(question)))
            continue
        if not question:
            continue
        spans = edit.get("spans", {})
        if not isinstance(spans, dict):
            problems.append(Problem(name, line, f"{where}.spans",
                                    "must be an object with source/target lists" + got(spans)))
            continue
        before = len(problems)
        sides = {side: span_pairs(spans.get(side), side, f"{where}.spans.{side}", name, line,
                                  problems) for side in ("source", "target")}
        if len(problems) == before:
            found.append((k, edit_type, fields, [[s.start, s.end] for s in sides["source"]],
                          [[s.start, s.end] for s in sides["target"]]))
    return found


def import_references(session: Session, project: Project, gold_path: Path, *,
                      name: str = "reference", user_id: int | None = None) -> QAImportReport:
    """Reference QAs from a release's gold.jsonl (gold edits with a question).

    A span outside its text is kept with ``valid = False`` and the reason, as with model
    predictions; a structural problem anywhere aborts the file with nothing written."""
    file_name = str(gold_path)
    documents = _documents(session, project)
    report = QAImportReport()
    problems: list[Problem] = []
    items = []
    for line, record in _rows(gold_path):
        if not isinstance(record, dict):
            problems.append(Problem(file_name, line, None, "expected a JSON object"))
            continue
        document = documents.get(str(record.get("id")))
        if document is None:
            problems.append(Problem(file_name, line, "id", f"document {record.get('id')!r}"
                                    f" is not in project {project.name!r}"))
            continue
        for k, edit_type, fields, evidence, rationale in _reference_edits(record, file_name, line,
                                                                problems):
            texts = {"source": document.source, "target": document.target}
            bad = next((problem for side, spans in (("source", evidence), ("target", rationale))
                        for a, b in spans
                        if (problem := span_problem(side, a, b, texts)) is not None), None)
            items.append(EvalQAItem(
                project_id=project.id, document_id=document.id, origin="reference", model=name,
                external_id=f"{document.external_id}/gold/{k + 1}",
                category=CATEGORIES.get(edit_type, edit_type),
                question=fields["question"], answer=str(fields.get("answer", "")),
                evidence_spans=[] if bad else evidence, rationale_spans=[] if bad else rationale,
                section=section_at(document.source, evidence[0][0] if evidence and not bad
                                   else None),
                valid=bad is None, problem=bad, position=len(items) + 1))
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    session.add_all(items)
    session.flush()
    report.stored = len(items)
    report.models[name] = len(items)
    audit.record(session, "evaluation.references_imported", user_id=user_id,
                 project_id=project.id, object_type="project", object_id=project.id,
                 file=file_name, stored=report.stored)
    return report
