"""Small files and cells read at the boundary go through the strict reader.

`--annotator-map FILE`: NaN, a non-object, a name that is not a string or invalid UTF-8 is
refused naming the file (and the field), exit 2, nothing imported (plain json.loads took
NaN). A CSV cell holding a list of choices: NaN stays text and is no choice."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.db import Database
from annotator.models import Rating
from tests.helpers import INFOLOSSQA_CONFIG, INFOLOSSQA_FILES


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.mark.parametrize("content, expected", [
    (b'{"3": NaN}', "NaN is not JSON"),
    (b'{"3": "kathryn", "4": 7}', "field '4': every user id must map to a name"),
    (b'{"3": "kathryn", "4": ""}', "field '4': every user id must map to a name"),
    (b'{"3": "kath\\u0000ryn"}', "field '3'"),
    (b'{"3": "kathryn"', "not valid JSON"),
    (b'{"3": "kath\xffryn"}', "invalid UTF-8"),
])
def test_a_bad_annotator_map_is_refused_naming_the_file(env, tmp_path, content, expected):
    assert run("project", "create", "acc", "--schema", INFOLOSSQA_CONFIG["accuracy"])[0] == 0
    mapping = tmp_path / "raters.json"
    mapping.write_bytes(content)
    code, out = run("import", "acc", INFOLOSSQA_FILES["accuracy"]["kathryn"], "--format",
                    "labelstudio-min", "--item-key", "edit_id", "--annotator-map", mapping)
    assert code == 2 and "Traceback" not in out, out
    assert str(mapping) in out and expected in out, out
    with Database(env["ANNOTATOR_DATABASE_URL"]).session() as session:
        assert session.scalar(select(func.count()).select_from(Rating)) == 0


def test_a_json_annotator_map_names_the_raters(env, tmp_path):
    assert run("project", "create", "acc", "--schema", INFOLOSSQA_CONFIG["accuracy"])[0] == 0
    mapping = tmp_path / "raters.json"
    mapping.write_text('{"3": " kathryn ", "4": "keziah"}', encoding="utf-8")
    code, out = run("import", "acc", INFOLOSSQA_FILES["accuracy"]["kathryn"], "--format",
                    "labelstudio-min", "--item-key", "edit_id", "--annotator-map", mapping)
    assert code == 0, out
    with Database(env["ANNOTATOR_DATABASE_URL"]).session() as session:
        assert session.scalar(select(func.count()).select_from(Rating)) > 0


def test_a_csv_multichoice_cell_holding_nan_stays_text_and_is_no_choice(tmp_path):
    """A ``field``/``rating_value`` cell is parsed with the strict reader: ``[NaN]`` is not
    a list of choices (plain json.loads read it as [nan], a float stored as a choice)."""
    from annotator.interop.tabular import read_csv
    from annotator.schemas.files import load_schema

    schema = load_schema("plainfact")
    path = tmp_path / "ratings.csv"
    path.write_text("document_id,annotator,status,seconds_spent,kind,rating_level,rating_item,"
                    "rating_field,rating_value\n"
                    'd1,ana,done,5,rating,sentence,0,relation,"[NaN]"\n'
                    'd1,ana,done,5,rating,sentence,1,relation,"[""0""]"\n', encoding="utf-8")
    (record,) = read_csv(path, schema)
    values = {r.item: r.value for r in record.ratings}
    assert values["0"] == "[NaN]" and values["1"] == ["0"], values
