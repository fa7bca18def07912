"""Bad input that used to slip through: each is refused with FILE:LINE: field (imports) or a
clear 400/413/422 (API), and writes nothing."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import update

from annotator.annotate.store import add_time
from annotator.config import Config, use
from annotator.core import strict_json
from annotator.ingest import IngestError, import_file, read_documents
from annotator.models import Assignment, User
from annotator.study.projects import create_project
from tests.adjudication_fixtures import release
from tests.conftest import csrf_token, login
from tests.helpers import row_counts

PAIR = {"id": "d1", "source": "Patients got 5 mg.", "target": "Patients got medicine."}


def _jsonl(tmp_path, *lines: str):
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("line, field, message", [
    ('{"id": "d1", "source": "a", "target": "b", "meta": {"score": NaN}}', None, "NaN"),
    ('{"id": "d1", "source": "a", "target": "b", "meta": {"x": -Infinity}}', None, "Infinity"),
    ('{"id": "d1", "source": "a", "target": "b", "meta": {"x": "\\ud800"}}', "meta.x",
     "lone surrogate"),
    ('{"id": "d\\u0000", "source": "a", "target": "b"}', "id", "NUL"),
    ('{"id": "d1", "source": "a", "target": "b", "meta": {"k": "a\\u0000b"}}', "meta.k", "NUL"),
    ('{"id": "d1", "source": "a", "target": "b", "meta": ' + "[" * 100_000 + "]" * 100_000
     + "}", None, "nested too deeply"),
    ('{"id": "d1", "source": "a", "target": "b", "meta": {"x": ' + "[" * 80 + "]" * 80 + "}}",
     "meta.x", "nested too deeply"),
])
def test_bad_json_lines_name_file_line_and_field(tmp_path, line, field, message):
    path = _jsonl(tmp_path, json.dumps(PAIR), line)
    with pytest.raises(IngestError) as caught:
        read_documents(path)
    (problem,) = caught.value.problems
    assert problem.file == str(path) and problem.line == 2
    assert message in problem.message and (field is None or problem.field.startswith(field))
    assert str(caught.value).startswith(f"{path}:2: ")


def test_json_array_refuses_nan_too(tmp_path):
    path = tmp_path / "in.json"
    path.write_text('[\n{"id": "a", "source": "x", "target": "y", "meta": {"s": NaN}}\n]')
    with pytest.raises(IngestError, match=r"in.json:2: .*NaN"):
        read_documents(path)


def test_jsonl_splits_only_on_newline(tmp_path):
    text = "Dose\u2028per day\u0085and\u2029more\x1c."
    path = _jsonl(tmp_path, json.dumps({**PAIR, "source": text}, ensure_ascii=False),
                  json.dumps({**PAIR, "id": "d2"}))
    records = read_documents(path)
    assert [r.external_id for r in records] == ["d1", "d2"] and records[0].source == text
    assert records[1].line == 2


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_any_valid_text_survives_a_jsonl_round_trip(tmp_path_factory, text):
    """Whatever the tool writes, it reads back (the export used to be refused)."""
    if not text.strip() or "\x00" in text:
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    path = tmp_path_factory.mktemp("rt") / "x.jsonl"
    path.write_text(json.dumps({**PAIR, "source": text}, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    assert read_documents(path)[0].source == text


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c,
                                                                       max_size=3)))
def test_strict_json_accepts_exactly_what_can_be_written_strictly(value):
    problem = strict_json.value_problem(value)
    try:
        text = strict_json.dumps(value)
        text.encode("utf-8")
        writable = "\\u0000" not in text
    except (ValueError, UnicodeEncodeError):
        writable = False
    assert (problem is None) == writable
    if writable:
        assert strict_json.loads(text) == value or any(
            isinstance(v, float) and math.isnan(v) for v in [value])


def test_csv_nul_in_meta_is_refused(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("id,source,target,system\nd1,a,b,sys\x00x\n", encoding="utf-8")
    with pytest.raises(IngestError, match=r"in.csv:2: field 'meta.system': contains a NUL"):
        read_documents(path)


@pytest.mark.parametrize("cell", ["1_0-2_0", "+3-9", "\u0663-\u0669", "3-9-12"])
def test_csv_span_cells_take_only_ascii_start_end(tmp_path, cell):
    """The one span rule reads a CSV spans cell: Python's int() alone accepted ``1_0``,
    ``+3`` and Arabic-Indic digits as offsets."""
    from annotator.interop.tabular import read_csv
    from annotator.schemas.files import load_schema

    path = tmp_path / "work.csv"
    path.write_text("document_id,annotator,status,seconds_spent,kind,edit_type,source_spans\n"
                    "d1,ana,done,5,edit,deletion,0-4\n"
                    f"d1,ana,done,5,edit,deletion,{cell}\n", encoding="utf-8")
    with pytest.raises(IngestError) as caught:
        read_csv(path, load_schema("infolossqa"))
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:3: field 'source_spans': {cell!r} is not start-end (e.g. 3-9)"]


@pytest.mark.parametrize("spans, field, message", [
    ({"source": [[1, 2, 3]], "target": []}, "edits[0].spans.source[0]",
     "must be [start, end] with integer character offsets (got [1, 2, 3])"),
    ({"source": [[0, 99]], "target": []}, "edits[0].spans.source[0]",
     "span [0, 99] lies outside the source text (length 14) (got [0, 99])"),
    ({"source": [[0, 4]]}, "edits[0].spans.target",
     "must be a list of [start, end] pairs (got null)"),
    ("oops", "edits[0]", 'must be {edit_type, spans: {source: [...], target: [...]}} (got '
     '{"edit_type": "deletion", "spans": "oops"})'),
])
def test_eval_detectors_refuses_bad_gold_spans_with_file_and_line(tmp_path, spans, field,
                                                                  message):
    """A hand-edited gold.jsonl went straight to the span F1 and ended in a traceback."""
    from click.testing import CliRunner

    from annotator.cli import main

    gold = tmp_path / "gold.jsonl"
    record = {"id": "d1", "source": "Mice got 5 mg.", "target": "Mice got a drug.",
              "edits": [{"edit_type": "deletion", "spans": spans}], "ratings": []}
    gold.write_text(json.dumps({**record, "id": "d0", "edits": []}) + "\n"
                    + json.dumps(record) + "\n", encoding="utf-8")
    found = tmp_path / "found.jsonl"
    found.write_text(json.dumps({"document_id": "d1", "spans": [
        {"kind": "deletion", "side": "source", "start": 0, "end": 4}]}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "detectors", str(gold), str(found)])
    assert result.exit_code == 2, result.output
    assert f"{gold}:2: field '{field}': {message}" in result.output


def test_text_length_limit_is_configurable(tmp_path):
    path = _jsonl(tmp_path, json.dumps({**PAIR, "source": "x" * 1001}))
    use(Config.from_env({"ANNOTATOR_MAX_TEXT_CHARS": "1000"}))
    with pytest.raises(IngestError, match=r":1: field 'source': 1,001 characters, more than "
                                          r"the limit of 1,000"):
        read_documents(path)
    use(Config.from_env({"ANNOTATOR_MAX_TEXT_CHARS": "2000"}))
    assert len(read_documents(path)) == 1


def test_bad_import_writes_nothing(database, tmp_path):
    path = _jsonl(tmp_path, json.dumps(PAIR), '{"id": "d2", "source": "a", "target": "b", '
                  '"meta": {"s": NaN}}')
    with database.session() as session:
        project = create_project(session, "p", "infolossqa")
        before = row_counts(session)
        with pytest.raises(IngestError):
            import_file(session, project, path)
        assert row_counts(session) == before


# ------------------------------------------------------------------ API


def _api(client, study, username="ana"):
    login(client, username)
    token = csrf_token(client, "/my")
    aid = study["assignments"][username][0]
    return aid, {"X-CSRFToken": token, "Content-Type": "application/json"}


def test_api_refuses_nan_and_nul_and_the_page_stays_valid_json(client, study):
    aid, headers = _api(client, study)
    nan = client.post(f"/api/assignments/{aid}/time", data='{"seconds": NaN}', headers=headers)
    assert nan.status_code == 400 and "NaN" in nan.get_json()["message"]
    payload = {"edit_type": "deletion", "spans": [{"side": "source", "start": 0, "end": 4}],
               "fields": {"question": "Who\u0000?", "answer": "x", "severity": 1}}
    nul = client.post(f"/api/assignments/{aid}/edits", json=payload, headers=headers)
    assert nul.status_code == 422
    assert nul.get_json()["problems"] == [{"field": "fields.question",
                                           "message": "contains a NUL character"}]
    page = client.get(f"/api/assignments/{aid}")
    json.loads(page.get_data(as_text=True), parse_constant=lambda c: pytest.fail(c))


def test_api_size_limits_answer_413_and_422(app, client, study, monkeypatch):
    aid, headers = _api(client, study)
    spans = [{"side": "source", "start": i, "end": i + 1} for i in range(101)]
    many = client.post(f"/api/assignments/{aid}/edits", headers=headers, json={
        "edit_type": "deletion", "spans": spans,
        "fields": {"question": "q?", "answer": "a", "severity": 1}})
    assert many.status_code == 422 and "more than the limit of 100" in many.get_data(as_text=True)
    app.config["MAX_CONTENT_LENGTH"] = 1000
    big = client.post(f"/api/assignments/{aid}/edits", headers=headers,
                      data=json.dumps({"x": "y" * 2000}))
    assert big.status_code == 413 and "limit of 1,000 bytes" in big.get_json()["message"]


def test_replayed_heartbeats_are_bounded_by_wall_clock(database, study):
    with database.session() as session:
        a = session.get(Assignment, study["assignments"]["ana"][0])
        assert add_time(session, a, 30, now=1000.0) == 30
        for _ in range(50):  # the same heartbeat replayed at once
            add_time(session, a, 30, now=1000.5)
        assert a.seconds_spent == pytest.approx(30.5)
        assert add_time(session, a, 30, now=1020.5) == pytest.approx(50.5)  # 20 s passed
        with pytest.raises(Exception, match="non-negative number"):
            add_time(session, a, float("nan"))


def test_time_nan_over_http_is_a_400_not_a_conflict(client, study):
    aid, headers = _api(client, study)
    for body in ('{"seconds": NaN}', '{"seconds": Infinity}', '{"seconds": -1}'):
        answer = client.post(f"/api/assignments/{aid}/time", data=body, headers=headers)
        assert answer.status_code in (400, 422), body


def test_a_dollar_user_name_does_not_break_plots_or_releases(database, adjudicated, tmp_path):
    with database.session() as session:
        session.execute(update(User).where(User.username == "ana")
                        .values(username="$\\frac{1}{$"))
    manifest = release(database, adjudicated, tmp_path / "exports")
    html = (tmp_path / "exports" / "qa" / "v1" / "agreement.html").read_text()
    assert "$\\frac{1}{$" in html and "data:image/png" in html
    assert manifest["counts"]["annotators"] == 2


def test_negative_or_nan_seconds_spent_is_refused_on_import(database, tmp_path):
    from annotator.interop.importing import import_annotations

    record = {"document_id": "d1", "annotator": "zoe", "source": PAIR["source"],
              "target": PAIR["target"], "status": "done", "edits": []}
    with database.session() as session:
        project = create_project(session, "p", "infolossqa")
        before = row_counts(session)
        for n, seconds in enumerate(("-5", "NaN", "1e999")):
            path = tmp_path / f"ann{n}.jsonl"
            path.write_text(json.dumps(record)[:-1] + f', "seconds_spent": {seconds}}}\n')
            with pytest.raises(IngestError, match=rf"ann{n}.jsonl:1: "):
                import_annotations(session, project, path, "annotations-jsonl")
        assert row_counts(session) == before


# ------------------------------------------------------------------ imports in batches


def test_a_batched_import_that_fails_midway_leaves_nothing(database, tmp_path, monkeypatch):
    from annotator.ingest import store
    from tests.helpers import pairs, write_jsonl

    monkeypatch.setattr(store, "BATCH_SIZE", 10)
    path = write_jsonl(tmp_path / "big.jsonl", pairs(45))

    def interrupted(done, total):
        if done == 35:  # three batches committed, then the import dies
            raise KeyboardInterrupt

    with database.session() as session:
        project = create_project(session, "p", "infolossqa")
    with database.session() as session:
        project = session.merge(project)
        before = row_counts(session)
        with pytest.raises(KeyboardInterrupt):
            import_file(session, project, path, in_batches=True, progress=interrupted)
    with database.session() as session:
        assert row_counts(session) == before
        project = session.merge(project)
        result = import_file(session, project, path, in_batches=True)
        assert result.created == 45
    with database.session() as session:
        assert row_counts(session)["documents"] == 45


@pytest.mark.parametrize("stored, message", [
    ('{"version": "v1", ', "not valid JSON"),
    ('{"version": ' + "9" * 5000 + "}", "5000 digits"),
    ('{"score": NaN}', "NaN"),
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ('["v1"]', "a JSON list, not an object"),
    ('"v1"', "a JSON string, not an object"),
    ("null", "a JSON null, not an object"),
    ('{"k": "' + "x" * 200_000 + '"}', "more than the 100,000"),
    (b'{"k": "\xff"}', "not valid UTF-8"),
])
def test_a_stored_job_payload_that_cannot_be_read_is_a_reason(stored, message):
    """A job row changed by hand (issue 41, finding 7): the reason its job fails with,
    bounded, never the whole value."""
    from annotator.study.jobs import UnreadableJSON, parse_stored

    with pytest.raises(UnreadableJSON, match=message) as caught:
        parse_stored(stored)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("content", [
    b"SQLite format 3\x00" + b"\x00garbage" * 500,  # a SQLite header, nothing readable
    b"PGDMP" + b"\x01" * 3,  # a pg_dump header cut short (into a SQLite target: refused)
    b"",
])
def test_a_file_that_is_not_a_backup_restores_nothing(tmp_path, content):
    """Tampered backups (issue 41, finding 6; tests/test_restore_verifies.py tampers with
    real ones): refused with the file's name, the target left absent."""
    from annotator.operations.backup import BackupError, restore_database

    source = tmp_path / "tampered.backup"
    source.write_bytes(content)
    target = tmp_path / "target.sqlite3"
    with pytest.raises(BackupError, match="tampered.backup"):
        restore_database(f"sqlite:///{target}", source)
    assert not target.exists()


# Schema uploads (issue 41): refused with the limit named before anything is expanded; the
# pages' own walk is tests/test_schema_upload_limits.py (the alias bomb in a child process
# limited in memory).
SCHEMA_UPLOADS = [
    ("deep.yaml", "ANNOTATOR_MAX_SCHEMA_DEPTH"), ("thresh.yml", "ANNOTATOR_MAX_SCHEMA_DEPTH"),
    ("many.yaml", "ANNOTATOR_MAX_SCHEMA_EDIT_TYPES"), ("lolz.xml", "DOCTYPE")]


def test_an_alias_bomb_is_refused_while_it_is_composed():
    """The composer refuses it: were that to regress, PyYAML would only build the shared
    lists (cheap), never expand them, so this row cannot eat memory."""
    from annotator.schemas import SchemaError, read_yaml
    from tests.test_schema_upload_limits import ALIAS_BOMB

    with pytest.raises(SchemaError, match=r"bomb.yaml: key 'line \d': .*SCHEMA_VALUES"):
        read_yaml(ALIAS_BOMB, "bomb.yaml")


@pytest.mark.parametrize("name, named", SCHEMA_UPLOADS)
def test_a_schema_upload_beyond_the_limits_is_a_422_on_the_preview(app, users, name, named):
    from tests.test_lead_study_web import Lead, upload
    from tests.test_schema_upload_limits import REFUSED

    text = next(text for file, text, _ in REFUSED if file == name)
    answer = Lead(app, "lee").post("/projects/new/preview", data={
        "schema_source": "file", "schema_file": upload(name, text)})
    assert answer.status_code == 422 and named in answer.get_json()["message"]
