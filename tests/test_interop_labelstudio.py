"""Label Studio: the generated labeling config, imports of the full JSON and JSON-MIN
exports, errors, predictions, and push/pull through the SDK client (HTTP mocked)."""

import json
from pathlib import Path

import httpx
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
from annotator.schemas import load_schema
from annotator.study.projects import create_project
from tests.helpers import row_counts

DATA = Path(__file__).parent / "data" / "interop" / "labelstudio"


def test_config_has_labels_on_both_texts_and_a_control_per_field():
    interface = parse(labeling_config(load_schema("infolossqa")))
    controls = {c.name: c for c in interface.controls}
    assert controls["source_labels"].labels == ["deletion", "oversimplification"]
    assert controls["target_labels"].labels == ["oversimplification"]
    assert controls["question"].tag == "TextArea" and controls["question"].to_name == [
        "source", "target"]
    assert controls["severity"].tag == "Rating"  # ordinal 1..3
    schema = parse(labeling_config(load_schema("factuality"))).to_json_schema()["properties"]
    assert schema["pair_substitution"]["enum"] == ["0", "1", "2", "-1"]


def _project(database, name, schema):
    with database.session() as session:
        return create_project(session, name, schema).id


def _import(database, project_id, path, fmt):
    with database.session() as session:
        return import_annotations(session, session.get(Project, project_id), path, fmt)


def test_full_export_becomes_edits_with_every_span_and_field(database):
    project_id = _project(database, "loss", "infolossqa")
    report = _import(database, project_id, DATA / "full_export.json", "labelstudio")
    assert sorted(report.users_created) == ["ana@example.org", "ls-user-7"]
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
        assert [e.edit_type for e in records["ls-user-7"].edits] == ["deletion"]
        assert session.scalar(select(User).where(User.username == "ls-user-7")).active is False


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
        assert records["ls-user-7"].ratings[0].value == "no"
        assert records["ls-user-7"].seconds_spent == 12.0
        report = build_report(load_agreement_input(session, project), bootstrap=0)
    metrics = report["fields"]["overgenerated"]["metrics"]
    assert metrics["k"] == 2  # from the schema's options, not from the values seen
    # One item, two raters who disagree: P_o = 0, Randolph = (0 - 1/2) / (1 - 1/2) = -1.
    assert metrics["randolph"]["value"] == pytest.approx(-1.0)


@pytest.mark.parametrize("fixture, fmt, change, field, message", [
    ("min_export.json", "labelstudio-min", lambda rows: rows[1].update(pair_overgenerated="maybe"),
     "pair_overgenerated", "choice 'maybe' is not in the schema"),
    ("min_export.json", "labelstudio-min", lambda rows: rows[0].update(category="typo"),
     "category", "choice 'typo' is not in the schema"),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["annotations"][0]["result"][0][
        "value"].update(labels=["hallucination"]), "annotations[0].result[0].value.labels",
     "unknown category 'hallucination'"),
    ("full_export.json", "labelstudio", lambda rows: rows[0]["annotations"][1]["result"][0][
        "value"].update(end=500), "annotations[1].result[0].value", "outside the source text"),
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


def test_push_and_pull_go_through_the_sdk_client(tmp_path):
    seen = []
    export = json.loads((DATA / "full_export.json").read_text())

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path, request.headers.get("authorization")))
        if request.url.path == "/api/projects/" and request.method == "POST":
            body = json.loads(request.content)
            assert body["label_config"].startswith("<View>")
            return httpx.Response(201, json={"id": 12, "title": body["title"]})
        if request.url.path == "/api/projects/12/import":
            assert json.loads(request.content)[0]["data"]["document_id"] == "d1"
            return httpx.Response(201, json={"task_count": 1})
        if request.url.path == "/api/projects/12/export":
            assert request.url.params["export_type"] == "JSON"
            return httpx.Response(200, content=json.dumps(export).encode())
        return httpx.Response(404, json={})

    ls = labelstudio_server.client("http://ls.test", "secret-token",
                                   httpx.Client(transport=httpx.MockTransport(handler)))
    project_id = labelstudio_server.push(ls, "loss", labeling_config(load_schema("infolossqa")),
                                         [{"data": export[0]["data"]}])
    out = labelstudio_server.pull(ls, project_id, tmp_path / "pulled.json")
    assert project_id == 12 and json.loads(out.read_text()) == export
    assert [s[:2] for s in seen] == [("POST", "/api/projects/"),
                                     ("POST", "/api/projects/12/import"),
                                     ("GET", "/api/projects/12/export")]
    assert all("secret-token" in (s[2] or "") for s in seen)
    with pytest.raises(RuntimeError, match="LABEL_STUDIO_URL"):
        labelstudio_server.client(None, None)
