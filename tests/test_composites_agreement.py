"""Issue 34: composite edits (SALSA's structure / split) appear in the agreement report:
token-level agreement per composite type and field agreement on their answers, under the
project's convention for constituents, stated in the report (SALSA example, three annotators
per sentence built in the test)."""

from __future__ import annotations

import json

from sqlalchemy import select

from annotator.config import Config
from annotator.db import Database
from annotator.models import Assignment, Project
from tests.test_composites_adjudication import composite_records, run, three_annotators
from tests.test_interop_real_studies import SALSA


def report_under(convention: str | None) -> dict:
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        settings = dict(project.settings or {})
        if convention is not None:
            settings["agreement"] = {"constituents": convention}
        project.settings = settings
    database.dispose()
    return json.loads(run("agreement", "salsa", "--json", "--bootstrap", "0"))


def test_composites_get_token_and_field_agreement_under_the_stated_convention(env, tmp_path):
    records = composite_records()
    data = tmp_path / "three.json"
    data.write_text(json.dumps(three_annotators(records)), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    kind = next(e["category"] for e in records[0]["edits"] if e.get("constituent_edits"))
    n_composites = sum(1 for r in three_annotators(records) for e in r["edits"]
                       if e.get("constituent_edits"))
    n_parts = sum(len(e["constituent_edits"]) for r in three_annotators(records)
                  for e in r["edits"] if e.get("constituent_edits"))

    own = report_under(None)
    assert own["composites"]["convention"] == "own_type"
    assert own["settings"]["constituents"] == "own_type"
    assert own["composites"]["composites"] == n_composites
    assert own["composites"]["constituents"] == n_parts
    assert own["composites"]["excluded"] == []
    # before: composites had no token-level figure and every field "all ratings are missing"
    assert kind in own["tokens"]["source"]["types"]
    assert own["tokens"]["source"]["types"][kind]["fleiss"]["value"] is not None
    answered = [v for k, v in own["edit_fields"].items()
                if v["edit_type"] == kind and "." not in v["field"]]
    assert answered and all(v["matched_pairs"] > 0 for v in answered)

    salsa = report_under("composite")
    assert salsa["composites"]["convention"] == "composite"
    assert "SALSA" in salsa["composites"]["explanation"]
    part_type = records[0]["edits"][0]["category"]
    own_pairs = {k: v["matched_pairs"] for k, v in own["edit_fields"].items()}
    salsa_pairs = {k: v["matched_pairs"] for k, v in salsa["edit_fields"].items()}
    # constituents no longer pooled with their own type's top-level edits
    assert sum(salsa_pairs.values()) < sum(own_pairs.values()), (part_type, salsa_pairs)
    assert salsa["counts"]["edits"] == own["counts"]["edits"]  # every stored edit counted


def test_an_unknown_convention_is_refused_naming_the_setting(env, tmp_path):
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        project.settings = {"agreement": {"constituents": "nested"}}
    database.dispose()
    from click.testing import CliRunner

    from annotator.cli import main
    result = CliRunner().invoke(main, ["agreement", "salsa", "--json"])
    assert result.exit_code != 0
    assert "agreement.constituents: 'nested' is not one of own_type, composite" in (
        result.output + str(result.exception))


def test_the_release_manifest_states_the_convention_and_lists_left_out_edits(env, tmp_path):
    records = composite_records()
    rows = three_annotators(records)
    # one annotator's record carries a composite with no constituents and no spans
    kind = next(e["category"] for e in records[0]["edits"] if e.get("constituent_edits"))
    empty = {**next(e for e in rows[0]["edits"] if e.get("constituent_edits")),
             "id": 999, "constituent_edits": []}
    rows[0]["edits"].append(empty)
    data = tmp_path / "three.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    report = report_under("composite")
    left = report["composites"]["excluded"]
    assert [(x["edit_type"], x["annotator"], x["document"]) for x in left] == [
        (kind, "ann_a", "s0")]
    assert "has no evidence to compare" in left[0]["reason"]
    assert any("left out: a composite without spans" in w for w in report["warnings"])

    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        project.settings = {**project.settings, "adjudication": {"edit_rule": "majority"}}
        for a in session.scalars(select(Assignment)):
            a.status = "done"
    database.dispose()
    run("adjudicate", "auto", "salsa", "--no-embeddings")
    run("release", "cut", "salsa", "--version", "v1", "--bootstrap", "0")
    folder = tmp_path / "salsa-v1"
    run("release", "export", "salsa", "v1", folder)
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["agreement"]["constituents"] == "composite"
    assert "SALSA" in manifest["agreement"]["constituents_explained"]
    assert [x["edit_type"] for x in manifest["agreement"]["excluded_edits"]] == [kind]


def test_text_summary_states_the_convention_and_tells_sub_questions_apart(env, tmp_path):
    data = tmp_path / "three.json"
    data.write_text(json.dumps(three_annotators(composite_records())), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    report_under("composite")
    text = run("agreement", "salsa", "--bootstrap", "0")
    assert ("composite edits: constituents of composite edits count only under their "
            "composite (SALSA's convention)") in text
    report = json.loads(run("agreement", "salsa", "--json", "--bootstrap", "0"))
    labels = {k: v["label"] for k, v in report["edit_fields"].items()}
    assert labels["deletion.deletion_type.good_deletion"] == (
        "Deletion, Rate the efficacy (how much it helps you to read and understand the "
        "sentence?) (when deletion_type is good_deletion)")
    assert len(set(labels.values())) == len(labels)  # no two lines read the same
