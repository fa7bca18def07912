"""The guideline a schema file carries becomes the project's guideline (issue 43): a Thresh
typology's ``instructions`` (the InfoLossQA authors' real typology), a Label Studio
config's headers, a YAML schema's ``guideline`` text. Shown in the annotators' guideline
tab and shipped in a release as guideline.md; nothing of it is dropped."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner
from sqlalchemy import select

from annotator.adjudication.overview import complete
from annotator.annotate.assignment import assign_documents
from annotator.annotate.store import set_status
from annotator.cli import main
from annotator.ingest import import_file
from annotator.models import Assignment, Document, Project, User
from annotator.releases import cut_release
from annotator.releases.browse import release_file
from annotator.schemas.files import load_schema_file, schema_from_text
from annotator.study.projects import create_project
from tests.conftest import login
from tests.helpers import (
    INFOLOSSQA_CONFIG,
    INFOLOSSQA_TYPOLOGY,
    pairs,
    schema_file_assignment,
    write_jsonl,
)
from tests.test_lead_study_web import Lead, upload

# The authors' instructions, as their typology writes them.
INSTRUCTIONS = yaml.safe_load(INFOLOSSQA_TYPOLOGY.read_text(encoding="utf-8"))["instructions"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def guideline_tab(app, assignment_id) -> str:
    client = app.test_client()
    assert login(client, "ana").status_code == 302
    response = client.get(f"/guidelines/{assignment_id}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_the_typology_instructions_are_the_guideline_of_a_project_made_on_the_command_line(
        env, app, database, users, tmp_path):
    assert INSTRUCTIONS.startswith("1. Read both the original and simplified text")
    created = run("project", "create", "infoloss", "--schema", INFOLOSSQA_TYPOLOGY,
                  "--lead", "lee")
    assert created.exit_code == 0, created.output
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "infoloss"))
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", pairs(1)))
        assign_documents(session, project, ["ana"], per_document=1)
        aid = session.scalar(select(Assignment.id))
    tab = guideline_tab(app, aid)
    # The numbered steps and their sub-list, as Markdown renders them.
    assert "<li>Read both the original and simplified text</li>" in tab
    assert "<li>Omissions from the original, and</li>" in tab
    assert "Please refer to the full guidelines for examples." in tab

    # A release ships them as guideline.md, and its manifest says where they came from.
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "infoloss"))
        assignment = session.get(Assignment, aid)
        assert set_status(session, assignment, "done", assignment.version,
                          users["ana"]) == []
        complete(session, session.scalar(select(Document)), session.get(User, users["lee"]))
        manifest = cut_release(session, project, "v1", bootstrap=0)
        session.commit()
        guideline_md = release_file(session, project, "v1", "guideline.md")
    assert guideline_md.decode("utf-8") == INSTRUCTIONS.strip()
    assert manifest["schema"]["guideline"] == "schema"
    assert "guideline.md" in manifest["files"]
    # Written back as a typology, the instructions are the typology's own again.
    assert run("export", "infoloss", "--format", "thresh", "--out", tmp_path / "th",
               "--typology", tmp_path / "typology.yml").exit_code == 0
    typology = yaml.safe_load((tmp_path / "typology.yml").read_text(encoding="utf-8"))
    authors = yaml.safe_load(INFOLOSSQA_TYPOLOGY.read_text(encoding="utf-8"))
    assert typology["instructions"] == INSTRUCTIONS.strip()
    assert typology["template_description"] == authors["template_description"]


def test_the_typology_instructions_are_the_guideline_of_a_project_made_on_the_page(
        app, database, users, tmp_path):
    lee = Lead(app, "lee")
    preview = lee.post("/projects/new/preview", {
        "schema_source": "file",
        "schema_file": upload("thresh.yml", INFOLOSSQA_TYPOLOGY.read_text(encoding="utf-8"))})
    assert ("guideline: 6 lines of text from the schema file, starting '1. Read both the original "
            "and simplified text'") in preview.get_json()["lines"]
    response = lee.post("/projects/new", {
        "name": "infoloss", "schema_source": "file", "annotators_per_doc": "1",
        "schema_file": upload("thresh.yml", INFOLOSSQA_TYPOLOGY.read_text(encoding="utf-8"))})
    assert response.status_code == 302, response.get_data(as_text=True)
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "infoloss"))
        stored = yaml.safe_load(project.schema_yaml)
        assert stored["guideline"] == INSTRUCTIONS.strip()
        # The description is the typology's own, no longer the instructions run into it.
        assert stored["description"] == "Annotating information loss in text simplification."
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", pairs(1)))
        assign_documents(session, project, ["ana"], per_document=1)
        aid = session.scalar(select(Assignment.id))
    assert "<li>Read both the original and simplified text</li>" in guideline_tab(app, aid)


def test_label_studio_headers_are_the_guideline_but_not_the_titles_of_the_texts():
    schema = load_schema_file(INFOLOSSQA_CONFIG["accuracy"])
    lines = schema.guideline.split("\n\n")
    assert lines[:3] == ["### 1. Givenness", "#### How is the question phrased?",
                         "##### *Context: The entire simplified text for omissions, for "
                         "Fuzzy everthing up to and including the highlight."]
    assert "### 5. Answer Accuracy" in lines
    # "Question", "Answer", "Original", "Simplification" title the texts (the page names
    # them itself); the recall study's headers are all titles or task data ($doc_id).
    assert not {"## Question", "## Original", "## Simplification"} & set(lines)
    assert load_schema_file(INFOLOSSQA_CONFIG["recall"]).guideline is None


def test_a_yaml_schema_guideline_text_is_shown_and_a_missing_file_is_named(
        app, database, users, tmp_path):
    text = ("name: mini\nedit_types:\n  - name: deletion\n    label: Deletion\n"
            "    sides: [source]\nguideline: |\n  Mark **every** omitted dose.\n")
    aid = schema_file_assignment(database, tmp_path, "inline", "mini.yaml", text)["assignment"]
    assert "<p>Mark <strong>every</strong> omitted dose.</p>" in guideline_tab(app, aid)
    with database.session() as session:
        project = create_project(session, "named", str(_write(tmp_path, "named.yaml",
                                 text.split("guideline:")[0] + "guideline: study-guide.md\n")))
        import_file(session, project, write_jsonl(tmp_path / "p2.jsonl", pairs(1, "n")))
        assign_documents(session, project, ["ana"], per_document=1)
        named = session.scalar(select(Assignment.id).join(Document)
                               .where(Document.project_id == project.id))
    assert ("names the guideline file <code>study-guide.md</code>, which is not among this "
            "installation's guidelines") in guideline_tab(app, named)


def test_a_guideline_is_rendered_as_text_not_html():
    schema = schema_from_text("name: x\nedit_types:\n  - name: d\n    label: D\n"
                              "    sides: [source]\nguideline: '<script>alert(1)</script>'\n",
                              "x.yaml")
    from annotator.schemas.guideline_text import markdown_html, schema_guideline
    html = markdown_html(schema_guideline(schema).markdown)
    assert "<script>" not in html and "&lt;script&gt;" in html


def _write(folder, name, text):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_built_in_schemas_keep_their_guideline_files():
    from annotator.schemas.files import load_schema
    from annotator.schemas.guideline_text import guideline_markdown, schema_guideline
    guideline = schema_guideline(load_schema("infolossqa"))
    assert guideline.file == "infolossqa.md"
    assert guideline.markdown == guideline_markdown("infolossqa.md")
    assert json.dumps(guideline.markdown)  # text, not bytes
