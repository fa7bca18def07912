"""InfoLossQA-shaped model predictions: valid QA pairs become edits of the system's user,
pairs whose spans do not occur in the texts are reported, structural errors refuse all."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import AuditEvent, Edit, User

DATA = Path(__file__).parent / "data" / "interop" / "infolossqa"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_predictions_import_with_a_report_of_invalid_pairs(env):
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    result = run("import", "loss", DATA, "--format", "infolossqa")
    assert result.exit_code == 0, result.output
    # d3 has no valid pair, so only the documents that receive edits are created.
    assert "3 edits" in result.output and "2 documents created" in result.output
    # q4's evidence "150 adults" is not in the original; q5's offsets run past its end.
    assert "questions.json:5: field 'evidence': invalid QA pair" in result.output
    assert "questions.json:6: field 'input_idx[0]': invalid QA pair" in result.output
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        assert session.scalar(select(User).where(User.username == "gpt-4o")).active is False
        located = session.scalar(select(Edit).where(Edit.fields["question"].as_string()
                                                    == "Which medicine?"))
        assert located.edit_type == "oversimplification"
        # Snippets were located in the texts: "budesonide twice daily" / "a medicine".
        assert [(s.side, s.start, s.end) for s in located.spans] == [
            ("source", 49, 71), ("target", 24, 34)]
        event = session.scalar(select(AuditEvent).where(
            AuditEvent.action == "annotations.imported"))
        assert [item["id"] for item in event.details["invalid"]] == ["q4", "q5"]
    database.dispose()


def test_unknown_category_or_missing_document_refuses_the_whole_file(env, tmp_path):
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    folder = tmp_path / "preds"
    shutil.copytree(DATA, folder)
    questions = json.loads((folder / "questions.json").read_text())
    questions[1]["category"] = "verification"
    questions[2]["document_id"] = "d9"
    (folder / "questions.json").write_text(json.dumps(questions, indent=0))
    result = run("import", "loss", folder, "--format", "infolossqa")
    assert result.exit_code == 2
    assert "field 'category': unknown category; use omission, concept" in result.output
    assert '(got "verification")' in result.output
    assert "field 'document_id': document 'd9' is neither" in result.output
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        assert session.scalar(select(Edit)) is None
    database.dispose()


@pytest.mark.parametrize("row, field", [
    ({"annotator": "ana", "edits": []}, "document_id"),
    ({"document_id": "d1", "annotator": "ana", "edits": [{"edit_type": "deletion",
      "spans": [{"side": "source", "start": 0, "end": 10 ** 6}]}]}, "edits[0].spans[0]"),
])
def test_annotation_jsonl_errors_name_the_field(env, tmp_path, row, field):
    assert run("project", "create", "loss", "--schema", "infolossqa").exit_code == 0
    assert run("import", "loss", DATA, "--format", "infolossqa").exit_code == 0
    path = tmp_path / "a.jsonl"
    path.write_text("\n" + json.dumps(row) + "\n")
    result = run("import", "loss", path, "--format", "annotations-jsonl")
    assert result.exit_code == 2
    assert f"a.jsonl:2: field '{field}'" in result.output
