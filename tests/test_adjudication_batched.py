"""`adjudicate auto` (queue marks deferred to one UPSERT per batch) decides exactly what
applying the rules document by document does (a queue UPSERT on every decision), on a
generated SALSA-shaped three-annotator study (the benchmark's generator)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import select

from annotator.adjudication.overview import apply_automatic
from annotator.adjudication.store import open_ready_documents
from annotator.cli import main
from annotator.db import Database
from annotator.models import (
    AdjudicationDecision,
    AdjudicationQueueEntry,
    AuditEvent,
    GoldEdit,
    Project,
)
from annotator.operations import work

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "bench_adjudicate_auto", ROOT / "benchmarks" / "bench_adjudicate_auto.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _outcome(url: str) -> dict:
    database = Database(url)
    with database.session() as session:
        decisions = [(d.document_id, d.kind, d.item_key, d.source_edit_ids, d.before, d.after,
                      d.note, d.automatic)
                     for d in session.scalars(select(AdjudicationDecision)
                                              .order_by(AdjudicationDecision.id))]
        gold = [(g.document_id, g.edit_type, g.fields, g.spans, g.source_edit_ids)
                for g in session.scalars(select(GoldEdit).order_by(GoldEdit.id))]
        audits = sorted((a.action, a.object_id) for a in session.scalars(
            select(AuditEvent).where(AuditEvent.action.like("adjudication.%"))))
        queue = {q.document_id: (q.stale, q.changes)
                 for q in session.scalars(select(AdjudicationQueueEntry))}
    database.dispose()
    return {"decisions": decisions, "gold": gold, "audits": audits, "queue": queue}


def test_batched_command_decides_what_the_per_document_path_decides(tmp_path, monkeypatch):
    urls = {}
    for name in ("batched", "single"):
        folder = tmp_path / name
        folder.mkdir()
        urls[name] = f"sqlite:///{folder / 'study.sqlite3'}"
        bench.build(urls[name], folder, 24)
    built = _outcome(urls["batched"])["queue"]

    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", urls["batched"])
    monkeypatch.setenv("ANNOTATOR_INSTANCE_PATH", str(tmp_path / "instance"))
    done = CliRunner().invoke(main, ["adjudicate", "auto", "salsa", "--no-embeddings",
                                     "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.output)
    assert summary["documents"] == 24

    database = Database(urls["single"])
    with work.session(database) as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        completed = 0
        for document in open_ready_documents(session, project):
            completed += apply_automatic(session, document)["completed"]
    database.dispose()
    assert completed == summary["completed"]

    batched, single = _outcome(urls["batched"]), _outcome(urls["single"])
    # the rules did real work: merges, rejections, completed documents and open ones
    kinds = {d[1] for d in batched["decisions"]}
    assert {"merge", "reject", "complete"} <= kinds
    assert 0 < summary["completed"] < 24
    queues = {"batched": batched.pop("queue"), "single": single.pop("queue")}
    assert batched == single
    # every decided document's queue entry was bumped (the per-document path once per
    # decision, the batched one once per run) and recomputed when the run committed
    decided = {d[0] for d in batched["decisions"]}
    assert len(decided) == 24
    for queue in queues.values():
        for doc in decided:
            stale, changes = queue[doc]
            assert not stale and changes > built[doc][1], (doc, queue[doc], built[doc])

    # ... and holds what a full computation of the queue gives, in both databases
    from annotator.adjudication.overview import adjudication_queue
    from annotator.adjudication.queue import stored_queue

    for url in urls.values():
        database = Database(url)
        with database.session() as session:
            project = session.scalars(select(Project).where(Project.name == "salsa")).one()
            stored = stored_queue(session, project.id).entries
            full = adjudication_queue(session, project)
            assert stored_queue(session, project.id).stale == 0
            assert len(stored) == len(full) == 24
            assert ([(e.document.external_id, round(e.agreement, 6), e.open["total"],
                      e.open["summary"], e.status, e.fields_in_dispute, e.annotators)
                     for e in stored]
                    == [(e.document.external_id, round(e.agreement, 6), e.open["total"],
                         e.open["summary"], e.status, e.fields_in_dispute, e.annotators)
                        for e in full])
        database.dispose()
