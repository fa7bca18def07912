"""The shared error types of the input boundary, in one place.

Every reader (document, annotation, Thresh, Label Studio, QA importers, ``annotator align``)
reports a bad input as ``Problem`` values collected into one ``IngestError`` (CLI: exit 2,
``FILE:LINE: field 'x': ...``); the web layer reports a request that does not fit as
``ValidationFailed`` (422 JSON naming the field). Pure: no Flask, no database, so the readers
can raise them without loading either.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_PROBLEMS_SHOWN = 20


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        what = f"field '{self.field}': " if self.field else ""
        return f"{where}: {what}{self.message}"


class IngestError(ValueError):
    """One or more problems in an input file; nothing has been written."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        lines = [str(p) for p in problems[:MAX_PROBLEMS_SHOWN]]
        if len(problems) > MAX_PROBLEMS_SHOWN:
            lines.append(f"... and {len(problems) - MAX_PROBLEMS_SHOWN} more problems")
        super().__init__("\n".join(lines))


class ValidationFailed(ValueError):
    """The request does not fit the schema or the text; ``problems`` says where."""

    def __init__(self, problems: list[dict[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{p['field']}: {p['message']}" for p in problems))
