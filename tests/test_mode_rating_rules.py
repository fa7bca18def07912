"""A task mode's rule on a rating value is a stage rule, not a web-layer one (issue 30):
PlainFact's relation rule ("external" cannot go with original sentence numbers) is applied
by the annotation service and by every importer, through ``annotate.modes.rating_problem``;
a value another mode accepts is untouched."""

from __future__ import annotations

import json
from importlib.resources import files

from click.testing import CliRunner
from sqlalchemy import select

from annotator.annotate.assignment import assign_documents
from annotator.annotate.modes import rating_problem
from annotator.annotate.store import set_rating
from annotator.cli import main
from annotator.ingest import import_file
from annotator.interop.records import AnnotationRecord, RatingIn, check_records
from annotator.models import GoldRating, User
from annotator.operations.schema_revision import preview_revision
from annotator.schemas.files import load_schema, schema_from_text
from annotator.study.projects import create_project
from tests.conftest import csrf_token, login
from tests.helpers import write_jsonl

PLAINFACT = load_schema("plainfact")


def test_the_mode_declares_its_rating_rule():
    assert rating_problem(PLAINFACT, "relation", ["external", 2]) == (
        "'external' cannot go with original sentence numbers (2): choose either external or "
        "the sentences")
    assert rating_problem(PLAINFACT, "relation", ["external"]) is None
    assert rating_problem(PLAINFACT, "relation", [1, 2]) is None
    assert rating_problem(load_schema("infolossqa"), "relation", ["external", 2]) is None


def test_every_importer_applies_it_before_anything_is_stored():
    record = AnnotationRecord("d1", "ana", line=3, source="One. Two.", target="Uno.",
                              ratings=[RatingIn("sentence", "0", "relation", ["external", 1],
                                                where="ratings[0].value")])
    problems = check_records([record], PLAINFACT, "work.jsonl", {})
    assert [str(p) for p in problems] == [
        "work.jsonl:3: field 'ratings[0].value': 'relation': 'external' cannot go with "
        "original sentence numbers (1): choose either external or the sentences"]


def test_the_import_command_refuses_the_file_and_stores_nothing(env, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["project", "create", "pf", "--schema", "plainfact"]).exit_code == 0
    good = {"document_id": "d1", "source": "One. Two.", "target": "Uno. Dos.",
            "annotator": "ana", "status": "done",
            "ratings": [{"level": "sentence", "item": "0", "field": "relation",
                         "value": ["external"], "rationale": None}]}
    bad = {**good, "document_id": "d2",
           "ratings": [{**good["ratings"][0], "value": ["external", 1]}]}
    path = tmp_path / "work.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    result = runner.invoke(main, ["import", "pf", str(path), "--format", "annotations-jsonl"])
    assert result.exit_code == 2, result.output
    assert f"{path}:2: field 'ratings[0].value'" in result.output
    assert "'external' cannot go with original sentence numbers (1)" in result.output
    listed = runner.invoke(main, ["export", "pf", "--format", "jsonl"])
    assert listed.exit_code == 0
    assert "exported 0 annotator-document records" in listed.output


# One answer check for every path (issue 45): the lead's gold rating in adjudication and a
# schema revision apply the mode's rule too, not only the schema's options.

BROKEN = ["external", 1]  # both are options of 'relation'; PlainFact's rule forbids the pair
RULE = "'external' cannot go with original sentence numbers (1)"


def _rated_project(session, tmp_path, schema, values: dict[str, list], done=True):
    """Project 'pf' (lead lee) with document d1 rated on sentence 0's relation by each
    annotator in ``values``, their work marked done when ``done`` (the set-up, not the path
    tested: the rest of PlainFact's page is left unrated)."""
    lee = session.scalar(select(User).where(User.username == "lee"))
    project = create_project(session, "pf", schema, leads=[lee])
    import_file(session, project, write_jsonl(tmp_path / "pf.jsonl", [
        {"id": "d1", "source": "One. Two.", "target": "Uno. Dos."}]))
    assign_documents(session, project, sorted(values))
    document = project.documents[0]
    for a in document.assignments:
        set_rating(session, a, {"level": "sentence", "item": "0", "field": "relation",
                                "value": values[a.user.username]}, a.user_id)
        a.status = "done" if done else a.status
    session.commit()
    return project, document


def test_an_adjudicated_rating_that_breaks_the_rule_is_refused_with_422(app, database, users,
                                                                          tmp_path):
    with database.session() as session:
        project, document = _rated_project(session, tmp_path, "plainfact",
                                           {"ana": ["external"], "ben": [1]})
        pid, doc = project.id, document.id
    client = app.test_client()
    login(client, "lee")
    token = csrf_token(client, "/projects/")
    url = f"/projects/{pid}/adjudicate/{doc}/decisions"
    body = {"action": "rating", "key": "sentence|0|relation", "value": BROKEN}
    refused = client.post(url, json=body, headers={"X-CSRFToken": token})
    assert refused.status_code == 422, refused.get_json()
    assert refused.get_json()["problems"] == [{"field": "value", "message": RULE + (
        ": choose either external or the sentences")}]
    with database.session() as session:
        assert session.scalars(select(GoldRating)).all() == []  # nothing stored
    kept = client.post(url, json={**body, "value": ["external"]},
                       headers={"X-CSRFToken": token})
    assert kept.status_code == 200
    with database.session() as session:
        assert [g.value for g in session.scalars(select(GoldRating))] == [["external"]]


def test_a_schema_revision_preview_reports_a_rating_the_new_mode_refuses(database, users,
                                                                          tmp_path):
    text = (files("annotator") / "schemas" / "plainfact.yaml").read_text(encoding="utf-8")
    lenient = schema_from_text(text.replace("mode: plainfact", "mode: annotation"), "pf.yaml")
    assert rating_problem(lenient, "relation", BROKEN) is None  # stored under this schema
    with database.session() as session:
        project, _ = _rated_project(session, tmp_path, lenient, {"ana": BROKEN, "ben": [1]},
                                    done=False)
        preview = preview_revision(session, project, PLAINFACT)
        assert preview.problems == [f"rating sentence/relation (ana on d1): {RULE}: choose "
                                    "either external or the sentences"]
        assert not preview.applies
