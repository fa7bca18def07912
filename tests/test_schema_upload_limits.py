"""Issue 41, findings 1 and 2: no schema file (this tool's YAML, a Thresh typology, a Label
Studio config) can take the server down. An alias bomb, 10,000 nested brackets, a Thresh
typology 500 option levels deep, a schema of too many edit types or options, an XML entity
bomb: each is refused with the limit named, on the new-project preview, project creation
and the schema revision pages (4xx) and by ``annotator schema show`` / ``project create``
(exit 1, one line, no traceback), as is ``project schema`` (a revision); nothing is created
or changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.config import Config, use
from annotator.core.limits import current_limits
from annotator.models import Project
from annotator.schemas import SchemaError, parse_schema
from annotator.schemas.files import schema_from_text
from tests.test_lead_study_web import Lead, upload

ROOT = Path(__file__).resolve().parent.parent
# Nine levels of nine aliases: 342 bytes that name 9^9 (387 million) strings.
ALIAS_BOMB = "a: &a [" + ",".join(['"lol"'] * 9) + "]\n" + "".join(
    f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
    for prev, name in zip("abcdefgh", "bcdefghi"))
DEEP_YAML = "name: deep\ntitle: " + "[" * 10_000 + "]" * 10_000 + "\nedit_types: []\n"


def thresh_options_deep(levels: int) -> str:
    """A Thresh typology whose question has an option holding a question ``levels`` deep."""
    nested = "[yes, no]"
    for level in reversed(range(levels)):
        nested = f"[{{name: o{level}, options: {nested}}}, other{level}]"
    return ("template_name: deep\nedits:\n  - name: omission\n    enable_input: true\n"
            f"    annotation:\n      - name: q\n        options: {nested}\n")


def edit_types(count: int) -> str:
    return "name: many\nedit_types:\n" + "".join(
        f"  - {{name: t{i}, sides: [source]}}\n" for i in range(count))


def options(count: int) -> str:
    return ("name: wide\nratings:\n  - name: r\n    type: choice\n    options: ["
            + ", ".join(f"o{i}" for i in range(count)) + "]\n")


XML_ENTITY_BOMB = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n  <!ENTITY lol "lol">\n'
    + "".join(f'  <!ENTITY lol{i} "' + f"&lol{i - 1 or ''};" * 10 + '">\n'
              for i in range(1, 10))
    + ']>\n<View>\n  <Text name="source" value="&lol9;"/>\n  <Text name="target" '
    'value="$target"/>\n</View>\n')

# (file name, text, what the refusal names)
REFUSED = [
    ("bomb.yaml", ALIAS_BOMB, "ANNOTATOR_MAX_SCHEMA_VALUES"),
    ("deep.yaml", DEEP_YAML, "ANNOTATOR_MAX_SCHEMA_DEPTH"),
    ("thresh.yml", thresh_options_deep(500), "ANNOTATOR_MAX_SCHEMA_DEPTH"),
    ("many.yaml", edit_types(current_limits().max_schema_edit_types + 1),
     "ANNOTATOR_MAX_SCHEMA_EDIT_TYPES"),
    ("wide.yaml", options(current_limits().max_schema_options + 1),
     "ANNOTATOR_MAX_SCHEMA_OPTIONS"),
    ("lolz.xml", XML_ENTITY_BOMB, "DOCTYPE"),
    ("deep.xml", "<View>" * 1000 + "</View>" * 1000, "ANNOTATOR_MAX_SCHEMA_DEPTH"),
    ("huge.yaml", "name: huge\ndescription: " + "x" * (current_limits().max_schema_bytes)
     + "\nedit_types: [{name: a, sides: [source]}]\n", "ANNOTATOR_MAX_SCHEMA_BYTES"),
]


@pytest.mark.parametrize("name, text, named", REFUSED, ids=[r[0] for r in REFUSED])
def test_every_reader_refuses_with_the_limit_named(name, text, named):
    with pytest.raises(SchemaError) as caught:
        schema_from_text(text, name)
    message = str(caught.value)
    assert message.startswith(f"{name}: key '") and named in message
    assert len(message) < 400  # a bounded prefix of any value, never the whole


def test_a_rejected_value_is_quoted_as_a_bounded_prefix():
    big = "[" + ", ".join(f"word{i}" for i in range(5000)) + "]"
    with pytest.raises(SchemaError) as caught:
        parse_schema(f"name: wide\ntitle: {big}\nedit_types: [{{name: a, sides: [source]}}]\n",
                     "wide.yaml")
    message = str(caught.value)
    assert message.startswith("wide.yaml: key 'title': expected a non-empty string, got [")
    assert "word0" in message and "word4999" not in message and len(message) < 200
    with pytest.raises(SchemaError) as caught:
        parse_schema("name: long\nunit: " + "u" * 100_000 + "\n", "long.yaml")
    assert "(100000 characters)" in str(caught.value) and len(str(caught.value)) < 300


def test_a_value_that_contains_itself_is_refused():
    with pytest.raises(SchemaError, match=r"rec.yaml: key 'line 2': expected no alias inside "
                                          r"the value it names, found a value that contains"):
        schema_from_text("name: rec\ntitle: &t [1, *t]\n", "rec.yaml")


def test_limits_at_the_edge_are_accepted_and_come_from_the_environment():
    limits = current_limits()
    assert len(schema_from_text(edit_types(limits.max_schema_edit_types), "x").edit_types) \
        == limits.max_schema_edit_types
    assert len(schema_from_text(options(limits.max_schema_options), "x").ratings[0].options) \
        == limits.max_schema_options
    use(Config.from_env({"ANNOTATOR_MAX_SCHEMA_EDIT_TYPES": "3"}))
    with pytest.raises(SchemaError, match=r"at most 3 edit types.*found 4"):
        schema_from_text(edit_types(4), "x")
    use(Config.from_env({"ANNOTATOR_MAX_SCHEMA_DEPTH": "200",
                         "ANNOTATOR_MAX_SCHEMA_BYTES": str(10**7)}))
    # Within raised limits a deep typology is read; the walk is no deeper than its file.
    schema = schema_from_text(thresh_options_deep(60), "thresh.yml")
    assert len(schema.edit_types[0].fields) == 61


def test_aliases_within_the_limits_still_share_option_lists():
    """The built-in factuality and plaba schemas share their scales with &name / *name."""
    text = ("name: shared\nratings:\n  - {name: a, type: choice, options: &yn [yes, no]}\n"
            "  - {name: b, type: choice, options: *yn}\n")
    schema = parse_schema(text)
    assert [o.value for o in schema.ratings[1].options] == ["yes", "no"]


def test_the_alias_bomb_is_refused_everywhere_within_a_memory_limit(tmp_path):
    """In a child process limited to 1 GiB of address space: were the bomb expanded, the
    child would fail with MemoryError, not the test machine."""
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.schema_upload_probe", str(tmp_path),
                           str(bomb), str(1024**3)], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.splitlines()[-1])
    for page in ("preview", "create", "revision preview", "revision"):
        status, text = results[page]
        assert status in (400, 422) and "ANNOTATOR_MAX_SCHEMA_VALUES" in text, page
        assert "lol" not in text.replace("lolz", ""), page  # no expanded value quoted
    for command in ("schema show", "project create"):
        code, output = results[command]
        assert code == 1 and "ANNOTATOR_MAX_SCHEMA_VALUES" in output, command
        assert "Traceback" not in output and "Error(" not in output, command


def _pages(lead, project_id, name, text):
    yield "preview", lead.post("/projects/new/preview", data={
        "schema_source": "file", "schema_file": upload(name, text)})
    yield "create", lead.post("/projects/new", data={
        "schema_source": "file", "schema_file": upload(name, text), "name": "refused",
        "annotators_per_doc": "2"})
    yield "revision preview", lead.post(f"/projects/{project_id}/schema/preview",
                                        data={"schema_file": upload(name, text)})
    yield "revision", lead.post(f"/projects/{project_id}/schema",
                                data={"schema_file": upload(name, text)})
    yield "revision of pasted text", lead.post(f"/projects/{project_id}/schema",
                                               data={"schema_text": text})


@pytest.mark.parametrize("name, text, named", [r for r in REFUSED if r[0] != "bomb.yaml"],
                         ids=[r[0] for r in REFUSED if r[0] != "bomb.yaml"])
def test_every_page_answers_a_4xx_naming_the_limit_and_changes_nothing(
        app, database, study, name, text, named):
    project_id = study["project_id"]
    with database.session() as session:
        before = session.get(Project, project_id).schema_yaml
    lead = Lead(app, "lee")
    for page, answer in _pages(lead, project_id, name, text):
        assert answer.status_code in (400, 413, 422), (page, answer.status_code)
        shown = answer.get_data(as_text=True)
        assert named in shown, page
        if page != "revision of pasted text":  # that text stays in the editor, to fix
            assert "[" * 200 not in shown and "x" * 1000 not in shown, page
    with database.session() as session:
        assert session.get(Project, project_id).schema_yaml == before
        assert session.scalar(select(func.count()).select_from(Project)) == 1


@pytest.mark.parametrize("name, text, named", REFUSED[1:4], ids=[r[0] for r in REFUSED[1:4]])
def test_the_commands_answer_one_line_and_exit_1(tmp_path, name, text, named):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "ANNOTATOR_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}"}
    made = subprocess.run([sys.executable, "-m", "annotator", "project", "create", "running",
                           "--schema", "infolossqa"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert made.returncode == 0, made.stderr
    for args in (["schema", "show", str(path)],
                 ["project", "create", "refused", "--schema", str(path)],
                 ["project", "schema", "running", str(path)]):
        done = subprocess.run([sys.executable, "-m", "annotator", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 1, (args, done.stderr[-1500:])
        assert done.stderr.startswith("error: ") and named in done.stderr, args
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, args
