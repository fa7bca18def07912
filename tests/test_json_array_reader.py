"""The JSON-array reader counts lines forward as it reads (linear in the file) and still
names the line each record starts on, and the line of a syntax error."""

import pytest

from annotator.core.records import json_array_rows, read_documents
from annotator.ingest import IngestError


def test_each_record_keeps_the_line_it_starts_on():
    text = '[\n{"id": "a"},\n\n  {"id":\n "b"}, {"id": "c"},\n\n\n{"id": "d"}\n]'
    rows = json_array_rows(text, "f.json")
    assert [line for line, _ in rows] == [2, 4, 5, 8]
    assert [row["id"] for _, row in rows] == ["a", "b", "c", "d"]


def test_a_missing_comma_is_named_at_its_line(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('[\n{"id": "a", "source": "S.", "target": "T."}\n\n'
                    '{"id": "b", "source": "S.", "target": "T."}\n]', encoding="utf-8")
    with pytest.raises(IngestError) as caught:
        read_documents(path)
    assert str(caught.value).startswith(f"{path}:4:")
    assert "expected ',' or ']'" in str(caught.value)


def test_lines_of_many_records_are_exact(tmp_path):
    path = tmp_path / "docs.json"
    records = [f'{{"id": "d{n}", "source": "S{n}.", "target": "T{n}."}}' for n in range(3000)]
    path.write_text("[\n" + ",\n\n".join(records) + "\n]\n", encoding="utf-8")
    documents = read_documents(path)
    assert [d.line for d in documents[:3]] == [2, 4, 6]
    assert documents[-1].line == 2 + 2 * 2999
