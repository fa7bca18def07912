"""Thresh files in: two annotators, mapping of categories, agreement on the result, and
all-or-nothing errors."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.ingest import IngestError
from annotator.interop.importing import import_annotations
from annotator.interop.thresh_export import typology_yaml
from annotator.models import Assignment, Edit, User
from annotator.schemas import parse_schema
from annotator.schemas.files import load_schema
from annotator.study.projects import create_project
from tests.helpers import row_counts

DATA = Path(__file__).parent / "data" / "interop"


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def test_two_annotators_thresh_folder_gives_the_hand_computed_agreement(env):
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    result = run("import", "loss", DATA / "thresh", "--format", "thresh")
    assert result.exit_code == 0, result.output
    assert "3 documents created" in result.output
    assert "cannot log in" in result.output and "ana, ben" in result.output

    database = Database(Config.from_env().database_url)
    with database.session() as session:
        users = {u.username: u for u in session.scalars(select(User))}
        assert not users["ana"].active and not users["ben"].active
        done = session.scalars(select(Assignment).order_by(Assignment.id)).all()
        assert [a.status for a in done] == ["done"] * 6
        assert sorted(a.seconds_spent for a in done if a.user.username == "ana") == [
            255.25, 310.5, 402.0]
        # ana's file says omission/concept: the infolossqa map turns them into edit types.
        types = sorted(e.edit_type for e in session.scalars(select(Edit)))
        assert types == ["deletion"] * 7 + ["oversimplification"] * 5
    database.dispose()

    report = json.loads(run("agreement", "loss", "--json", "--no-embeddings",
                            "--bootstrap", "0").output)
    # Hand computation (gold = ana, the first name; predicted = ben), source side:
    #   deletion   ana: d1 "5 mg", d2 "Lung ... 8 percent", d3 "Nausea ... 3 patients"  (3)
    #              ben: d1 "5 mg of", d2 "Lung ... 8 percent", d2 "120", d3 "Nausea ..." (4)
    #     exact:   TP 2 (d2, d3), FP 4-2 = 2, FN 3-2 = 1 -> F1 = 4/(4+2+1) = 4/7
    #     partial: "5 mg" vs "5 mg of" token IoU 2/3 >= 0.5 -> TP 3, FP 1 ("120"), FN 0
    #              -> F1 = 6/(6+1) = 6/7
    #   oversimplification ana: "12 weeks", "budesonide twice daily", "double-blind trial"
    #              ben: "12 weeks", "A double-blind trial"
    #     exact:   TP 1, FP 1, FN 2 -> 2/5;  partial: IoU("double-blind trial",
    #              "A double-blind trial") = 2/3 -> TP 2, FP 0, FN 1 -> 4/5
    # Target side (oversimplification): ana "short", "a medicine", "study"; ben "short",
    #   "study" -> exact TP 2, FP 0, FN 1 -> 4/5.
    # Sentence alpha, source: 9 sentences (3 per document), (ana, ben) marks:
    #   d1 (1,1) (1,1) (0,0); d2 (0,1) (1,0) (1,1); d3 (1,1) (0,0) (1,1)
    #   coincidences o11 = 10, o00 = 4, o01 = o10 = 2; n1 = 12, n0 = 6, n = 18
    #   alpha = 1 - (n-1) * (o01+o10) / (2 n0 n1) = 1 - 17*4/144 = 1 - 0.47222 = 0.52778
    # Target: 7 sentences, pairs (0,0) (1,1) (0,0) | (1,0) (0,0) | (1,1) (0,0)
    #   o11 = 4, o00 = 8, o01 = o10 = 1; n1 = 5, n0 = 9, n = 14
    #   alpha = 1 - 13*2/(2*9*5) = 1 - 26/90 = 0.71111
    source, target = report["spans"]["source"], report["spans"]["target"]
    assert source["exact"]["per_label"]["deletion"]["value"] == pytest.approx(4 / 7)
    assert source["exact"]["counts"]["deletion"] == {"tp": 2, "fp": 2, "fn": 1}
    assert source["partial"]["per_label"]["deletion"]["value"] == pytest.approx(6 / 7)
    assert source["exact"]["per_label"]["oversimplification"]["value"] == pytest.approx(2 / 5)
    assert source["partial"]["per_label"]["oversimplification"]["value"] == pytest.approx(4 / 5)
    assert source["exact"]["macro"]["value"] == pytest.approx((4 / 7 + 2 / 5) / 2)
    assert target["exact"]["per_label"]["oversimplification"]["value"] == pytest.approx(4 / 5)
    assert source["sentence_alpha"]["binary"]["value"] == pytest.approx(1 - 17 * 4 / 144)
    assert target["sentence_alpha"]["binary"]["value"] == pytest.approx(1 - 26 / 90)


@pytest.fixture
def loss_project(database):
    with database.session() as session:
        return create_project(session, "loss", "infolossqa").id


def _import(database, project_id, path, **kwargs):
    from annotator.models import Project

    with database.session() as session:
        return import_annotations(session, session.get(Project, project_id), path, "thresh",
                                  **kwargs)


def _write(path: Path, records) -> Path:
    path.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    return path


def _base_record():
    return json.loads((DATA / "thresh" / "ben.json").read_text())[0]


@pytest.mark.parametrize("change, field, message", [
    (lambda r: r["edits"][0].update(input_idx=[[0, 999]]), "edits[0].input_idx[0]",
     "outside the source text"),
    (lambda r: r.update(id=None), "id", "required"),
    (lambda r: r["edits"][1].update(category="fluency"), "edits[1].category",
     "maps to no edit type"),
    (lambda r: r["edits"][0]["annotation"].update(severity=7), "edits[0].annotation.severity",
     "expected 1, 2, 3"),
    (lambda r: r["edits"][0].update(output_idx=[[0, 4]]), "edits[0].output_idx[0]",
     "may only lie on: source"),
])
def test_a_bad_record_imports_nothing_and_names_file_line_field(database, loss_project,
                                                               tmp_path, change, field, message):
    good, bad = _base_record(), _base_record()
    good["id"] = "other"
    change(bad)
    path = _write(tmp_path / "ben.json", [good, bad])
    with database.session() as session:
        before = row_counts(session)
    with pytest.raises(IngestError) as caught:
        _import(database, loss_project, path)
    problem = caught.value.problems[0]
    assert (problem.file, problem.line, problem.field) == (str(path), 3, field)
    assert message in problem.message
    with database.session() as session:
        assert row_counts(session) == before


def test_unknown_category_is_kept_as_a_comment_edit_when_the_schema_has_one(database, tmp_path):
    # infolossqa's comment edit is document-level; this variant lets it span either text.
    text = load_schema("infolossqa").source_text.replace(
        "    sides: []\n", "    sides: [source, target]\n    required_sides: []\n")
    schema_file = tmp_path / "with_comment.yaml"
    schema_file.write_text(text.replace("name: infolossqa", "name: lossc"))
    assert parse_schema(schema_file.read_text()).edit_type("comment") is not None
    with database.session() as session:
        project_id = create_project(session, "lossc", str(schema_file)).id
    records = json.loads((DATA / "thresh_with_comment.json").read_text())
    records[0]["edits"][1]["category"] = "fluency"  # no such edit type, no mapping
    report = _import(database, project_id, _write(tmp_path / "cy.json", records))
    assert report.users_created == ["cy"]
    assert any("category 'fluency' kept as a comment edit" in n for n in report.notes)
    with database.session() as session:
        kept = session.scalar(select(Edit).where(Edit.edit_type == "comment"))
        assert kept.fields == {
            "comment_text": "Thresh category 'fluency': {\"text\": \"Odd wording\"}"}
        assert [(s.side, s.start, s.end) for s in kept.spans] == [("target", 0, 15)]


def test_map_option_and_already_annotated_refusal(env, tmp_path):
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    mapped = run("import", "loss", DATA / "thresh_with_comment.json", "--format", "thresh",
                 "--map", "comment=deletion")
    # 'comment' -> deletion, but deletions may not span the simplification: refused.
    assert mapped.exit_code == 2 and "may only lie on: source" in mapped.output
    folder = tmp_path / "again"
    shutil.copytree(DATA / "thresh", folder)
    assert run("import", "loss", folder, "--format", "thresh").exit_code == 0
    again = run("import", "loss", folder, "--format", "thresh")
    assert again.exit_code == 2 and "already has annotations" in again.output


def test_typology_yaml_lists_every_edit_type_with_its_sides_and_questions():
    typology = yaml.safe_load(typology_yaml(load_schema("infolossqa")))
    assert typology["template_name"] == "infolossqa"
    deletion, over, comment = typology["edits"]
    assert (comment["enable_input"], comment["enable_output"]) == (False, False)
    assert (deletion["name"], deletion["enable_input"], deletion["enable_output"]) == (
        "deletion", True, False)
    assert over["type"] == "multi_span" and over["enable_output"] is True
    questions = {q["name"]: q for q in deletion["annotation"]}
    assert questions["question"]["options"] == "textbox"
    assert [o["label"] for o in questions["severity"]["options"]] == [
        "minor", "major", "critical"]


def test_a_relabelled_edit_exports_under_its_new_type_not_the_alias_it_was_read_as(
        env, tmp_path):
    """An edit read as InfoLossQA's ``omission`` (the built-in schema's deletion) goes back
    as ``omission`` while it stays a deletion; relabelled (in Label Studio, by a lead) it
    goes back under its new type, as the export of a new edit of that type would."""
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    assert run("import", "loss", DATA / "thresh", "--format", "thresh").exit_code == 0
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        edits = session.scalars(select(Edit).where(Edit.edit_type == "deletion")
                                .order_by(Edit.id)).all()
        relabelled, kept = edits[0], edits[1]
        relabelled.edit_type = "oversimplification"
        relabelled_key = (relabelled.assignment.user.username,
                          relabelled.assignment.document.external_id,
                          [[s.start, s.end] for s in relabelled.spans if s.side == "source"])
        kept_key = (kept.assignment.user.username, kept.assignment.document.external_id,
                    [[s.start, s.end] for s in kept.spans if s.side == "source"])
    database.dispose()
    assert run("export", "loss", "--format", "thresh", "--out", tmp_path / "out").exit_code == 0

    def category(key):
        name, document, spans = key
        (record,) = [r for r in json.loads((tmp_path / "out" / f"{name}.json").read_text())
                     if r["id"] == document]
        return [e["category"] for e in record["edits"] if e["input_idx"] == spans]

    assert category(relabelled_key) == ["oversimplification"]
    assert category(kept_key) == ["omission"]
