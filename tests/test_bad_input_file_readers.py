"""Every file reader gives the same kind of answer to the same bad input: ONE list of bad
records, each fed to every command that reads records from a file (`annotator align`,
`annotator import` of documents as JSONL and as a JSON array, a Thresh import, the tool's
own annotation JSONL), expecting
exit status 2 and ``FILE:2:`` (the bad record is on line 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotator.cli import main

GOOD = {"id": "a", "source": "Mice got 5 mg of drug.", "target": "Mice got a drug."}
SPAN_OK = [0, 4]


def _record(source: str, target: str, span: list) -> dict:
    return {"id": "b", "source": source, "target": target, "span": span}


# (what is wrong, the bad record (its "span" goes where each format keeps spans), a change
#  to the record's serialised line). Line 1 always holds GOOD; the bad record is line 2.
BAD_INPUTS = [
    ("empty text", _record("", "T.", SPAN_OK), None),
    ("zero-length span", _record("Some source.", "T.", [3, 3]), None),
    ("reversed span", _record("Some source.", "T.", [5, 2]), None),
    ("lone \\r inside a string", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace("Some", "So\rme")),
    ("U+2028 in the text and an empty target", _record("Some\u2028source.", "", SPAN_OK),
     lambda line: line.replace("\\u2028", "\u2028")),
    ("invalid UTF-8", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace("Some", "So\udcffme")),
    ("NaN", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace('"source":', '"n": NaN, "source":', 1)),
    ("deep nesting", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace('"source":', '"m": ' + "[" * 5000 + "]" * 5000 + ', "source":',
                               1)),
    ("lone surrogate", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace("Some", "So\\ud800me")),
    ("NUL", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace("Some", "So\\u0000me")),
    ("syntax error", _record("Some source.", "T.", SPAN_OK),
     lambda line: line.replace('"source":', '"source"', 1)),
]


def _as_align(record: dict) -> dict:
    return {"id": record["id"], "source": record["source"], "target": record["target"],
            "sentence_pairs": [[record.get("span", SPAN_OK), [0, 1]]]}


def _as_document(record: dict) -> dict:
    return {"id": record["id"], "source": record["source"], "target": record["target"],
            "source_sentences": [record.get("span", SPAN_OK)]}


def _as_thresh(record: dict) -> dict:
    return {"id": record["id"], "source": record["source"], "target": record["target"],
            "_annotator": "ana", "_completed": True,
            "edits": [{"category": "omission", "id": 0,
                       "annotation": {"question": "What?", "answer": "That."},
                       "input_idx": [record.get("span", SPAN_OK)], "output_idx": None}]}


def _as_annotations(record: dict) -> dict:
    start, end = record.get("span", SPAN_OK)
    return {"document_id": record["id"], "source": record["source"],
            "target": record["target"], "annotator": "ana", "status": "done",
            "edits": [{"edit_type": "deletion", "fields": {"question": "What?"},
                       "spans": [{"side": "source", "start": start, "end": end}]}]}


def _lines(shape, bad: dict, change) -> list[str]:
    line = json.dumps(shape(bad))
    return [json.dumps(shape(GOOD)), change(line) if change else line]


def _write(path: Path, text: str) -> Path:
    # surrogateescape turns the "\udcff" placeholder into the invalid byte 0xff
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


def _jsonl(path: Path, lines: list[str]) -> Path:
    return _write(path, "\n".join(lines) + "\n")


def _array(path: Path, lines: list[str]) -> Path:
    return _write(path, "[" + ",\n".join(lines) + "]\n")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


ENTRY_POINTS = {
    "align": lambda tmp, bad, change: run(
        "align", _jsonl(tmp / "pairs.jsonl", _lines(_as_align, bad, change)), "--no-embeddings"),
    "import documents (JSONL)": lambda tmp, bad, change: run(
        "import", "docs", _jsonl(tmp / "docs.jsonl", _lines(_as_document, bad, change))),
    "import documents (JSON array)": lambda tmp, bad, change: run(
        "import", "docs", _array(tmp / "docs.json", _lines(_as_document, bad, change))),
    "import Thresh": lambda tmp, bad, change: run(
        "import", "loss", _array(tmp / "ana.json", _lines(_as_thresh, bad, change)),
        "--format", "thresh"),
    "import annotations (JSONL)": lambda tmp, bad, change: run(
        "import", "loss", _jsonl(tmp / "work.jsonl", _lines(_as_annotations, bad, change)),
        "--format", "annotations-jsonl"),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("what,bad,change", BAD_INPUTS, ids=[row[0] for row in BAD_INPUTS])
def test_every_reader_names_the_file_and_line(env, tmp_path, entry, what, bad, change):
    if entry != "align":
        assert run("project", "create", "docs", "--schema", "infolossqa").exit_code == 0
        assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    result = ENTRY_POINTS[entry](tmp_path, bad, change)
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Traceback" not in result.output
    assert ":2: " in result.output, result.output
    assert str(tmp_path) in result.output
    if what == "syntax error":  # a file that is not JSON has no field to blame
        assert "field" not in result.output.split(":2: ", 1)[1].splitlines()[0]
