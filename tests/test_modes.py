"""Task modes come from the schema (``mode:``), never from its name: one registry
(annotator.annotate.modes) gives each mode its page, payload, done rule, results and demo."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select, text

from annotator.annotate.modes import HOOK_NAMES, MODES, ModeHookMissing, project_mode
from annotator.core.resources import demo_data_dir
from annotator.core.vocabulary import TASK_MODES
from annotator.db import Database
from annotator.evaluation.qa_import import import_predictions
from annotator.evaluation.results import project_results
from annotator.evaluation.store import assign_items, draw_sample
from annotator.migrations import upgrade
from annotator.models import Assignment, User
from annotator.schemas import BUILTIN_DIR, SchemaError, parse_schema
from annotator.schemas.files import load_schema, project_schema
from annotator.study.projects import create_project
from tests.conftest import csrf_token, login

PACKAGE = Path(__file__).resolve().parents[1] / "annotator"


def test_registry_covers_every_mode_a_schema_may_declare():
    assert tuple(MODES) == TASK_MODES
    for mode in MODES.values():
        for hook in HOOK_NAMES:
            assert (mode.hook(hook) is not None) == (hook in mode.hooks), (mode.name, hook)
            if hook in mode.hooks:
                assert callable(mode.hook(hook)), (mode.name, hook)
        if mode.has_own_page:
            assert (PACKAGE.parent / "templates" / mode.page).is_file()
            assert mode.hook("payload") is not None


def test_the_app_and_the_command_register_every_declared_hook():
    """The functions behind the hooks are registered by annotator.evaluation.modes, which
    the app factory and the ``annotator`` command import; without it, a declared hook is an
    error, never a silent "no rule"."""
    script = ("import json, sys\n"
              "import annotator.annotate.modes as m\n"
              "try:\n"
              "    m.MODES['plainfact'].hook('rating_check')\n"
              "    missing = None\n"
              "except m.ModeHookMissing as exc:\n"
              "    missing = str(exc)\n"
              "import annotator.{entry}\n"
              "print(json.dumps([missing, sorted((n, h) for n, mode in m.MODES.items()\n"
              "    for h in mode.hooks if not callable(mode.hook(h)))]))\n")
    for entry in ("cli", "app"):
        result = subprocess.run([sys.executable, "-c", script.format(entry=entry)],
                                capture_output=True, text=True, check=True)
        missing, unregistered = json.loads(result.stdout)
        assert "'plainfact': its 'rating_check' hook is not registered" in missing
        assert unregistered == []
    assert issubclass(ModeHookMissing, LookupError)
    assert MODES["plainfact"].hook("rating_check")("relation", ["external", 2]) is not None


def test_every_builtin_schema_declares_its_mode():
    for path in sorted(BUILTIN_DIR.glob("*.yaml")):
        assert re.search(r"^mode: ", path.read_text(encoding="utf-8"), re.M), path.name
    assert load_schema("plaba-2023").mode == "plaba"
    assert load_schema("infolossqa").mode == "annotation"


def test_no_code_decides_by_a_schema_name():
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if "migrations" not in p.parts
                 and re.search(r"schema_name\s*(==|!=|in\b)|MODES\.get\(.*schema",
                               p.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize("extra,key", [
    ("mode: rating\n", "mode"),
    ("suggestion_types: {tail: deletion}\n", "suggestion_types"),
    ("suggestion_types: {trailing: overgeneration}\n", "suggestion_types.trailing"),
])
def test_schema_refuses_unknown_modes_and_suggestion_types(extra, key):
    source = (BUILTIN_DIR / "infolossqa.yaml").read_text(encoding="utf-8")
    source = re.sub(r"^(mode|suggestion_types):.*\n(\s+.*\n)*", "", source, flags=re.M)
    with pytest.raises(SchemaError) as error:
        parse_schema(source + extra, "custom.yaml")
    assert error.value.key == key and "custom.yaml" in str(error.value)


def test_a_copy_of_qa_quality_under_a_new_name_keeps_its_mode(app, client, database, users,
                                                                tmp_path):
    from annotator.ingest import import_file

    custom = tmp_path / "our-qa-rating.yaml"
    custom.write_text((BUILTIN_DIR / "qa-quality.yaml").read_text(encoding="utf-8").replace(
        "name: qa-quality", "name: our-qa-rating"), encoding="utf-8")
    with database.session() as session:
        project = create_project(session, "ours", str(custom),
                                 leads=[session.get(User, users["lee"])])
        assert project.schema_name == "our-qa-rating"
        assert project_mode(project).name == "qa-quality"
        import_file(session, project, demo_data_dir() / "eval_demo.jsonl")
        import_predictions(session, project, demo_data_dir() / "qa_demo_predictions.json")
        draw_sample(session, project, per_model=1, seed=3)
        assert assign_items(session, project, ["ana", "ben"]) > 0  # the mode's rated items
        assert project_results(session, project)["mode"] == "qa-quality"
        pid = project.id
        aid = session.scalars(select(Assignment.id).join(User).where(
            User.username == "ana")).first()
    login(client, "ana")
    assert client.get(f"/assignments/{aid}").headers["Location"].endswith(
        f"/eval/assignments/{aid}")
    data = client.get(f"/eval/api/assignments/{aid}").get_json()
    assert data["mode"] == "qa-quality" and data["items"]
    assert data["schema"]["mode"] == "qa-quality"
    token = csrf_token(client, f"/eval/assignments/{aid}")
    refused = client.post(f"/eval/api/assignments/{aid}/status", headers={"X-CSRFToken": token},
                          json={"status": "done", "version": data["assignment"]["version"]})
    assert refused.status_code == 422  # the mode's done rule: every sampled item rated
    assert "is not rated" in refused.get_json()["missing"][0]["message"]
    login(client, "lee")
    assert client.get(f"/eval/projects/{pid}/results").status_code == 200


def test_the_annotation_page_receives_the_suggestion_kind_map(app, client, study):
    with app.extensions["annotator_db"].session() as session:
        aid = session.scalars(select(Assignment.id).join(User).where(
            User.username == "ana")).first()
    login(client, "ana")
    schema = client.get(f"/api/assignments/{aid}").get_json()["schema"]
    assert schema["mode"] == "annotation"
    assert schema["suggestion_types"] == {"deletion": "deletion",
                                          "oversimplification": "oversimplification"}


def test_migration_gives_old_evaluation_projects_their_mode(database_url):
    """Projects created before schemas declared a mode keep working after the upgrade."""
    db = Database(database_url)
    upgrade(db.engine, "0005")
    old_yaml = re.sub(r"^mode: .*\n", "", (BUILTIN_DIR / "qa-recall.yaml").read_text(
        encoding="utf-8"), flags=re.M)
    with db.engine.begin() as connection:
        for pid, name, body in ((1, "qa-recall", old_yaml), (2, "infolossqa", "name: x\n")):
            connection.execute(text(
                "INSERT INTO projects (id, name, schema_name, schema_yaml, annotators_per_doc, "
                "settings, created_at, version, updated_at) VALUES (:id, :n, :s, :y, 2, '{}', "
                "'2026-01-01 00:00:00+00:00', 1, '2026-01-01 00:00:00+00:00')"),
                {"id": pid, "n": f"p{pid}", "s": name, "y": body})
    upgrade(db.engine)
    with db.session() as session:
        from annotator.models import Project

        assert project_schema(session.get(Project, 1)).mode == "qa-recall"
        assert session.get(Project, 2).schema_yaml == "name: x\n"
    db.dispose()
