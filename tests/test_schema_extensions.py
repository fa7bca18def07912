"""What the schema format gained for real studies: document-level and composite edit types,
conditional (nested) questions, options read as strings, Thresh typologies as schemas, and
revising a project's schema when every stored annotation stays valid."""

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import AuditEvent, Project
from annotator.schemas import SchemaError, parse_schema
from annotator.schemas.files import dump_schema, load_schema, load_schema_file, schema_kind
from annotator.schemas.thresh_typology import parse_typology

OURS = """
name: mini
edit_types:
  - name: note
    sides: []
    fields:
      - {name: text, type: text, required: true}
  - name: change
    sides: [source, target]
    multi_span: false
    fields:
      - name: kind
        type: choice
        options:
          - value: good
            label: Helps
            fields:
              - name: how_much
                type: ordinal
                required: true
                options:
                  - {value: little, agreement_value: 1}
                  - {value: lot, agreement_value: 2}
          - {value: bad}
      - name: fluent
        type: choice
        options: [yes, no]
      - name: why
        type: text
        when: {fluent: "no"}
  - name: structure
    sides: []
    composite: true
"""


def test_document_level_composite_conditional_and_string_options():
    schema = parse_schema(OURS)
    note, change, structure = schema.edit_types
    assert note.sides == () and note.document_level and note.required_sides == ()
    assert structure.composite and structure.document_level
    assert not change.multi_span
    assert change.field("fluent").option_values() == ["yes", "no"]  # not True/False
    sub = change.field("how_much")
    assert sub.when == ("kind", ("good",)) and sub.type == "ordinal"
    assert [o.stat_value for o in sub.options] == [1, 2]
    assert [f.name for f in change.applicable_fields({"kind": "bad", "fluent": "no"})] == [
        "kind", "fluent", "why"]
    assert [f.name for f in change.applicable_fields({"kind": "good"})] == [
        "kind", "how_much", "fluent"]
    # Written back as our YAML (flat, with when) and read again: the same schema.
    again = parse_schema(dump_schema(schema))
    assert again.edit_types == schema.edit_types


@pytest.mark.parametrize("text, key, got", [
    (OURS.replace("when: {fluent: \"no\"}", "when: {fluent: maybe}"),
     "edit_types[1].fields.why.when", "maybe"),
    (OURS.replace("when: {fluent: \"no\"}", "when: {nothing: x}"),
     "edit_types[1].fields.why.when", "nothing"),
    (OURS.replace("{value: little, agreement_value: 1}", "{value: little}"),
     "edit_types[1].fields[0].options[0].fields[0].options[0].value", "little"),
    (OURS.replace("composite: true", "composite: sometimes"),
     "edit_types[2].composite", "sometimes"),
])
def test_schema_mistakes_name_the_key_and_the_value(text, key, got):
    with pytest.raises(SchemaError) as caught:
        parse_schema(text, "mini.yaml")
    assert f"mini.yaml: key '{key}'" in str(caught.value) and repr(got) in str(caught.value)


def test_a_thresh_typology_is_read_by_content_and_its_mistakes_are_named(tmp_path):
    typology = tmp_path / "study.yaml"  # the name ending does not matter
    typology.write_text("template_name: t\nedits:\n  - name: omission\n    enable_input: true\n"
                        "    type: multi_span\n    annotation:\n      - name: q\n"
                        "        options: textarea\n        required: true\n"
                        "  - name: comment\n", encoding="utf-8")
    assert schema_kind(typology.read_text()) == "thresh"
    schema = load_schema_file(typology)
    assert [(e.name, e.sides) for e in schema.edit_types] == [("omission", ("source",)),
                                                              ("comment", ())]
    assert schema.source_text.startswith("name: t\n")  # stored as our YAML
    with pytest.raises(SchemaError) as caught:
        parse_typology("edits:\n  - name: x\n    type: triple_span\n", "bad.yml")
    assert "bad.yml: key 'edits[0].type'" in str(caught.value) and "triple_span" in str(
        caught.value)
    with pytest.raises(SchemaError) as caught:
        parse_typology("edits:\n  - name: x\n    annotation:\n      - name: q\n"
                       "        options: likert-9\n", "bad.yml")
    assert "edits[0].annotation[0].options" in str(caught.value)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _project_with_one_deletion(tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    record = {"id": "d1", "source": "Mice got 5 mg daily.", "target": "Mice got a drug.",
              "_annotator": "ana", "_completed": True,
              "edits": [{"category": "deletion", "annotation": {
                  "question": "How much?", "answer": "5 mg.", "severity": 3},
                  "input_idx": [[9, 13]]}]}
    path = tmp_path / "ana.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    assert run("import", "p", path, "--format", "thresh").exit_code == 0


def test_project_schema_revision_applies_when_everything_stays_valid(env, tmp_path):
    _project_with_one_deletion(tmp_path)
    revised = tmp_path / "revised.yaml"
    revised.write_text(load_schema("infolossqa").source_text.replace(
        "prehighlighters:", "  - name: praise\n    sides: [target]\nprehighlighters:"),
        encoding="utf-8")
    result = run("project", "schema", "p", revised)
    assert result.exit_code == 0, result.output
    assert "edit type praise added" in result.output
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalar(select(Project))
        assert "name: praise" in project.schema_yaml
        event = session.scalar(select(AuditEvent).where(
            AuditEvent.action == "project.schema_revised"))
        assert event.details["changes"] == ["edit type praise added"]
        assert "name: praise" not in event.details["yaml_before"]
        from annotator.study.schema_history import revisions

        assert [r["changes"] for r in revisions(session, project)] == [
            ["edit type praise added"]]
    database.dispose()


def test_project_schema_revision_is_refused_naming_what_would_break(env, tmp_path):
    _project_with_one_deletion(tmp_path)
    text = load_schema("infolossqa").source_text
    narrower = tmp_path / "narrower.yaml"
    narrower.write_text(text.replace("          - {value: 3, label: critical}\n", ""),
                        encoding="utf-8")
    result = run("project", "schema", "p", narrower)
    assert result.exit_code != 0
    assert "schema of p not changed: 1 stored annotation(s) would not fit" in result.output
    assert "(deletion, ana on d1): severity: expected 1, 2 (got 3)" in result.output
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        assert "critical" in session.scalar(select(Project)).schema_yaml
        assert session.scalar(select(AuditEvent).where(
            AuditEvent.action == "project.schema_revised")) is None
    database.dispose()


@pytest.mark.parametrize("name", ["qa-quality", "infolossqa", "qa-recall"])
def test_dump_schema_keeps_mode_and_suggestion_types(name):
    schema = load_schema(name)
    again = parse_schema(dump_schema(schema), "dumped")
    assert again.mode == schema.mode
    assert again.suggestion_types == schema.suggestion_types
