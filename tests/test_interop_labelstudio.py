"""Label Studio: the generated labeling config, imports of the full JSON and JSON-MIN
exports, errors, predictions, and push/pull through the SDK client (HTTP mocked)."""

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.agreement.report import build_report
from annotator.agreement.store import load_agreement_input
from annotator.ingest import IngestError
from annotator.interop import labelstudio_server
from annotator.interop.annotations_store import project_records
from annotator.interop.importing import import_annotations
from annotator.interop.labelstudio_config import labeling_config, parse
from annotator.interop.labelstudio_tasks import to_tasks
from annotator.models import Project, User
from annotator.schemas.files import load_schema
from annotator.study.projects import create_project
from tests.helpers import row_counts

DATA = Path(__file__).parent / "data" / "interop" / "labelstudio"


def test_config_has_labels_on_both_texts_and_a_control_per_field():
    interface = parse(labeling_config(load_schema("infolossqa")))
    controls = {c.name: c for c in interface.controls}
    assert controls["source_labels"].labels == ["deletion", "oversimplification"]
    assert controls["target_labels"].labels == ["oversimplification"]
    # One per-region control per side: Label Studio shows a control naming both texts for
    # neither of them.
    assert controls["source_question"].tag == "TextArea"
    assert controls["source_question"].to_name == ["source"]
    assert controls["target_question"].to_name == ["target"]
    assert "target_severity" in controls and "source_severity" in controls
    assert controls["source_severity"].tag == "Rating"  # ordinal 1..3
    # The texts come from data keys that do not clash with Label Studio's own "source".
    texts = {o.name: o.value for o in interface.objects}
    assert texts == {"source": "$original", "target": "$simplification"}
    schema = parse(labeling_config(load_schema("factuality"))).to_json_schema()["properties"]
    assert schema["pair_substitution"]["enum"] == ["0", "1", "2", "-1"]


def _project(database, name, schema):
    with database.session() as session:
        return create_project(session, name, schema).id


def _import(database, project_id, path, fmt):
    with database.session() as session:
        # Label Studio user 7 left a bare id in the fixtures: the lead says who it is.
        return import_annotations(session, session.get(Project, project_id), path, fmt,
                                  annotator_map={"7": "ben"})


def test_full_export_becomes_edits_with_every_span_and_field(database):
    project_id = _project(database, "loss", "infolossqa")
    report = _import(database, project_id, DATA / "full_export.json", "labelstudio")
    assert sorted(report.users_created) == ["ana@example.org", "ben"]
    with database.session() as session:
        records = {r.annotator: r for r in project_records(session,
                                                           session.get(Project, project_id))}
        ana = records["ana@example.org"]
        assert ana.status == "done" and ana.seconds_spent == pytest.approx(328.4)
        edits = {e.edit_type: e for e in ana.edits}
        assert edits["deletion"].fields == {"question": "How much of the drug did the mice get?",
                                            "answer": "5 mg.", "severity": 2}
        # The relation links the two regions into one edit with a span on each side.
        assert [(s.side, s.start, s.end) for s in edits["oversimplification"].spans] == [
            ("source", 47, 55), ("target", 31, 36)]
        assert [e.edit_type for e in records["ben"].edits] == ["deletion"]
        assert session.scalar(select(User).where(User.username == "ben")).active is False


def test_json_min_gives_ratings_and_a_per_region_choice(database):
    project_id = _project(database, "og", "overgeneration")
    _import(database, project_id, DATA / "min_export.json", "labelstudio-min")
    with database.session() as session:
        project = session.get(Project, project_id)
        records = {r.annotator: r for r in project_records(session, project)}
        ana = records["ana@example.org"]
        assert [(e.edit_type, e.fields) for e in ana.edits] == [
            ("overgeneration", {"category": "leaked_instruction"})]
        assert [(g.level, g.item, g.field, g.value) for g in ana.ratings] == [
            ("pair", "0", "overgenerated", "yes")]
        assert records["ben"].ratings[0].value == "no"
        assert records["ben"].seconds_spent == 12.0
        report = build_report(load_agreement_input(session, project), bootstrap=0)
    metrics = report["fields"]["overgenerated"]["metrics"]
    assert metrics["k"] == 2  # from the schema's options, not from the values seen
    # One item, two raters who disagree: P_o = 0, Randolph = (0 - 1/2) / (1 - 1/2) = -1.
    assert metrics["randolph"]["value"] == pytest.approx(-1.0)


@pytest.mark.parametrize("fixture, fmt, change, field, message", [
    ("min_export.json", "labelstudio-min", lambda rows: rows[1].update(pair_overgenerated="maybe"),
     "pair_overgenerated", "choice 'maybe' is not in the schema"),
    ("min_export.json", "labelstudio-min", lambda rows: rows[0].update(
        target_category="typo"), "target_category", "choice 'typo' is not in the schema"),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["annotations"][0]["result"][0][
        "value"].update(labels=["hallucination"]), "annotations[0].result[0].value.labels",
     "unknown category 'hallucination'"),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["annotations"][1]["result"][0][
        "value"].update(end=500), "annotations[1].result[0].value", "outside the source text"),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["annotations"][1]["result"][0][
        "value"].update(start="3"), "annotations[1].result[0].value",
     'must be [start, end] with integer character offsets (got ["3", '),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["data"].pop("document_id") and
     rows[0].pop("id"), "data.document_id", "required"),
])
def test_bad_label_studio_files_import_nothing(database, tmp_path, fixture, fmt, change, field,
                                               message):
    schema = "overgeneration" if fmt == "labelstudio-min" else "infolossqa"
    project_id = _project(database, "p", schema)
    rows = json.loads((DATA / fixture).read_text())
    change(rows)
    path = tmp_path / fixture
    path.write_text(json.dumps(rows, indent=1))
    with database.session() as session:
        before = row_counts(session)
    with pytest.raises(IngestError) as caught:
        _import(database, project_id, path, fmt)
    problem = caught.value.problems[0]
    assert (problem.file, problem.field) == (str(path), field)
    assert problem.line >= 1 and message in problem.message
    with database.session() as session:
        assert row_counts(session) == before


def test_exported_predictions_are_valid_for_the_sdk():
    class Doc:
        external_id, meta = "d1", {}
        source, target = "Mice received 5 mg i.v. daily.", "Mice got a drug."

    class Sugg:
        kind, method, explanation, score = "oversimplification", "content-class", "why", 0.9
        source_spans, target_spans = [[14, 18], [19, 23]], [[9, 15]]

    schema = load_schema("infolossqa")
    tasks, skipped = to_tasks(schema, [Doc()], [], {"d1": [Sugg()]})
    prediction = tasks[0]["predictions"][0]
    assert skipped == [] and prediction["score"] == 0.9
    assert [r["value"]["text"] for r in prediction["result"] if r["type"] == "labels"] == [
        "5 mg", "i.v.", "a drug"]
    interface = parse(labeling_config(schema))
    assert interface.validate_prediction(prediction, return_errors=True) == []


def test_missing_server_settings_are_a_clear_error(env, monkeypatch):
    from click.testing import CliRunner

    from annotator.cli import main

    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    assert CliRunner().invoke(main, ["project", "create", "loss", "--schema",
                                     "infolossqa"]).exit_code == 0
    result = CliRunner().invoke(main, ["labelstudio", "push", "loss"])
    assert result.exit_code == 1 and "LABEL_STUDIO_URL" in result.output
    with pytest.raises(RuntimeError, match="LABEL_STUDIO_URL"):
        labelstudio_server.client(None, None)
