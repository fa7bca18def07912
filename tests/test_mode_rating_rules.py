"""A task mode's rule on a rating value is a stage rule, not a web-layer one (issue 30):
PlainFact's relation rule ("external" cannot go with original sentence numbers) is applied
by the annotation service and by every importer, through ``annotate.modes.rating_problem``;
a value another mode accepts is untouched."""

from __future__ import annotations

import json

from click.testing import CliRunner

from annotator.annotate.modes import rating_problem
from annotator.cli import main
from annotator.interop.records import AnnotationRecord, RatingIn, check_records
from annotator.schemas.files import load_schema

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
