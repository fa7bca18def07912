"""A release cut on the web page and one cut with `annotator release` from identical data
ship byte-identical files: both take the bootstrap resamples and seed from the project."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.overview import apply_automatic, complete
from annotator.agreement.store import bootstrap_settings, save_agreement_settings
from annotator.annotate.assignment import assign_documents
from annotator.cli import main
from annotator.db import Database
from annotator.ingest import import_file
from annotator.models import Project
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.adjudication_fixtures import SOURCE, TARGET, mark_done, qa_edit
from tests.conftest import PASSWORD, POSTGRES_ADMIN_URL, csrf_token, login, run_queued_jobs
from tests.helpers import write_jsonl


@pytest.fixture
def second_database_url(tmp_path):
    """A second, empty database of the same kind as the test's first one."""
    if not POSTGRES_ADMIN_URL:
        yield f"sqlite:///{tmp_path / 'second.sqlite3'}"
        return
    name = f"annotator_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def build_adjudicated_study(database: Database, folder, resamples: int) -> None:
    """Project 'qa': q1 and q2 annotated by ana and ben and adjudicated, q3 unfinished."""
    records = [{"id": f"q{i}", "source": SOURCE, "target": TARGET, "meta": {"system": "m"}}
               for i in (1, 2, 3)]
    with database.session() as session:
        users = {name: create_user(session, name, PASSWORD, role) for name, role in (
            ("lee", "lead"), ("ana", "annotator"), ("ben", "annotator"))}
        project = create_project(session, "qa", "infolossqa", leads=[users["lee"]])
        import_file(session, project, write_jsonl(folder / "qa.jsonl", records))
        assign_documents(session, project, ["ana", "ben"])
        save_agreement_settings(project, bootstrap=resamples, seed=7)
        docs = {doc.external_id: doc for doc in project.documents}
        q1, q2 = docs["q1"], docs["q2"]
        qa_edit(session, q1, "ana", "deletion", "2.5 mg/kg i.v. daily",
                 "How much of the drug did patients get?", severity=2)
        chosen = qa_edit(session, q1, "ben", "deletion", "2.5 mg/kg i.v.",
                          "What dose did patients receive?", severity=1)
        qa_edit(session, q1, "ben", "oversimplification", "double-blind",
                 "How was the study designed?", target_phrase="fair")
        qa_edit(session, q2, "ana", "deletion", "(p < 0.01)", "Was the change significant?")
        qa_edit(session, q2, "ben", "deletion", "(p < 0.01)", "Was the change significant?")
        qa_edit(session, q2, "ben", "deletion", "12 weeks", "How long was the treatment?")
        mark_done(session, q1, "ana", "ben")
        mark_done(session, q2, "ana", "ben")
        session.flush()
        lee = users["lee"]
        units = store.current_units(session, q1)
        d.accept(session, q1, units[0].edit_ids, chosen.id, lee)
        d.reject(session, q1, units[1].edit_ids, lee, "design still stated")
        complete(session, q1, lee)
        apply_automatic(session, q2)
        units = store.current_units(session, q2)
        decided = store.decided_units(session, q2)
        for unit in units:
            if unit.key not in decided:
                d.accept(session, q2, unit.edit_ids, unit.edit_ids[0], lee)
        complete(session, q2, lee)


def test_web_and_command_line_releases_are_byte_identical(
        app, client, database, config, second_database_url, tmp_path, monkeypatch):
    build_adjudicated_study(database, tmp_path, resamples=300)
    second = Database(second_database_url)
    second.upgrade()
    build_adjudicated_study(second, tmp_path, resamples=300)
    with database.session() as session:
        project = session.query(Project).filter_by(name="qa").one()
        assert bootstrap_settings(project) == {"bootstrap": 300, "seed": 7}
        project_id = project.id

    login(client, "lee")
    token = csrf_token(client, f"/projects/{project_id}/releases")
    client.post(f"/projects/{project_id}/releases",
                data={"version": "v1", "notes": "", "csrf_token": token})
    run_queued_jobs(database)
    web, cli = tmp_path / "web-v1", tmp_path / "cli-v1"
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", config.database_url)
    monkeypatch.setenv("ANNOTATOR_EXPORTS_PATH", str(tmp_path / "exports"))
    exported = CliRunner().invoke(main, ["release", "export", "qa", "v1", str(web)])
    assert exported.exit_code == 0, exported.output

    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", second_database_url)
    result = CliRunner().invoke(main, ["release", "qa", "--version", "v1"])
    assert result.exit_code == 0, result.output
    exported = CliRunner().invoke(main, ["release", "export", "qa", "v1", str(cli)])
    assert exported.exit_code == 0, exported.output
    second.dispose()

    names = sorted(str(p.relative_to(web)) for p in web.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(cli)) for p in cli.rglob("*") if p.is_file())
    assert "agreement.json" in names
    for name in names:
        if name != "MANIFEST.json":
            assert (web / name).read_bytes() == (cli / name).read_bytes(), name
    manifests = [json.loads((f / "MANIFEST.json").read_text()) for f in (web, cli)]
    for m in manifests:
        m.pop("created_at")
        assert m["agreement"]["bootstrap"] == 300 and m["agreement"]["seed"] == 7
    assert manifests[0] == manifests[1]
    report = json.loads((web / "agreement.json").read_text())
    assert report["settings"]["bootstrap"] == 300
    ci = report["spans"]["source"]["partial"]["macro"]["ci"]
    assert ci["resamples"] == 300 and ci["documents"] == 2


def test_the_agreement_command_saves_the_project_bootstrap(env, database, tmp_path):
    build_adjudicated_study(database, tmp_path, resamples=1000)
    saved = CliRunner().invoke(main, ["agreement", "qa", "--no-embeddings", "--bootstrap", "40",
                                      "--seed", "2", "--save-settings", "--json"])
    assert saved.exit_code == 0, saved.output
    assert json.loads(saved.output)["settings"]["bootstrap"] == 40
    with database.session() as session:
        project = session.query(Project).filter_by(name="qa").one()
        assert bootstrap_settings(project) == {"bootstrap": 40, "seed": 2}
    again = CliRunner().invoke(main, ["agreement", "qa", "--no-embeddings", "--json"])
    assert json.loads(again.output)["settings"]["seed"] == 2
    assert json.loads(again.output)["settings"]["bootstrap"] == 40
