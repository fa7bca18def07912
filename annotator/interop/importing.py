"""Importing annotations from another tool's files into a project, all or nothing.

One entry point for every format: the format's reader turns the file (or folder) into
:class:`~annotator.interop.records.AnnotationRecord` objects, and
:func:`~annotator.interop.annotations_store.store_annotations` checks them against the
project's schema and writes them in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.records import IngestError
from annotator.interop import ANNOTATION_FORMATS
from annotator.interop.annotations_store import store_annotations
from annotator.interop.infolossqa import read_infolossqa
from annotator.interop.records import AnnotationRecord, ImportOptions, ImportReport
from annotator.interop.tabular import read_csv, read_jsonl
from annotator.interop.thresh import read_thresh
from annotator.models import Document, Project, User
from annotator.schemas import Schema
from annotator.schemas.files import project_schema


def import_annotations(session: Session, project: Project, path: Path, fmt: str, *,
                       annotator: str | None = None, category_map: dict[str, str] | None = None,
                       user_id: int | None = None,
                       options: ImportOptions | None = None, item_key: tuple[str, ...] = (),
                       annotator_map: dict[str, str] | None = None,
                       replace: bool = False, prepare=None) -> ImportReport:
    """Read ``path`` in ``fmt`` and store it; raises IngestError and writes nothing on any
    problem. The caller commits. ``item_key`` and ``annotator_map``: Label Studio (see
    :mod:`annotator.interop.labelstudio`); ``replace``: see ``store_annotations``;
    ``prepare(records, report) -> records``: a step between reading and storing (a Label
    Studio pull merges into the stored work there; it raises IngestError to refuse)."""
    return import_annotation_files(session, project, [(path, annotator)], fmt,
                                   category_map=category_map, user_id=user_id,
                                   options=options, item_key=item_key,
                                   annotator_map=annotator_map, replace=replace,
                                   prepare=prepare)


def import_annotation_files(session: Session, project: Project,
                            files: list[tuple[Path, str | None]], fmt: str, *,
                            category_map: dict[str, str] | None = None,
                            user_id: int | None = None, options: ImportOptions | None = None,
                            item_key: tuple[str, ...] = (),
                            annotator_map: dict[str, str] | None = None,
                            replace: bool = False, prepare=None) -> ImportReport:
    """Several files (a study's batches, in the order given), each with the annotator to
    use where the format does not say, as ONE import: every file is read and every record
    checked before anything is written, so a problem in the last batch leaves the project
    as it was. With ``options.update`` a later file's re-rating of an item replaces the
    earlier."""
    report = ImportReport()
    options = options or ImportOptions()
    schema = project_schema(project)  # once per import, not once per batch file
    records, problems = [], []
    for path, annotator in files:
        try:
            read = _read(session, project, schema, path, fmt, annotator, category_map,
                         options, item_key, annotator_map, report)
        except IngestError as exc:
            problems += exc.problems
            continue
        for r in read:  # problems and replacements name the batch a record came from
            r.file = r.file or str(path)
        records += read
    if problems:
        raise IngestError(problems)
    name = ", ".join(str(path) for path, _ in files)
    if prepare is not None:
        records = prepare(records, report)
    return store_annotations(session, project, records, name, fmt=fmt, report=report,
                             user_id=user_id, options=options, replace=replace)


def _read(session, project, schema, path, fmt, annotator, category_map, options, item_key,
          annotator_map, report) -> list[AnnotationRecord]:
    reader = READERS.get(fmt)
    if reader is None:
        raise ValueError(f"unknown annotation format {fmt!r}")
    return reader(ReadRequest(session, project, schema, Path(path), annotator, options, report,
                              category_map, item_key, annotator_map))


@dataclass
class ReadRequest:
    """What a format's reader gets: one file (or folder) of one import, and where to say
    what it did not store (``report.notes``, ``report.ignored``: never dropped silently)."""

    session: Session
    project: Project
    schema: Schema
    path: Path
    annotator: str | None  # whose work, where the file does not say
    options: ImportOptions
    report: ImportReport
    category_map: dict[str, str] | None = None  # Thresh: category -> edit type overrides
    item_key: tuple[str, ...] = ()  # Label Studio: the fields that name a rated item
    annotator_map: dict[str, str] | None = None  # Label Studio: server user -> annotator


def _thresh(read: ReadRequest) -> list[AnnotationRecord]:
    return read_thresh(read.path, read.schema, annotator=read.annotator,
                       settings=dict(read.project.settings or {}),
                       overrides=read.category_map, notes=read.report.notes,
                       options=read.options, ignored=read.report.ignored)


def _labelstudio(read: ReadRequest, minimal: bool = False) -> list[AnnotationRecord]:
    # label-studio-sdk (a fifth of a second) is loaded by a Label Studio import only.
    from annotator.interop.labelstudio import draft_note, read_labelstudio

    report = read.report
    drafts: list[dict] = []
    records = read_labelstudio(read.path, read.schema, minimal=minimal,
                               annotator=read.annotator, notes=report.notes,
                               item_key=read.item_key, annotator_map=read.annotator_map,
                               options=read.options, ignored=report.ignored, drafts=drafts)
    # Label Studio names people by e-mail: work of a known account lands on it.
    by_email = dict(read.session.execute(select(User.email, User.username).where(
        User.email.is_not(None))).all())
    for r in records:
        r.annotator = by_email.get(r.annotator, r.annotator)
    for d in drafts:  # a draft that is not the record is never dropped without a word
        d["annotator"] = by_email.get(d["annotator"], d["annotator"])
        if not d["stored"]:
            report.notes.append(draft_note(d))
    report.drafts += drafts
    return records


def _labelstudio_min(read: ReadRequest) -> list[AnnotationRecord]:
    return _labelstudio(read, minimal=True)


def _infolossqa(read: ReadRequest) -> list[AnnotationRecord]:
    known = {d.external_id: (d.source, d.target) for d in read.session.scalars(
        select(Document).where(Document.project_id == read.project.id))}
    records, invalid = read_infolossqa(read.path, read.schema, known, annotator=read.annotator,
                                       options=read.options, ignored=read.report.ignored)
    read.report.invalid += invalid
    for item in invalid:
        read.report.notes.append(f"{item['file']}:{item['line']}: field '{item['field']}': "
                                 f"invalid QA pair, not stored: {item['reason']}")
    return records


def _annotations_jsonl(read: ReadRequest) -> list[AnnotationRecord]:
    return read_jsonl(read.path, read.annotator, options=read.options,
                      ignored=read.report.ignored)


def _annotations_csv(read: ReadRequest) -> list[AnnotationRecord]:
    return read_csv(read.path, read.schema, read.annotator, options=read.options,
                    ignored=read.report.ignored)


# The annotation formats, by the name `annotator import --format` takes: each reader turns
# one file (or folder) into records and raises IngestError (FILE:LINE) on any problem;
# checking records against the schema and storing them is store_annotations' work, the same
# for every format. docs/extending.md: adding a format.
READERS: dict[str, Callable[[ReadRequest], list[AnnotationRecord]]] = {
    "thresh": _thresh,
    "labelstudio": _labelstudio,
    "labelstudio-min": _labelstudio_min,
    "infolossqa": _infolossqa,
    "annotations-jsonl": _annotations_jsonl,
    "annotations-csv": _annotations_csv,
}
assert tuple(READERS) == ANNOTATION_FORMATS, "the command's --format list names every reader"
