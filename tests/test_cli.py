"""The `annotator` command as a lead uses it, against the database named by
ANNOTATOR_DATABASE_URL."""

import json

from click.testing import CliRunner

from annotator.cli import main
from tests.helpers import pairs, table_count, write_jsonl


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def count(env, table):
    return table_count(env["ANNOTATOR_DATABASE_URL"], table)


def test_help_lists_the_study_commands():
    result = run("--help")
    for command in ("init", "user", "project", "import", "assign", "demo", "serve", "align",
                    "iaa"):
        assert command in result.output
    assert "ANNOTATOR_DATABASE_URL" in result.output


def test_a_whole_setup_through_the_cli(env, tmp_path):
    assert run("init").exit_code == 0
    assert run("user", "add", "lee", "--role", "lead", "--password", "lead-password").exit_code == 0
    for name in ("ana", "ben", "cy"):
        assert run("user", "add", name, "--password", "annot-password").exit_code == 0
    result = run("project", "create", "trial", "--schema", "infolossqa", "--lead", "lee")
    assert result.exit_code == 0, result.output
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs(5))
    result = run("import", "trial", str(path))
    assert result.exit_code == 0 and "imported 5 new" in result.output
    result = run("assign", "trial")
    assert result.exit_code == 0 and "created 10 assignments" in result.output
    assert count(env, "documents") == 5 and count(env, "assignments") == 10
    loads = [line.split()[1] for line in result.output.splitlines()[1:]]
    assert sorted(loads) == ["3", "3", "4"]


def test_bad_import_exits_non_zero_and_writes_nothing(env, tmp_path):
    run("project", "create", "trial", "--schema", "infolossqa")
    records = pairs(3)
    del records[1]["target"]
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    result = CliRunner().invoke(main, ["import", "trial", str(path)])
    assert result.exit_code == 2
    assert "nothing was imported" in result.output
    assert "bad.jsonl:2: field 'target': required" in result.output
    assert count(env, "documents") == 0


def test_unknown_project_and_schema_errors_are_clear(env, tmp_path):
    result = CliRunner().invoke(main, ["import", "nope", str(write_jsonl(tmp_path / "p.jsonl",
                                                                         pairs(1)))])
    assert result.exit_code == 1 and "no project named 'nope'" in result.output
    result = CliRunner().invoke(main, ["project", "create", "x", "--schema", "missing"])
    assert result.exit_code == 1 and "infolossqa" in result.output


def test_user_add_rejects_short_password_and_duplicates(env):
    result = CliRunner().invoke(main, ["user", "add", "ana", "--password", "short"])
    assert result.exit_code == 1 and "at least 8 characters" in result.output
    run("user", "add", "ana", "--password", "long-enough")
    result = CliRunner().invoke(main, ["user", "add", "ana", "--password", "long-enough"])
    assert result.exit_code == 1 and "taken" in result.output


def test_serve_refuses_public_host_without_secret(env, monkeypatch):
    monkeypatch.delenv("ANNOTATOR_SECRET_KEY", raising=False)
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 1 and "ANNOTATOR_SECRET_KEY" in result.output


def test_demo_data_planted_offsets_match_the_texts():
    from annotator.core.resources import demo_data_dir
    docs = {json.loads(line)["id"]: json.loads(line)
            for line in (demo_data_dir() / "infolossqa_demo.jsonl").read_text().splitlines()
            if line.strip()}
    planted = json.loads((demo_data_dir() / "infolossqa_demo_planted.json").read_text())
    assert len(docs) >= 12 and planted
    for problem in planted:
        for side, key in (("source", "source_span"), ("target", "target_span")):
            if problem.get(key):
                start, end = problem[key]
                assert 0 <= start < end <= len(docs[problem["id"]][side])


def test_batch_commands_show_a_progress_bar(env, tmp_path):
    """(A plain import of new documents into a SQLite file is one batch, written in a
    fraction of a second without a bar: tests/test_import_direct_sqlite.py; --update takes
    the batched ORM path, as a PostgreSQL database does.)"""
    run("project", "create", "trial", "--schema", "infolossqa")
    result = CliRunner().invoke(main, ["import", "trial", "--update",
                                       str(write_jsonl(tmp_path / "p.jsonl", pairs(3)))])
    assert result.exit_code == 0
    assert "importing" in result.stderr and "3/3" in result.stderr
    again = CliRunner().invoke(main, ["prehighlight", "trial", "--workers", "1"])
    assert "pre-highlighting" in again.stderr and "3/3" in again.stderr
    nothing_left = CliRunner().invoke(main, ["prehighlight", "trial"])
    assert nothing_left.stderr == ""  # no bar when there is nothing to do
