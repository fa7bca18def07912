"""Read the InfoLossQA expert annotations (Thresh exports) for the real-data benchmarks.

Layout (Trienes et al. 2024 release): ``annotations/annotations-<expert>/<pmcid>-annotations.json``,
each a Thresh list with one record holding ``source``, ``target`` and ``edits``
(``category`` omission | concept | comment, ``input_idx`` spans in the original,
``output_idx`` spans in the simplification). Comments have no spans and are left out.

The development slice is kept with the tests in ``tests/data/infolossqa-dev`` (licence and
attribution: tests/data/README.md); ``--data DIR`` points the benchmarks at another copy
(e.g. the full release).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from annotator.core.edit_match import Mark

# The slice the tests read (tests/helpers.py: INFOLOSSQA), inside the repository.
DEFAULT_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "infolossqa-dev"


@dataclass
class Document:
    id: str
    source: str
    target: str
    marks: dict[str, list[Mark]] = field(default_factory=dict)        # expert -> marks
    rationales: dict[str, list[list]] = field(default_factory=dict)    # expert -> [(E, R)]


def load(data_dir: Path) -> dict[str, Document]:
    """Every document with the marks of each expert who annotated it."""
    folder = Path(data_dir) / "annotations"
    if not folder.is_dir():
        raise SystemExit(f"{folder}: no annotations folder (use --data DIR)")
    docs: dict[str, Document] = {}
    for path in sorted(folder.glob("annotations-*/*-annotations.json")):
        expert = path.parent.name.removeprefix("annotations-")
        for record in json.loads(path.read_text(encoding="utf-8")):
            doc_id = str(record["id"])
            doc = docs.setdefault(doc_id, Document(doc_id, record["source"], record["target"]))
            if doc.source != record["source"] or doc.target != record["target"]:
                raise SystemExit(f"{path}: document {doc_id} differs from another expert's copy")
            marks = doc.marks.setdefault(expert, [])
            pairs = doc.rationales.setdefault(expert, [])
            for edit in record.get("edits", []):
                mark = Mark.of(edit.get("category", ""), edit.get("input_idx") or [])
                if mark is not None:
                    marks.append(mark)
                    pairs.append([list(map(tuple, edit.get("input_idx") or [])),
                                  list(map(tuple, edit.get("output_idx") or []))])
    return docs


def annotations(docs: dict[str, Document]) -> dict[str, dict[str, list[Mark]]]:
    return {d.id: d.marks for d in docs.values()}


def scored_marks(docs: dict[str, Document], all_spans: bool = False
                 ) -> dict[str, dict[str, list[Mark]]]:
    """document -> expert -> marks as the benchmarks score them: each edit by its first
    evidence span (the paper's convention), or by every span with ``all_spans``."""
    return {d.id: {name: [m if all_spans else Mark(m.kind, m.spans[:1]) for m in marks]
                   for name, marks in d.marks.items()} for d in docs.values()}
