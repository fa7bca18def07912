"""``annotator iaa`` through click's CliRunner on the command object."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotator.commands.iaa import iaa

DATA = Path(__file__).parent / "data" / "agreement"


def run(*args):
    return CliRunner().invoke(iaa, [str(a) for a in args])


@pytest.mark.parametrize("level,expected", [("nominal", "0.743"), ("ordinal", "0.815"),
                                            ("interval", "0.849"), ("ratio", "0.797")])
def test_alpha_levels_on_krippendorff_example(level, expected):
    result = run(DATA / "krippendorff2011.csv", "--metric", "alpha", "--level", level)
    assert result.exit_code == 0, result.output
    assert round(float(result.stdout), 3) == float(expected)


def test_fleiss_and_percent():
    result = run(DATA / "fleiss1971.csv", "--metric", "fleiss")
    assert result.exit_code == 0 and round(float(result.stdout), 3) == 0.430
    result = run(DATA / "three_raters.csv", "--metric", "percent")
    # items (1,1,2), (2,2,2), (1,2,1): 1/3, 1, 1/3
    assert result.exit_code == 0 and result.stdout.strip() == f"{5 / 9:.6f}"


def test_randolph_categories_and_warning(tmp_path):
    path = tmp_path / "r.csv"
    # counts [[6,1,0],[0,7,0]]: 7 raters, 2 items
    path.write_text("a,b,c,d,e,f,g\nx,x,x,x,x,x,y\ny,y,y,y,y,y,y\n")
    result = run(path, "--metric", "randolph", "--categories", "3")
    assert result.exit_code == 0 and round(float(result.stdout), 3) == 0.786
    assert result.stderr == ""
    result = run(path, "--metric", "randolph")
    assert round(float(result.stdout), 3) == 0.714
    assert "warning" in result.stderr and "--categories" in result.stderr
    result = run(path, "--metric", "randolph", "--categories", "1")
    assert result.exit_code == 2


def test_cohen_needs_two_columns(tmp_path):
    result = run(DATA / "three_raters.csv", "--metric", "cohen")
    assert result.exit_code == 2 and "exactly 2" in result.stderr
    path = tmp_path / "two.csv"
    path.write_text("r1,r2\n" + "\n".join(["a,a"] * 88 + ["a,b"] * 14 + ["a,c"] * 18 + ["b,a"] * 10
                                         + ["b,b"] * 40 + ["b,c"] * 10 + ["c,a"] * 2 + ["c,b"] * 6
                                         + ["c,c"] * 12) + "\n")
    result = run(path, "--metric", "cohen")
    assert result.exit_code == 0 and round(float(result.stdout), 3) == 0.492


def test_bad_files_name_file_line_and_column(tmp_path):
    result = run(DATA / "ragged.csv")
    assert result.exit_code == 2
    assert (
        "ragged.csv" in result.stderr and "line 3" in result.stderr and "column 3" in result.stderr
    )
    result = run(DATA / "not_number.csv", "--level", "interval")
    assert result.exit_code == 2
    assert "line 3, column 2" in result.stderr and "'x'" in result.stderr
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    result = run(empty)
    assert result.exit_code == 2 and "line 1" in result.stderr
    result = run(tmp_path / "missing.csv")
    assert result.exit_code == 2 and "missing.csv" in result.stderr


def test_undefined_coefficient_is_a_message_not_a_traceback(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("a,b\n1,1\n1,1\n")
    result = run(path, "--metric", "alpha")
    assert result.exit_code == 1
    assert "undefined" in result.stderr and "one category" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
