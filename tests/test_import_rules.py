"""The rules every annotation import follows (issue: imports that never lose what they were
given): every key stored or refused with its value, --ignore as the only way to drop one,
--all-errors, spans past the end (--clip-spans), incomplete work (--accept-incomplete)."""

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import Assignment, AuditEvent, Edit
from tests.helpers import row_counts

SOURCE = "Mice received 5 mg of drug X. The trial lasted 12 weeks."
TARGET = "Mice got a drug. The study was short."


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def record(doc="d1", **extra):
    base = {"id": doc, "source": SOURCE, "target": TARGET, "_annotator": "ana",
            "edits": [{"category": "deletion", "id": 7,
                       "annotation": {"question": "How much?", "answer": "5 mg."},
                       "input_idx": [[14, 18]]}]}
    base.update(extra)
    return base


def write(tmp_path, records, name="ana.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def database():
    return Database(Config.from_env().database_url)


def counts():
    db = database()
    with db.session() as session:
        found = row_counts(session)
    db.dispose()
    return found


def test_messages_show_the_rejected_value_and_all_errors_lists_every_one(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    bad = []
    for i in range(25):
        r = record(f"d{i}")
        r["edits"][0]["annotation"]["severity"] = 7 + i
        bad.append(r)
    path = write(tmp_path, bad)
    before = counts()
    result = run("import", "p", path, "--format", "thresh")
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if "field '" in line]
    assert len(lines) == 20
    assert "field 'edits[0].annotation.severity': expected 1, 2, 3 (got 7)" in lines[0]
    assert "... and 5 more problems (25 in all; --all-errors lists every one)" in result.output
    every = run("import", "p", path, "--format", "thresh", "--all-errors")
    assert len([line for line in every.output.splitlines() if "field '" in line]) == 25
    assert "(got 31)" in every.output and "more problems" not in every.output
    assert counts() == before


def test_unknown_answer_is_refused_and_ignore_is_the_only_way_to_drop_it(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    r = record()
    r["edits"][0]["annotation"]["mood"] = "grumpy"
    path = write(tmp_path, [r])
    refused = run("import", "p", path, "--format", "thresh")
    assert refused.exit_code == 2
    assert ("field 'edits[0].annotation.mood': not a field of this type (got \"grumpy\")"
            in refused.output)
    done = run("import", "p", path, "--format", "thresh", "--ignore", "edits.annotation.mood",
               "--ignore", "no_such_key")
    assert done.exit_code == 0, done.output
    assert "ignored (--ignore edits.annotation.mood): 1 values" in done.output
    assert "ignored (--ignore no_such_key): 0 values; no record has this key" in done.output
    db = database()
    with db.session() as session:
        edit = session.scalar(select(Edit))
        assert "mood" not in edit.fields and edit.meta["thresh"]["id"] == 7
        event = session.scalar(select(AuditEvent).where(
            AuditEvent.action == "annotations.imported"))
        assert event.details["ignored"] == {"edits.annotation.mood": 1, "no_such_key": 0}
    db.dispose()


def test_other_record_keys_are_kept_and_written_back(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    r = record(_modified="2023-10-30T01:54:39.272Z", metadata={"system": "gpt-4"},
               _seconds_spent=541, _completed="2023-10-30T01:53:41.336Z")
    assert run("import", "p", write(tmp_path, [r]), "--format", "thresh").exit_code == 0
    db = database()
    with db.session() as session:
        assignment = session.scalar(select(Assignment))
        assert (assignment.status, assignment.seconds_spent) == ("done", 541.0)
        assert assignment.meta["thresh"]["_modified"] == "2023-10-30T01:54:39.272Z"
    db.dispose()
    assert run("export", "p", "--format", "thresh", "--out", tmp_path / "out").exit_code == 0
    assert json.loads((tmp_path / "out" / "ana.json").read_text()) == [r]


def test_span_past_the_end_is_refused_with_a_hint_or_clipped_and_listed(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    r = record()
    r["edits"][0]["input_idx"] = [[14, len(SOURCE) + 1]]
    path = write(tmp_path, [r])
    refused = run("import", "p", path, "--format", "thresh")
    assert refused.exit_code == 2
    assert (f"field 'edits[0].input_idx[0]': span [14, {len(SOURCE) + 1}] lies outside the "
            f"source text (length {len(SOURCE)}); --clip-spans clips spans that run past the "
            f"end of the text (got [14, {len(SOURCE) + 1}])") in refused.output
    clipped = run("import", "p", path, "--format", "thresh", "--clip-spans")
    assert clipped.exit_code == 0, clipped.output
    assert (f"clipped: {path}:1: field 'edits[0].input_idx[0]': [14, {len(SOURCE) + 1}] "
            f"clipped to [14, {len(SOURCE)}]") in clipped.output
    db = database()
    with db.session() as session:
        assert [(s.start, s.end) for s in session.scalar(select(Edit)).spans] == [
            (14, len(SOURCE))]
    db.dispose()


def test_missing_required_values_import_in_progress_unless_accepted(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    r = record(_completed=True)
    del r["edits"][0]["annotation"]["answer"]
    first = run("import", "p", write(tmp_path, [r]), "--format", "thresh")
    assert first.exit_code == 0, first.output
    assert "warning:" in first.output and "imported as in progress" in first.output
    assert "Answer is required" in first.output
    r2 = record("d2", _completed=True, source=SOURCE + " More.")
    del r2["edits"][0]["annotation"]["answer"]
    second = run("import", "p", write(tmp_path, [r2], "b.json"), "--format", "thresh",
                 "--accept-incomplete")
    assert "kept as done (--accept-incomplete)" in second.output
    db = database()
    with db.session() as session:
        statuses = session.scalars(select(Assignment.status).order_by(Assignment.id)).all()
        assert statuses == ["in_progress", "done"]
    db.dispose()


def test_a_sub_answer_needs_its_parent_answer(env, tmp_path):
    typology = tmp_path / "t.yml"
    typology.write_text(
        "template_name: t\nedits:\n  - name: deletion\n    enable_input: true\n"
        "    annotation:\n      - name: kind\n        options:\n          - name: good\n"
        "            question: How good?\n            options: likert-3\n"
        "          - name: bad\n", encoding="utf-8")
    assert run("project", "create", "p", "--schema", typology).exit_code == 0
    r = record()
    r["edits"][0]["annotation"] = {"kind": {"val": "bad", "good": "a lot"}}
    refused = run("import", "p", write(tmp_path, [r]), "--format", "thresh")
    assert refused.exit_code == 2
    assert ("field 'edits[0].annotation.kind.good': only answered when kind is 'good' "
            "(it is 'bad') (got \"a lot\")") in refused.output
    r["edits"][0]["annotation"] = {"kind": {"val": "good", "good": "a lot"}}
    assert run("import", "p", write(tmp_path, [r]), "--format", "thresh").exit_code == 0


def test_infolossqa_ids_snippets_and_document_keys_are_kept(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "documents.json").write_text(json.dumps([
        {"id": "d1", "source": SOURCE, "target": TARGET, "pmcid": 1774569,
         "meta": {"section": "Methods"}}]), encoding="utf-8")
    qa = {"id": "q-17", "document_id": "d1", "annotator": "gpt-4", "category": "omission",
          "question": "How much?", "answer": "5 mg.", "evidence": "5 mg"}
    (folder / "questions.json").write_text(json.dumps([qa]), encoding="utf-8")
    result = run("import", "p", folder, "--format", "infolossqa")
    assert result.exit_code == 0, result.output
    assert run("export", "p", "--format", "infolossqa", "--out", tmp_path / "out").exit_code == 0
    (question,) = json.loads((tmp_path / "out" / "questions.json").read_text())
    assert (question["id"], question["evidence"], question["input_idx"]) == (
        "q-17", "5 mg", [[14, 18]])
    (document,) = json.loads((tmp_path / "out" / "documents.json").read_text())
    assert document["meta"] == {"pmcid": 1774569, "section": "Methods"}


def test_a_record_without_time_counts_as_unknown_not_zero(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    timed = record("d1", _seconds_spent=600)
    untimed = dict(record("d1"), _annotator="ben")
    assert run("import", "p", write(tmp_path, [timed, untimed]), "--format",
               "thresh").exit_code == 0
    report = json.loads(run("agreement", "p", "--json", "--no-embeddings", "--bootstrap",
                            "0").output)
    medians = {a: row["median_seconds_per_document"]
               for a, row in report["annotators"].items()}
    assert medians == {"ana": 600.0, "ben": None}


def jsonl_record(**extra):
    base = {"document_id": "d1", "source": SOURCE, "target": TARGET, "annotator": "ana",
            "status": "done", "seconds_spent": 12.5,
            "edits": [{"edit_type": "deletion",
                       "fields": {"question": "How much?", "answer": "5 mg."},
                       "spans": [{"side": "source", "start": 14, "end": 18}]}],
            "ratings": []}
    base.update(extra)
    return base


def write_lines(tmp_path, rows, name="ana.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_own_jsonl_refuses_unknown_keys_and_statuses_unless_ignored(env, tmp_path):
    assert run("project", "create", "p", "--schema", "infolossqa").exit_code == 0
    row = jsonl_record(status="finished", reviewer="kim")
    row["edits"][0]["confidence"] = 0.9
    path = write_lines(tmp_path, [row])
    before = counts()
    result = run("import", "p", path, "--format", "annotations-jsonl")
    assert result.exit_code == 2, result.output
    assert "field 'reviewer': unknown key" in result.output and '(got "kim")' in result.output
    assert "field 'edits[0].confidence': unknown key" in result.output
    assert "--ignore edits.confidence" in result.output
    assert "field 'status': one of assigned, in_progress, done, skipped (got \"finished\")" \
        in result.output
    assert counts() == before

    row["status"] = "skipped"
    path = write_lines(tmp_path, [row])
    result = run("import", "p", path, "--format", "annotations-jsonl",
                 "--ignore", "reviewer", "--ignore", "edits.confidence")
    assert result.exit_code == 0, result.output
    assert "reviewer" in result.output and "edits.confidence" in result.output
    db = database()
    with db.session() as session:
        assert session.scalar(select(Assignment.status)) == "skipped"
    db.dispose()


def test_own_jsonl_round_trip_keeps_metadata_and_composite_edits(env, tmp_path):
    from tests.helpers import SALSA as salsa

    assert run("project", "create", "a", "--schema", salsa / "salsa.yml").exit_code == 0
    assert run("import", "a", salsa / "salsa.json", "--format", "thresh").exit_code == 0
    first = tmp_path / "first.jsonl"
    assert run("export", "a", "--format", "jsonl", "--out", first).exit_code == 0
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert any(r.get("record_meta") for r in rows)
    assert any(e.get("constituents") for r in rows for e in r["edits"])

    assert run("project", "create", "b", "--schema", salsa / "salsa.yml").exit_code == 0
    result = run("import", "b", first, "--format", "annotations-jsonl")
    assert result.exit_code == 0, result.output
    second = tmp_path / "second.jsonl"
    assert run("export", "b", "--format", "jsonl", "--out", second).exit_code == 0
    assert second.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")
