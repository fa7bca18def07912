"""Pre-highlights depend on a pair's texts, never on how the study brought them in: real
InfoLossQA pairs (tests/data/infolossqa-dev, as they are) imported in two batches, the
second late and in another order and with one abstract again under another id (two systems
with identical output), give every document the suggestions that one import of the whole
set gives, and the identical texts the same suggestions under both ids. Real MiniLM model,
the pre-highlighting jobs run by a worker as `annotator serve` would."""

from __future__ import annotations

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import Document, Project, Suggestion
from tests.conftest import run_queued_jobs
from tests.helpers import infolossqa_pairs, write_jsonl

PAIRS = 5
FIELDS = ("kind", "source_spans", "target_spans", "score", "target_score", "kind_scores",
          "method", "category", "explanation")




def ok(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _suggestions(database: Database, project: str) -> dict[str, list[tuple]]:
    """external id -> its stored suggestions (the fields a person sees), in a fixed order."""
    with database.session() as session:
        pid = session.scalar(select(Project.id).where(Project.name == project))
        out: dict[str, list[tuple]] = {}
        for external_id, row in session.execute(
                select(Document.external_id, Suggestion).join(
                    Suggestion, Suggestion.document_id == Document.id)
                .where(Document.project_id == pid)):
            out.setdefault(external_id, []).append(
                tuple(json.dumps(getattr(row, f), sort_keys=True) for f in FIELDS))
        return {k: sorted(v) for k, v in out.items()}


def test_batches_late_order_and_identical_texts_under_another_id(env, tmp_path):
    pairs = infolossqa_pairs(PAIRS)
    assert len(pairs) == PAIRS
    twin = {**pairs[0], "id": f"{pairs[0]['id']}-system-b"}   # the same texts, another id
    database = Database(Config.from_env().database_url)
    try:
        for project in ("whole", "batched"):
            ok("project", "create", project, "--schema", "infolossqa")
        ok("import", "whole", write_jsonl(tmp_path / "whole.jsonl", [*pairs, twin]))
        ok("import", "batched", write_jsonl(tmp_path / "batch1.jsonl", pairs[:2]))
        assert run_queued_jobs(database) >= 1
        first = _suggestions(database, "batched")
        assert sorted(first) == sorted(p["id"] for p in pairs[:2])
        # A later batch: the rest in reverse order, and the twin.
        ok("import", "batched", write_jsonl(tmp_path / "batch2.jsonl", [twin, *pairs[:1:-1]]))
        assert run_queued_jobs(database) >= 1

        whole, batched = _suggestions(database, "whole"), _suggestions(database, "batched")
        ids = sorted([p["id"] for p in pairs] + [twin["id"]])
        assert sorted(whole) == sorted(batched) == ids   # every document pre-highlighted
        assert batched == whole
        # The first batch's suggestions were not touched by the second batch's job.
        assert {k: batched[k] for k in first} == first
        assert whole[twin["id"]] == whole[pairs[0]["id"]]
        kinds = {json.loads(s[0]) for rows in whole.values() for s in rows}
        assert {"deletion", "oversimplification"} & kinds, kinds
    finally:
        database.dispose()
