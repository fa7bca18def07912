"""Hardening, round three: each failure an attacker's re-probe found, reproduced and now
refused (lead escalation through assignment, writers escaping their folder, a long name
blocking releases, numbers and bytes reaching a 500, frozen gold for every writer, and the
smaller findings)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from annotator.cli import main
from annotator.commands.serve import secret_key_problem
from annotator.core import strict_json
from annotator.core.safe_paths import MAX_COMPONENT_BYTES
from annotator.interop.annotations_store import store_annotations
from annotator.interop.exporting import export_project
from annotator.interop.records import AnnotationRecord
from annotator.models import Assignment, Document, Edit, Project, User
from annotator.releases import list_releases
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from annotator.web.formatting import duration
from tests.adjudication_fixtures import project_of, release
from tests.conftest import PASSWORD, csrf_token, login, run_queued_jobs
from tests.helpers import pairs, write_jsonl


def _post(client, path, **form):
    token = csrf_token(client, "/users/")
    return client.post(path, data={"csrf_token": token, **form})


def _id(database, name) -> int:
    with database.session() as session:
        return session.scalar(select(User.id).where(User.username == name))


@pytest.fixture
def two_leads(database, users, tmp_path):
    """lee leads 'trial' (ana); lou leads 'Trial 2' (cat, and ana shared with trial)."""
    from annotator.annotate.assignment import assign_documents
    from annotator.ingest import import_file

    with database.session() as session:
        lou = create_user(session, "lou", PASSWORD, "lead")
        create_user(session, "cat", PASSWORD, "annotator")
        trial = create_project(session, "trial", "infolossqa", annotators_per_doc=1,
                               leads=[session.get(User, users["lee"])])
        import_file(session, trial, write_jsonl(tmp_path / "t.jsonl", pairs(2)))
        assign_documents(session, trial, ["ana"])
        other = create_project(session, "Trial 2", "infolossqa", leads=[lou])
        import_file(session, other, write_jsonl(tmp_path / "t2.jsonl", pairs(2, "e")))
        assign_documents(session, other, ["cat", "ana"])
        return {"trial": trial.id, "other": other.id,
                "trial_doc": trial.documents[0].id}


def test_assigning_another_leads_annotator_does_not_hand_over_the_account(
        app, client, database, two_leads):
    login(client, "lee")
    token = csrf_token(client, f"/projects/{two_leads['trial']}/documents")
    page = client.post(f"/projects/{two_leads['trial']}/documents/bulk", data={
        "csrf_token": token, "action": "assign", "doc": [two_leads["trial_doc"]], "to": "cat"},
        follow_redirects=True).get_data(as_text=True)
    assert "1 document(s) assigned to cat." in page  # the assignment itself is allowed
    cat, ana = _id(database, "cat"), _id(database, "ana")
    for who in (cat, ana):  # cat now also in trial; ana shared from the start
        for path, form in (("password", {"password": "taken-over-pw"}),
                           ("active", {"active": "0"}), ("email", {"email": "x@example.org"})):
            assert _post(client, f"/users/{who}/{path}", **form).status_code == 404
    listing = client.get("/users/").get_data(as_text=True)
    assert 'data-user="cat"' not in listing and 'data-user="ana"' not in listing
    outsider = app.test_client()
    assert login(outsider, "cat", "taken-over-pw").status_code == 401  # never changed
    admin = app.test_client()
    login(admin, "root")
    assert _post(admin, f"/users/{cat}/password", password="admin-set-pw").status_code == 302


def test_a_lead_cannot_activate_an_imported_account_but_an_admin_can(
        app, client, database, study, tmp_path):
    record = {"id": "d1", "annotator": "imported1", "edits": [], "ratings": [],
              "status": "in_progress"}
    with database.session() as session:
        project = session.get(Project, study["project_id"])
        doc = session.scalar(select(Document).where(Document.project_id == project.id))
        record["id"] = doc.external_id
        store_annotations(session, project, [AnnotationRecord(
            document_id=doc.external_id, annotator="imported1", line=1)], "x.jsonl",
            fmt="jsonl")
    imported = _id(database, "imported1")
    login(client, "lee")
    assert _post(client, f"/users/{imported}/active", active="1").status_code == 403
    assert _post(client, f"/users/{imported}/password", password="lead-set-pw").status_code == 403
    admin = app.test_client()
    login(admin, "root")
    assert _post(admin, f"/users/{imported}/active", active="1").status_code == 302
    with database.session() as session:
        assert session.get(User, imported).active
    # Once an admin activated it, it is an ordinary account of the lead's project.
    assert _post(client, f"/users/{imported}/active", active="0").status_code == 302
    assert _post(client, f"/users/{imported}/active", active="1").status_code == 302


CLIMBING = "../../../outside/y"


@pytest.mark.parametrize("fmt", ["thresh", "labelstudio-min"])
@pytest.mark.parametrize("name", [CLIMBING, "/tmp/absolute-y", "a/b", "/" * 70, "é" * 80,
                                  "\U0001F600" * 64,
                                  "x" * 80])
def test_every_per_annotator_writer_stays_in_its_folder(database, adjudicated, tmp_path,
                                                        fmt, name):
    with database.session() as session:
        session.execute(update(User).where(User.username == "ana").values(username=name))
    out = tmp_path / "deep" / "out"
    with database.session() as session:
        result = export_project(session, session.scalar(select(Project)), fmt, out)
    files = sorted(out.iterdir())
    assert len(files) == 2 and all(p.is_file() and p.parent == out for p in files)
    assert all(len(p.name.encode()) <= MAX_COMPONENT_BYTES + len(".json") for p in files)
    assert sorted(result.written) == files
    assert not (tmp_path / "outside").exists() and not (tmp_path / "deep" / "outside").exists()
    by_name = {json.loads(p.read_text())[0].get("annotator", p.stem) for p in files}
    assert by_name  # each file holds records


def test_labelstudio_min_export_command_keeps_a_climbing_name_inside(
        env, database, adjudicated, tmp_path):
    with database.session() as session:
        session.execute(update(User).where(User.username == "ana").values(username=CLIMBING))
    out = tmp_path / "a" / "b" / "c" / "out"
    result = CliRunner().invoke(main, ["export", "qa", "--format", "labelstudio-min",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "%2E.%2F..%2F..%2Foutside%2Fy.json", "ben.json"]
    assert not (tmp_path / "a" / "outside").exists()


def test_a_long_name_no_longer_blocks_the_release(database, adjudicated, tmp_path, app, client):
    with database.session() as session:
        session.execute(update(User).where(User.username == "ana").values(username="/" * 70))
        session.execute(update(User).where(User.username == "ben").values(username="/" * 71))
    manifest = release(database, adjudicated, tmp_path / "exports")
    raw = sorted(n for n in manifest["files"] if n.startswith("annotations/"))
    assert len(raw) == 2 and raw[0] != raw[1]  # distinct names, distinct files
    assert all(len(n.split("/")[1].encode()) <= MAX_COMPONENT_BYTES + len(".jsonl") for n in raw)


@pytest.mark.parametrize("path, method", [
    ("/api/edits/{edit}", "PUT"), ("/api/assignments/{aid}/time", "POST"),
    ("/api/assignments/{aid}/status", "POST"),
    ("/api/assignments/{aid}/suggestions/1", "POST"),
    ("/api/assignments/{aid}/ratings", "PUT")])
def test_a_5000_digit_integer_is_refused_not_a_500(ana, study, database, path, method):
    aid = study["assignments"]["ana"][0]
    edit = ana.send("POST", f"/api/assignments/{aid}/edits", {
        "edit_type": "deletion", "fields": {"question": "What dose?", "answer": "1.5"},
        "spans": [{"side": "source", "start": 0, "end": 8}]}).get_json()["edit"]["id"]
    huge = "9" * 5000
    for key in ("version", "seconds", "status", "fields"):
        raw = ('{"%s": %s, "version": 1, "seconds": 1, "status": "done", "action": "accept"}'
               % (key, huge)).encode()
        response = ana.client.open(path.format(aid=aid, edit=edit), method=method, data=raw,
                                   content_type="application/json",
                                   headers={"X-CSRFToken": ana.token})
        assert response.status_code in (400, 422), (key, response.status_code)
        assert "digits" in response.get_json()["message"]
    with database.session() as session:
        assert session.get(Edit, edit).version == 1  # nothing changed


def test_strict_json_bounds_integers_and_seconds():
    with pytest.raises(strict_json.StrictJSONError, match="5000 digits"):
        strict_json.loads('{"n": %s}' % ("1" * 5000))
    assert strict_json.value_problem({"n": 2**63})[0] == "n"
    assert strict_json.value_problem({"n": 2**63 - 1}) is None
    assert strict_json.seconds_problem(1e308) and strict_json.seconds_problem(-1)
    assert strict_json.seconds_problem(True) and strict_json.seconds_problem(float("nan"))
    assert strict_json.seconds_problem(3600) is None
    assert duration(float("inf")) == "unknown" and duration(1e308) != ""


def _import(tmp_path, rows, *extra):
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    return path, CliRunner().invoke(main, ["import", "trial", str(path), "--format",
                                           "annotations-jsonl", *extra])


@pytest.mark.parametrize("change, field", [
    ({"seconds_spent": 1e308}, "seconds_spent"),
    ({"annotator": "x" * 81}, "annotator"),
    ({"annotator": "with space"}, "annotator"),
    ({"annotator": "esc\x1bname"}, "annotator")])
def test_import_refuses_bounds_with_file_line_field(env, database, study, tmp_path, change,
                                                    field):
    with database.session() as session:
        docs = session.scalars(select(Document.external_id).where(
            Document.project_id == study["project_id"])).all()
        before = session.query(Assignment).count()
    row = {"document_id": docs[0], "annotator": "newcomer", "edits": [], "status": "in_progress",
           "seconds_spent": 5, **change}
    path, result = _import(tmp_path, [row])
    assert result.exit_code == 2, result.output
    assert f"{path}:1: field '{field}'" in result.output
    assert "Traceback" not in result.output
    with database.session() as session:
        assert session.query(Assignment).count() == before


def test_import_of_a_5000_digit_integer_is_file_line(env, database, study, tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "d1", "annotator": "newcomer", "seconds_spent": %s}\n'
                    % ("7" * 5000))
    result = CliRunner().invoke(main, ["import", "trial", str(path), "--format",
                                       "annotations-jsonl"])
    assert result.exit_code == 2 and f"{path}:1:" in result.output and "digits" in result.output


def test_bulk_reopen_of_a_done_and_an_adjudicated_document_is_refused(
        client, database, adjudicated):
    pid, docs = adjudicated["project_id"], adjudicated["docs"]
    login(client, "lee")
    token = csrf_token(client, f"/projects/{pid}/documents")
    response = client.post(f"/projects/{pid}/documents/bulk", data={
        "csrf_token": token, "action": "reopen", "doc": [docs["q1"], docs["q2"]]},
        follow_redirects=True)
    assert response.status_code == 200
    assert "adjudication has started on q1, q2" in response.get_data(as_text=True)
    with database.session() as session:
        statuses = {a.status for a in session.scalars(select(Assignment).where(
            Assignment.document_id.in_([docs["q1"], docs["q2"]])))}
    assert statuses == {"done"}


def test_a_replacing_import_leaves_frozen_work_alone(database, adjudicated):
    """`labelstudio pull` imports with replace=True: an annotator's edit on a document
    under adjudication stays (gold points at it), with a note saying so."""
    with database.session() as session:
        project = session.get(Project, adjudicated["project_id"])
        report = store_annotations(session, project, [AnnotationRecord(
            document_id="q2", annotator="ana", line=3, status="done")], "pull.json",
            fmt="labelstudio", replace=True)
        assert any("pull.json:3: ana on q2: kept as stored" in n for n in report.notes)
        assert session.get(Edit, adjudicated["edits"]["e4"]) is not None


def test_fresh_plainfact_project_results_page_answers(client, database, users):
    with database.session() as session:
        pid = create_project(session, "pf", "plainfact",
                             leads=[session.get(User, users["lee"])]).id
    login(client, "lee")
    assert client.get(f"/eval/projects/{pid}/results").status_code == 200


def test_another_annotators_evaluation_assignment_is_404_like_an_unknown_id(
        app, database, users):
    from annotator.core.resources import demo_data_dir
    from annotator.evaluation.qa_import import import_predictions
    from annotator.evaluation.store import assign_items, draw_sample
    from annotator.ingest import import_file

    with database.session() as session:
        project = create_project(session, "qa", "qa-quality",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, demo_data_dir() / "eval_demo.jsonl")
        import_predictions(session, project, demo_data_dir() / "qa_demo_predictions.json")
        draw_sample(session, project, per_model=1, seed=3)
        create_user(session, "cy", PASSWORD, "annotator")
        assign_items(session, project, ["ana", "cy"])
        aid = session.scalar(select(Assignment.id).join(User).where(User.username == "ana"))
    ben = app.test_client()
    login(ben, "ben")
    assert ben.get(f"/assignments/{aid}").status_code == 404
    assert ben.get("/assignments/99999").status_code == 404
    ana = app.test_client()
    login(ana, "ana")
    assert ana.get(f"/assignments/{aid}").status_code == 302


@pytest.mark.parametrize("name", ["nul\x00name", "esc\x1b[31m", "tab\tname"])
def test_web_user_creation_refuses_control_characters(client, database, users, name):
    login(client, "root")
    page = _post(client, "/users/", username=name, password="long-enough-pw",
                 role="annotator")
    # NUL: refused at the door; other control characters by the form's own check (422 with
    # its reason)
    assert page.status_code == 422
    with database.session() as session:  # (PostgreSQL cannot even compare a NUL: count)
        assert session.query(User).count() == len(users)


def test_invalid_utf8_in_an_api_body_is_refused_not_replaced(ana, study, database):
    aid = study["assignments"]["ana"][0]
    raw = b'{"edit_type": "deletion", "fields": {"question": "dose \xff?"}, "spans": []}'
    response = ana.client.post(f"/api/assignments/{aid}/edits", data=raw,
                               content_type="application/json",
                               headers={"X-CSRFToken": ana.token})
    assert response.status_code == 400 and "UTF-8" in response.get_data(as_text=True)
    with database.session() as session:
        assert session.scalar(select(Edit).where(Edit.assignment_id == aid)) is None


def test_adjudication_rules_refuse_an_unknown_field(env, database, study):
    result = CliRunner().invoke(main, ["adjudicate", "rules", "trial", "--field",
                                       "nosuch=majority"])
    assert result.exit_code == 2 and "'nosuch' is not a field" in result.output
    result = CliRunner().invoke(main, ["adjudicate", "rules", "trial", "--field",
                                       "question=ignore"])
    assert result.exit_code == 0, result.output


def test_a_low_variety_secret_key_is_refused_on_a_public_host(env, monkeypatch):
    assert secret_key_problem("a" * 32) and secret_key_problem("ab" * 16)
    assert secret_key_problem("0123456789abcdef" * 2) is None
    monkeypatch.setenv("ANNOTATOR_SECRET_KEY", "a" * 32)
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert result.exit_code != 0 and "distinct characters" in result.output


def test_membership_in_no_project_still_lets_a_lead_add_a_new_annotator(client, database,
                                                                        users, study):
    with database.session() as session:
        create_user(session, "fresh", PASSWORD, "annotator")
    login(client, "lee")
    fresh = _id(database, "fresh")
    assert _post(client, f"/users/{fresh}/projects",
                 project_id=str(study["project_id"])).status_code == 302
    assert _post(client, f"/users/{fresh}/password", password="new-pw-1234").status_code == 302


def test_a_nul_in_any_form_or_query_value_is_a_422_before_any_query(client, database, study):
    """PostgreSQL refuses NUL in a text parameter: the login name and a bulk action's user
    name reached a query and answered 500 there."""
    token = csrf_token(client)
    response = client.post("/login", data={"username": "a\x00b", "password": "x",
                                            "csrf_token": token})
    assert response.status_code == 422 and "NUL" in response.get_data(as_text=True)
    login(client, "lee")
    pid = study["project_id"]
    token = csrf_token(client, f"/projects/{pid}/documents")
    for action in ("assign", "reassign", "reopen"):
        response = client.post(f"/projects/{pid}/documents/bulk", data={
            "csrf_token": token, "action": action, "doc": [1], "to": "x\x00", "from": "y"})
        assert response.status_code == 422 and "field &#39;to&#39;" in response.get_data(
            as_text=True)
    assert client.get(f"/projects/{pid}/documents?q=%00").status_code == 422


def test_an_import_adding_to_frozen_work_is_refused_with_file_line(database, adjudicated):
    """q2 is adjudicated: cy's assignment there holds no edits yet, so the check for
    existing annotations lets the record through, but adjudication has started there."""
    from annotator.core.records import IngestError

    with database.session() as session:
        cy = create_user(session, "cy", PASSWORD, "annotator")
        session.add(Assignment(document_id=adjudicated["docs"]["q2"], user_id=cy.id))
        session.flush()
        project = session.get(Project, adjudicated["project_id"])
        with pytest.raises(IngestError) as refused:
            store_annotations(session, project, [AnnotationRecord(
                document_id="q2", annotator="cy", line=4)], "more.jsonl", fmt="jsonl")
        assert "more.jsonl:4" in str(refused.value) and "frozen" in str(refused.value)


@pytest.mark.parametrize("schema", ["plainfact", "plaba", "qa-quality", "qa-recall"])
def test_a_fresh_evaluation_project_answers_its_results_pages(client, database, users, schema):
    with database.session() as session:
        pid = create_project(session, f"fresh-{schema}", schema,
                             leads=[session.get(User, users["lee"])]).id
    login(client, "lee")
    for path in ("", ".json", ".csv"):
        status = client.get(f"/eval/projects/{pid}/results{path}").status_code
        assert status in (200, 404), (path, status)  # 404: the mode has no such export
    assert client.get(f"/eval/projects/{pid}/results").status_code == 200


def test_the_web_release_of_a_project_with_a_long_name_is_cut(client, database, adjudicated,
                                                              app, tmp_path):
    with database.session() as session:
        session.execute(update(User).where(User.username == "ben").values(username="/" * 70))
    login(client, "lee")
    pid = adjudicated["project_id"]
    token = csrf_token(client, f"/projects/{pid}/releases")
    response = client.post(f"/projects/{pid}/releases", data={"csrf_token": token,
                                                              "version": "v1"})
    assert response.status_code in (200, 302)
    run_queued_jobs(database)
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert 'data-version="v1"' in page and "release-pending" not in page
    with database.session() as session:
        (listed,) = list_releases(session, project_of(session, adjudicated))
    raw = sorted(name for name in listed["files"] if name.startswith("annotations/"))
    assert len(raw) == 2 and any("~" in name for name in raw)


@pytest.mark.parametrize("seed", ["-1", "9" * 30])
def test_a_seed_out_of_range_is_refused_not_stored(env, database, adjudicated, seed):
    result = CliRunner().invoke(main, ["agreement", "qa", "--seed", seed, "--bootstrap", "10",
                                       "--save-settings"])
    assert result.exit_code == 2 and "--seed" in result.output and "Traceback" not in (
        result.output)
    with database.session() as session:
        assert "agreement" not in (session.get(Project, adjudicated["project_id"]).settings
                                   or {})


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=300), st.text(min_size=1, max_size=300))
def test_every_name_fits_the_budget_and_distinct_names_stay_distinct(a, b):
    from annotator.core.safe_paths import file_component

    for name in (a, b):
        assert 0 < len(file_component(name).encode("utf-8")) <= MAX_COMPONENT_BYTES
        assert "/" not in file_component(name) and file_component(name) not in (".", "..")
    if a != b:
        assert file_component(a) != file_component(b)
