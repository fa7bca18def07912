"""Issue 34: the project's constituent convention (``agreement.constituents``) is chosen
on the command line, checked when it is saved, and a bad stored value is a clear error."""

from __future__ import annotations

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import Assignment, Project
from tests.test_composites_adjudication import composite_records, run, three_annotators
from tests.test_interop_real_studies import SALSA


def salsa_project(tmp_path) -> Database:
    data = tmp_path / "salsa-study.json"
    data.write_text(json.dumps(three_annotators(composite_records())), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        for a in session.scalars(select(Assignment)):
            a.status = "done"
        session.commit()
    return database


def convention(*options) -> str:
    out = run("agreement", "salsa", "--json", "--bootstrap", "0", "--no-embeddings", *options)
    return json.loads(out)["settings"]["constituents"]


def test_the_convention_is_chosen_per_report_or_saved_for_the_project(env, tmp_path):
    database = salsa_project(tmp_path)
    assert convention() == "own_type"
    assert convention("--constituents", "composite") == "composite"
    assert convention() == "own_type"  # a one-off choice is not stored
    convention("--constituents", "composite", "--save-settings")
    assert convention() == "composite"
    with database.session() as session:
        project = session.scalars(select(Project)).one()
        assert project.settings["agreement"]["constituents"] == "composite"
    database.dispose()


def test_a_bad_value_is_refused_when_given_and_named_when_found_stored(env, tmp_path):
    database = salsa_project(tmp_path)
    result = CliRunner().invoke(main, ["agreement", "salsa", "--constituents", "sentence",
                                       "--save-settings"])
    assert result.exit_code == 2 and "'sentence' is not one of" in result.output
    with database.session() as session:
        project = session.scalars(select(Project)).one()
        assert "constituents" not in (project.settings or {}).get("agreement", {})
        project.settings = {"agreement": {"constituents": "sentence"}}  # written by hand
        session.commit()
    result = CliRunner().invoke(main, ["agreement", "salsa", "--bootstrap", "0",
                                       "--no-embeddings"])
    assert result.exit_code == 2, result.output
    assert ("project salsa: settings agreement.constituents: 'sentence' is not one of "
            "own_type, composite") in result.output
    database.dispose()
