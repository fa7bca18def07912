"""Task schemas: the built-ins load, and a malformed file is rejected with file, key and
what was expected."""

import pytest

from annotator.schemas import SchemaError, builtin_names, parse_schema
from annotator.schemas.files import load_schema

VALID = """
name: mini
edit_types:
  - name: deletion
    sides: [source]
    fields:
      - {name: question, type: text, required: true}
      - name: severity
        type: ordinal
        options: [{value: 1, label: minor}, {value: 2, label: major}]
ratings:
  - {name: simple, level: sentence, type: choice, options: ["yes", "no"]}
prehighlighters: [deletion]
"""


def test_builtins_cover_the_first_workflows():
    assert {"infolossqa", "overgeneration", "factuality"} <= set(builtin_names())


def test_infolossqa_edit_types_and_sides():
    schema = load_schema("infolossqa")
    deletion = schema.edit_type("deletion")
    over = schema.edit_type("oversimplification")
    assert deletion.sides == ("source",)
    assert over.sides == ("source", "target") and over.required_sides == ("source", "target")
    assert [f.name for f in deletion.fields if f.required] == ["question", "answer"]
    assert "infolossqa.md" == schema.guideline


def test_factuality_gibberish_counts_as_most_severe():
    schema = load_schema("factuality")
    insertion = schema.rating("insertion", "pair")
    assert insertion.type == "ordinal"
    assert [o.value for o in insertion.options] == [0, 1, 2, -1]
    assert [o.stat_value for o in insertion.options] == [0, 1, 2, 3]


def test_valid_schema_parses_with_rating_levels():
    schema = parse_schema(VALID, "mini.yaml")
    assert schema.rating("simple").level == "sentence"
    assert schema.edit_type("deletion").required_sides == ("source",)
    assert schema.rating("simple").option_values() == ["yes", "no"]


@pytest.mark.parametrize("broken, key, expected", [
    (VALID.replace("sides: [source]", "sides: both"), "edit_types[0].sides",
     "a list of 'source' and/or 'target'"),
    (VALID.replace("type: ordinal", "type: slider"), "edit_types[0].fields[1].type",
     "one of ['text', 'choice', 'ordinal', 'multichoice']"),
    (VALID.replace("level: sentence", "level: paragraph"), "ratings[0].level",
     "one of ['document', 'sentence', 'pair', 'qa']"),
    (VALID.replace("name: mini", "name: ''"), "name", "a non-empty string"),
    (VALID.replace("{value: 1, label: minor}", "{value: low, label: minor}"),
     "edit_types[0].fields[1].options[0].value", "a number"),
    (VALID.replace("prehighlighters: [deletion]", "prehighlighters: [magic]"),
     "prehighlighters[0]", "one of"),
    (VALID.replace("edit_types:", "edit_typos:"), "edit_typos", "one of"),
    (VALID.replace('options: ["yes", "no"]', 'options: ["yes"]'), "ratings[0].options",
     "at least two options"),
    ("name: [unclosed", "line 1", "valid YAML"),
])
def test_malformed_schema_names_file_key_and_expectation(broken, key, expected):
    with pytest.raises(SchemaError) as caught:
        parse_schema(broken, "custom/mini.yaml")
    message = str(caught.value)
    assert message.startswith("custom/mini.yaml: key ")
    assert f"'{key}'" in message
    assert expected in message


def test_required_sides_must_be_a_subset_of_sides():
    broken = VALID.replace("sides: [source]", "sides: [source]\n    required_sides: [target]")
    with pytest.raises(SchemaError, match="required_sides"):
        parse_schema(broken, "x.yaml")


def test_unknown_schema_name_lists_the_builtins():
    with pytest.raises(SchemaError, match="infolossqa"):
        load_schema("no-such-schema")


def test_user_schema_file_loads_from_path(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(VALID)
    assert load_schema(str(path)).name == "mini"


def test_the_docs_schema_example_is_valid():
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "schemas.md").read_text()
    block = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    schema = parse_schema(block, "docs/schemas.md")
    assert schema.name == "lossy"
    assert schema.edit_type("deletion").field("severity").options[2].stat_value == 3
