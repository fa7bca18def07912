"""Annotation files given where documents are expected (issue 43).

A Thresh export (InfoLossQA's annotation files are Thresh exports) holds ``id``,
``source`` and ``target`` like a document file, so it was read as documents: each record
became a new document and its edits were dropped without a word ("Imported 1 new
documents"). Importing documents therefore looks at the shape of each record first; an
annotation record is refused, naming the file, its line and the command that imports it.

Shapes (the formats of ``annotator import --format``, see annotator/interop):

- ``thresh``: ``edits`` a list beside ``source`` and ``target`` (``_annotator``,
  ``_thresh_id``, ``_seconds_spent`` when Thresh wrote them);
- ``labelstudio``: a task with ``data`` and its ``annotations`` (or ``completions``,
  ``predictions``);
- ``labelstudio-min``: JSON-MIN rows, the task data flat beside ``annotator`` and
  ``annotation_id``;
- ``infolossqa``: ``questions.json`` rows (``document_id``, ``question``, ``answer``);
- ``annotations-jsonl``: this tool's own export (``document_id``, ``annotator`` and
  ``edits`` / ``ratings`` / ``status``); ``annotations-csv`` its CSV (columns
  ``document_id`` and ``annotator``).
"""

from __future__ import annotations

from typing import Any

# format -> (what the file is, the key that shows it, how to import it beyond --format)
SHAPES: dict[str, tuple[str, str, str]] = {
    "thresh": ("a Thresh annotation file (InfoLossQA's annotation files are Thresh "
               "exports)", "edits", "; add --annotator NAME when its records carry no "
               "_annotator (a folder of such files, one per annotator, works too)"),
    "labelstudio": ("a Label Studio JSON export (tasks with their annotations)", "annotations",
                    "; `annotator labelstudio pull PROJECT` reads it from the server"),
    "labelstudio-min": ("a Label Studio JSON-MIN export", "annotation_id", ""),
    "infolossqa": ("InfoLossQA questions (questions.json)", "question",
                   ", FOLDER holding documents.json and these questions.json"),
    "annotations-jsonl": ("this tool's annotations export (JSONL)", "annotator", ""),
    "annotations-csv": ("this tool's annotations export (CSV)", "annotator", ""),
}


def record_format(row: Any) -> str | None:
    """The annotation format a JSON record has the shape of, or None (a document, or
    something the document rules will refuse on their own)."""
    if not isinstance(row, dict):
        return None
    keys = set(row)
    if isinstance(row.get("edits"), list) and {"source", "target"} <= keys and "id" in keys:
        return "thresh"
    if isinstance(row.get("data"), dict) and keys & {"annotations", "completions",
                                                     "predictions"}:
        return "labelstudio"
    if {"annotator", "annotation_id"} <= keys:
        return "labelstudio-min"
    if {"document_id", "question", "answer"} <= keys:
        return "infolossqa"
    if {"document_id", "annotator"} <= keys and keys & {"edits", "ratings", "status"}:
        return "annotations-jsonl"
    return None


def csv_header_format(header: list[str]) -> str | None:
    """``annotations-csv`` for the header of this tool's annotations CSV, else None."""
    return "annotations-csv" if {"document_id", "annotator"} <= set(header) else None


def refusal(fmt: str, name: str) -> tuple[str, str]:
    """(field, message) refusing the annotation file ``name`` (of format ``fmt``) given as
    documents: what it is, and the command that imports it."""
    what, key, more = SHAPES[fmt]
    given = "FOLDER" if fmt == "infolossqa" else name  # that format reads a folder
    return key, (f"this is {what}, not a file of documents (read as documents, its "
                 "annotations would be dropped); import it with "
                 f"`annotator import PROJECT {given} --format {fmt}`{more}")


def first_annotation_record(rows: list[tuple[int, Any]]) -> tuple[int, str] | None:
    """(line, format) of the first record of ``rows`` ((line, value) pairs) shaped as an
    annotation record, or None."""
    for line, row in rows:
        fmt = record_format(row)
        if fmt is not None:
            return line, fmt
    return None
