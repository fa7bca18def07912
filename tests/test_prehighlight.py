"""`annotator prehighlight`: suggestions stored per document, resumable, forced re-runs."""

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.core.resources import demo_data_dir
from annotator.db import Database
from annotator.models import Document, Project, Suggestion
from tests.helpers import table_count


def suggestion_rows(kind=None):
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        query = select(Document.external_id, Suggestion).join(Suggestion.document).join(
            Project).where(Project.name == "demo-infoloss")
        rows = [(doc_id, s.kind, s.source_spans, s.target_spans, s.explanation, s.score,
                 s.target_score) for doc_id, s in session.execute(query)]
    database.dispose()
    return rows


def test_demo_is_prehighlighted_and_reruns_skip_done_documents(env):
    """The README's first command, with the real model (the one test that runs it whole):
    projects, users and pre-highlights made; a second run changes nothing."""
    result = CliRunner().invoke(main, ["demo", "--no-serve"])
    assert result.exit_code == 0, result.output
    assert "demo-infoloss" in result.output and "demo-lead-pw" in result.output
    documents = table_count(env["ANNOTATOR_DATABASE_URL"], "documents")
    assert documents >= 12 + 8 + 8
    # ana and ben hold every document; cas, the third annotator, what the demo's work gives her.
    third = [line for line in (demo_data_dir() / "infolossqa_demo_work.jsonl").read_text()
             .splitlines() if json.loads(line)["annotator"] == "cas"]
    assert third
    assert table_count(env["ANNOTATOR_DATABASE_URL"], "assignments") == 2 * documents + len(third)
    rows = suggestion_rows()
    assert rows, "the demo must come with pre-highlights"
    for _doc, kind, source_spans, target_spans, explanation, score, target_score in rows:
        assert kind in {"deletion", "oversimplification", "trailing", "trailing_noise",
                        "insertion", "leaked_instruction", "repetition", "semantic_outlier"}
        assert source_spans or target_spans
        assert explanation and 0.0 <= score <= 1.0
        # An oversimplification's rendering is stored with its own score.
        assert (target_score is not None) == (kind == "oversimplification" and bool(target_spans))
        assert target_score is None or 0.0 < target_score <= 1.0
    assert any(r[-1] for r in rows)

    # Every planted leaked instruction is flagged on the target side, overlapping it.
    planted = json.loads((demo_data_dir() / "infolossqa_demo_planted.json").read_text())
    for problem in (p for p in planted if p["kind"] == "leaked_instruction"):
        start, end = problem["target_span"]
        hits = [r for r in rows if r[0] == problem["id"]
                and r[1] in ("leaked_instruction", "trailing")
                and any(s < end and start < e for s, e in r[3])]
        assert hits, f"{problem['id']}: leaked instruction not pre-highlighted"

    # The sentence alignment is stored for synchronised scrolling: monotonic, in range.
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        for doc in session.scalars(select(Document).join(Project).where(
                Project.name == "demo-infoloss")):
            assert doc.alignment, doc.external_id
            previous = (-1, -1)
            for src, tgt in doc.alignment:
                assert all(0 <= i < len(doc.source_sentences) for i in src)
                assert all(0 <= j < len(doc.target_sentences) for j in tgt)
                assert src[0] > previous[0] and tgt[0] > previous[1]
                previous = (src[-1], tgt[-1])
    database.dispose()

    again = CliRunner().invoke(main, ["prehighlight", "demo-infoloss", "--workers", "1"])
    assert again.exit_code == 0
    assert "pre-highlighted 0 documents" in again.output
    assert len(suggestion_rows()) == len(rows)
    rerun = CliRunner().invoke(main, ["demo", "--no-serve"])
    assert rerun.exit_code == 0, rerun.output
    assert table_count(env["ANNOTATOR_DATABASE_URL"], "documents") == documents
    assert len(suggestion_rows()) == len(rows)


def test_force_recomputes_identically(env):
    CliRunner().invoke(main, ["demo", "--no-serve"])
    before = sorted(suggestion_rows())
    forced = CliRunner().invoke(main, ["prehighlight", "demo-infoloss", "--force",
                                       "--workers", "2"])
    assert forced.exit_code == 0, forced.output
    assert "pre-highlighted 15 documents" in forced.output
    assert sorted(suggestion_rows()) == before


def test_unknown_project_is_a_clear_error(env):
    result = CliRunner().invoke(main, ["prehighlight", "nope"])
    assert result.exit_code == 1 and "no project named 'nope'" in result.output
