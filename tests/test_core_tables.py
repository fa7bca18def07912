"""CSV tables built with pandas write exactly the bytes Python's csv module writes (the
release gold CSV, results CSV and annotation exports were byte-stable before pandas), of
cells made spreadsheet-safe (issue 41: tests/test_csv_formulas.py), and quote a cell that
holds a carriage return, which the csv module leaves bare."""

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.core.tables import csv_text, spreadsheet_safe


def reference(columns, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def test_known_answer_quoting_empty_cells_and_numbers():
    rows = [["d1", None, 0.1, 1, True, 'say "hi", then\nleave'],
            ["", "", 1e-20, -0, False, "é,ü"]]
    assert csv_text(["a", "b", "c", "d", "e", "f"], rows) == (
        'a,b,c,d,e,f\n'
        'd1,,0.1,1,True,"say ""hi"", then\nleave"\n'
        ',,1e-20,0,False,"é,ü"\n')


def test_a_single_empty_cell_and_no_rows():
    assert csv_text(["v"], [[""]]) == reference(["v"], [[""]]) == 'v\n""\n'
    assert csv_text(["a", "b"], []) == "a,b\n"


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="row 2 has 1 cells, the header 2"):
        csv_text(["a", "b"], [["1", "2"], ["3"]])


def test_a_carriage_return_is_quoted_so_no_row_starts_inside_a_cell():
    text = csv_text(["a", "b"], [["x\r=cmd|' /C calc'!A0", "\r"], ["\ue000\r\n", "y"]])
    assert text == 'a,b\n"x\r=cmd|\' /C calc\'!A0","\'\r"\n"\ue000\r\n",y\n'
    assert list(csv.reader(io.StringIO(text, newline=""))) == [
        ["a", "b"], ["x\r=cmd|' /C calc'!A0", "'\r"], ["\ue000\r\n", "y"]]


no_carriage_return = st.text(alphabet=st.characters(blacklist_characters="\r"))
cells = st.one_of(st.none(), no_carriage_return, st.integers(), st.booleans(),
                  st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.lists(no_carriage_return.filter(bool), min_size=n, max_size=n),
    st.lists(st.lists(cells, min_size=n, max_size=n), max_size=5))))
def test_same_bytes_as_the_csv_module(table):
    columns, rows = table
    assert csv_text(columns, rows) == reference(columns, [
        [spreadsheet_safe("" if v is None else str(v)) for v in row] for row in rows])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(), min_size=2, max_size=2), max_size=5))
def test_any_cells_read_back_by_the_csv_module(rows):
    text = csv_text(["a", "b"], rows)
    assert list(csv.reader(io.StringIO(text, newline="")))[1:] == [
        [spreadsheet_safe(c) for c in row] for row in rows]
