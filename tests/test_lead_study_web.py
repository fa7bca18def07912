"""Issue 35 (items 7 and 12): the lead's study set-up on the web, without a browser.
Creating a project (schema preview of every kind of file), importing all or nothing with
FILE:LINE problems, assigning, starting pre-highlights and reading their progress, the
agreement report page; bad input is a 4xx with a message and changes nothing; only the
project's leads get in."""

from __future__ import annotations

import io
import json

import pytest
from sqlalchemy import func, select

from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.operations.worker import Worker
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.conftest import PASSWORD, csrf_token, login
from tests.helpers import pairs
from tests.test_live_agreement import complete_with_deletion

THRESH = ("template_name: omissions\ntemplate_label: Omissions\nedits:\n"
          "  - name: omission\n    label: Omission\n    enable_input: true\n"
          "    type: multi_span\n    annotation:\n      - name: severity\n"
          "        question: How bad?\n        options: likert-3\n"
          "display: [text]\n")
LABEL_STUDIO = ("<View>\n  <Text name=\"source\" value=\"$source\"/>\n"
                "  <Text name=\"target\" value=\"$target\"/>\n"
                "  <Labels name=\"label\" toName=\"source\">\n    <Label value=\"Omission\"/>\n"
                "  </Labels>\n  <Choices name=\"fluency\" toName=\"target\">\n"
                "    <Choice value=\"good\"/><Choice value=\"bad\"/>\n  </Choices>\n</View>\n")
OURS = ("name: mini\ntitle: Mini study\nunit: document\nedit_types:\n"
        "  - name: deletion\n    label: Deletion\n    sides: [source]\n")


class Lead:
    """A logged-in client that sends the CSRF token the way the pages' forms do."""

    def __init__(self, app, username):
        self.client = app.test_client()
        assert login(self.client, username).status_code == 302
        self.token = csrf_token(self.client, "/my")

    def post(self, url, data=None, **kw):
        return self.client.post(url, data={**(data or {}), "csrf_token": self.token},
                                content_type="multipart/form-data", **kw)

    def get(self, url, **kw):
        return self.client.get(url, **kw)


def upload(name: str, text: str | bytes):
    return (io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text), name)


def jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def lee(app, users):
    return Lead(app, "lee")


@pytest.fixture
def project_id(database, users):
    with database.session() as session:
        project = create_project(session, "setup", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        return project.id


def documents_of(database, project_id) -> list[str]:
    with database.session() as session:
        return list(session.scalars(select(Document.external_id).where(
            Document.project_id == project_id).order_by(Document.position)))


# ---------------------------------------------------------------- creating a project

def test_the_preview_says_what_each_kind_of_schema_file_was_understood_to_say(lee):
    builtin = lee.post("/projects/new/preview", {"schema_source": "builtin",
                                                 "builtin": "infolossqa"})
    assert builtin.status_code == 200
    assert builtin.get_json()["lines"][0].startswith("schema YAML: infolossqa")
    thresh = lee.post("/projects/new/preview", {"schema_source": "file",
                                                "schema_file": upload("typology.yml", THRESH)})
    lines = thresh.get_json()["lines"]
    assert thresh.get_json()["kind"] == "thresh"
    assert "  omission (Omission): original, several spans per side" in lines
    assert "not used (Thresh page layout only): display" in lines
    studio = lee.post("/projects/new/preview", {"schema_source": "file",
                                                "schema_file": upload("config.xml",
                                                                      LABEL_STUDIO)})
    assert studio.get_json()["kind"] == "labelstudio"
    assert "  Omission (Omission): original, several spans per side" in studio.get_json()["lines"]
    assert "  [document] fluency: choice ['good', 'bad']" in studio.get_json()["lines"]
    ours = lee.post("/projects/new/preview", {"schema_source": "file",
                                              "schema_file": upload("mini.yaml", OURS)})
    assert ours.get_json()["lines"][0] == ("schema YAML: mini (Mini study); one record = one "
                                           "document pair")


@pytest.mark.parametrize(("form", "message"), [
    ({"schema_source": "file", "schema_file": upload("bad.yaml", "edit_types: [\n")},
     "bad.yaml: key 'line 2': expected valid YAML"),
    ({"schema_source": "file", "schema_file": upload("latin1.yaml", b"name: caf\xe9\n")},
     "latin1.yaml: key 'file': expected a UTF-8 text file"),
    ({"schema_source": "file"}, "expected a schema file to upload"),
    ({"schema_source": "builtin", "builtin": "/etc/passwd"}, "expected a built-in schema"),
    ({"schema_source": "builtin", "builtin": "../schemas/infolossqa"},
     "expected a built-in schema"),
])
def test_a_schema_that_cannot_be_read_is_a_422_naming_the_file(lee, form, message):
    response = lee.post("/projects/new/preview", form)
    assert response.status_code == 422
    assert message in response.get_json()["message"]


def test_a_lead_creates_a_project_from_an_uploaded_typology_and_leads_it(lee, database):
    response = lee.post("/projects/new", {
        "name": "omissions study", "schema_source": "file",
        "schema_file": upload("typology.yml", THRESH), "annotators_per_doc": "3"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/setup")
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "omissions study"))
        assert project.schema_name == "omissions" and project.annotators_per_doc == 3
        assert project.schema_yaml.startswith("name: omissions\n")  # stored as our YAML
        leads = session.scalars(select(User.username).join(ProjectMember).where(
            ProjectMember.project_id == project.id, ProjectMember.role == "lead")).all()
        assert leads == ["lee"]
    page = lee.get(response.headers["Location"]).get_data(as_text=True)
    assert "Project omissions study created (schema omissions)" in page


@pytest.mark.parametrize(("form", "message"), [
    ({"name": "", "builtin": "plaba"}, "Not created: name: 1-120 characters"),
    ({"name": "x", "builtin": "plaba", "annotators_per_doc": "0"},
     "annotators per document: expected 1 to 20, got 0"),
    ({"name": "x", "builtin": "plaba", "annotators_per_doc": "two"},
     "annotators per document: expected a whole number from 1 to 20, got &#39;two&#39;"),
    ({"name": "setup", "builtin": "plaba"}, "a project named &#39;setup&#39; exists already"),
    ({"name": "x", "builtin": "plaba", "leads": "ana"},
     "lead &#39;ana&#39;: no active lead or admin with that name"),
    ({"name": "x", "builtin": "nosuch"}, "expected a built-in schema"),
])
def test_a_refused_project_says_why_and_nothing_is_created(lee, database, project_id, form,
                                                           message):
    response = lee.post("/projects/new", {"schema_source": "builtin",
                                          "annotators_per_doc": "2", **form})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    with database.session() as session:
        assert session.scalar(select(func.count(Project.id))) == 1


def test_annotators_may_not_create_projects(app, users):
    ana = Lead(app, "ana")
    assert ana.get("/projects/new").status_code == 403
    assert ana.post("/projects/new/preview", {"builtin": "plaba"}).status_code == 403
    assert ana.post("/projects/new", {"name": "mine", "builtin": "plaba",
                                      "annotators_per_doc": "2"}).status_code == 403


# ---------------------------------------------------------------- import and assign

def test_an_import_of_several_files_is_all_or_nothing_with_file_line_problems(
        lee, database, project_id):
    bad = pairs(3, prefix="b")
    del bad[1]["target"]
    response = lee.post(f"/projects/{project_id}/import", {"files": [
        upload("good.jsonl", jsonl(pairs(2))), upload("bad.jsonl", jsonl(bad))]})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "Nothing was imported" in page
    assert "bad.jsonl:2: field &#39;target&#39;" in page
    assert documents_of(database, project_id) == []

    clash = lee.post(f"/projects/{project_id}/import", {"files": [
        upload("one.jsonl", jsonl(pairs(2))), upload("two.jsonl", jsonl(pairs(1)))]})
    assert clash.status_code == 400
    assert "two.jsonl:1: field &#39;id&#39;: document &#39;d1&#39; already exists" in \
        clash.get_data(as_text=True)
    assert documents_of(database, project_id) == []

    done = lee.post(f"/projects/{project_id}/import", {"files": [
        upload("good.jsonl", jsonl(pairs(2))), upload("more.csv",
                                                      "id,source,target\nc1,Long one.,Short.\n")]})
    assert done.status_code == 302
    assert documents_of(database, project_id) == ["d1", "d2", "c1"]
    assert "Imported 3 new documents from good.jsonl, more.csv." in lee.get(
        done.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize(("form", "message"), [
    ({}, "(no file): choose at least one file"),
    ({"files": upload("pairs.txt", jsonl(pairs(1)))},
     "pairs.txt: cannot tell the format from the file name; choose the format in the form"),
    ({"files": upload("pairs.jsonl", b"\xff\xfe\n")}, "pairs.jsonl:1: invalid UTF-8"),
])
def test_an_import_without_a_readable_file_is_refused_with_its_reason(lee, database,
                                                                       project_id, form, message):
    response = lee.post(f"/projects/{project_id}/import", form)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert documents_of(database, project_id) == []


def test_a_named_format_reads_a_file_whatever_its_ending(lee, database, project_id):
    response = lee.post(f"/projects/{project_id}/import", {
        "format": "jsonl", "files": upload("pairs.txt", jsonl(pairs(1)))})
    assert response.status_code == 302
    assert documents_of(database, project_id) == ["d1"]
    refused = lee.post(f"/projects/{project_id}/import", {
        "format": "xml", "files": upload("pairs.xml", "<x/>")})
    assert refused.status_code == 302
    assert "format: expected one of jsonl, json, csv or automatic, got &#39;xml&#39;" in \
        lee.get(refused.headers["Location"]).get_data(as_text=True)


def test_assigning_gives_each_document_to_the_chosen_annotators(lee, database, project_id):
    lee.post(f"/projects/{project_id}/import", {"files": upload("p.jsonl", jsonl(pairs(3)))})
    for form, message in [
        ({"per_document": "2"}, "Not assigned: choose the annotators who get documents."),
        ({"annotators": ["ana", "ben"], "per_document": "x"},
         "annotators per document: expected a whole number, got &#39;x&#39;"),
        ({"annotators": ["ana", "ben"], "per_document": "3"},
         "needs 3 annotators per document but the pool has 2"),
        ({"annotators": ["ana", "lee"], "per_document": "1"},
         "&#39;lee&#39; is a lead, not an annotator"),
    ]:
        response = lee.post(f"/projects/{project_id}/assign", form)
        assert response.status_code == 302
        assert message in lee.get(response.headers["Location"]).get_data(as_text=True)
    with database.session() as session:
        assert session.scalar(select(func.count(Assignment.id))) == 0
    response = lee.post(f"/projects/{project_id}/assign", {"annotators": ["ana", "ben"],
                                                           "per_document": "2"})
    assert "Created 6 assignments; ana holds 3, ben holds 3." in lee.get(
        response.headers["Location"]).get_data(as_text=True)


# ---------------------------------------------------------------- pre-highlights

def test_a_pre_highlight_job_is_queued_once_and_its_progress_reaches_the_total(
        app, lee, database, project_id):
    url = f"/projects/{project_id}/prehighlight"
    nothing = lee.post(url, {"scope": "new"}, headers={"Accept": "application/json"})
    assert nothing.status_code == 409
    assert "the project has no documents yet" in nothing.get_json()["message"]
    lee.post(f"/projects/{project_id}/import", {"files": upload("p.jsonl", jsonl(pairs(3)))})
    no_scope = lee.post(url, headers={"Accept": "application/json"})
    assert no_scope.status_code == 409
    assert "scope: expected 'new'" in no_scope.get_json()["message"]

    # The import queued the job: the page says so, and the button queues no second one.
    queued = lee.get(f"{url}/status").get_json()
    assert (queued["running"], queued["state"], queued["done"], queued["total"]) == (
        True, "queued", 0, 3)
    again = lee.post(url, {"scope": "new"}, headers={"Accept": "application/json"})
    assert again.status_code == 409 and "going already (queued" in again.get_json()["message"]

    Worker(database, poll_seconds=0.1).run(once=True)  # any worker, on any server
    status = lee.get(f"{url}/status").get_json()
    assert (status["done"], status["total"], status["running"]) == (3, 3, False)
    assert status["last_run"]["documents"] == 3 and status["last_run"]["error"] is None
    done = lee.post(url, {"scope": "new"})  # a form, without script: a redirect and a message
    assert "every document of the project is pre-highlighted already" in lee.get(
        done.headers["Location"]).get_data(as_text=True)


# ---------------------------------------------------------------- who gets in

def test_only_the_projects_leads_reach_its_set_up(app, database, project_id, users):
    with database.session() as session:
        create_user(session, "lou", PASSWORD, "lead")
    root = Lead(app, "root")
    assert root.get(f"/projects/{project_id}/setup").status_code == 200
    for name, expected in (("lou", 404), ("ana", 403)):
        other = Lead(app, name)
        assert other.get(f"/projects/{project_id}/setup").status_code == expected
        assert other.get(f"/projects/{project_id}/prehighlight/status").status_code == expected
        assert other.get(f"/projects/{project_id}/agreement").status_code == expected
        assert other.post(f"/projects/{project_id}/import", {
            "files": upload("p.jsonl", jsonl(pairs(1)))}).status_code == expected
        assert other.post(f"/projects/{project_id}/assign", {
            "annotators": ["ana", "ben"], "per_document": "2"}).status_code == expected
        assert other.post(f"/projects/{project_id}/prehighlight",
                          {"scope": "new"}).status_code == expected
    assert documents_of(database, project_id) == []


# ---------------------------------------------------------------- agreement

def test_the_agreement_page_shows_the_readable_report_with_plots(client, study, database):
    with database.session() as session:
        for assignment in session.scalars(select(Assignment)):
            assignment.status = "done"
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}/agreement").get_data(as_text=True)
    assert "<div class='agreement-report'>" in page and "Agreement report" in page
    assert page.count("data:image/png;base64,") >= 2
    assert "Back to trial" in page
    # The model output with a script in document 3 stays text.
    assert "<script>window.__pwned" not in page


def test_the_project_page_names_agreement_measures_and_lists_undefined_ones_last(
        client, study, database):
    complete_with_deletion(database, [study["assignments"]["ana"][0],
                                      study["assignments"]["ben"][0]], 18, 27)
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}").get_data(as_text=True)
    assert "Span F1 (exact), original, macro" in page
    assert ">edit_fields." not in page and ">spans." not in page  # no raw key shown
    table = page[page.index('id="agreement-rows"'):page.index("</table>",
                                                             page.index('id="agreement-rows"'))]
    rows = table.split("<tr data-metric=")[1:]
    undefined = [i for i, row in enumerate(rows) if 'class="undefined"' in row.split(">")[0]]
    assert undefined and len(undefined) < len(rows)
    assert undefined == list(range(len(rows) - len(undefined), len(rows)))  # n/a rows last
    assert f'href="/projects/{study["project_id"]}/agreement"' in page
