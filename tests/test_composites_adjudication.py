"""Issue 34: composite edits (SALSA's structure / split, Heineman et al. 2023) are decided
as units with their constituents. Built in the test from the SALSA example: three annotators
per sentence, the composite marked by all (or by two of three)."""

from __future__ import annotations

import copy
import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.adjudication.gold import gold_record
from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import AdjudicationDecision, Assignment, Document, Project
from tests.test_interop_real_studies import SALSA

WHO = ("ann_a", "ann_b", "ann_c")


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output



def adjudicated_by_majority(rows: list[dict], tmp_path) -> Database:
    """A SALSA project of ``rows`` (Thresh records), every assignment done, after
    `adjudicate auto` with the majority edit rule; its database."""
    data = tmp_path / "salsa-study.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        project.settings = {**(project.settings or {}),
                            "adjudication": {"edit_rule": "majority"}}
        for a in session.scalars(select(Assignment)):
            a.status = "done"
    run("adjudicate", "auto", "salsa", "--no-embeddings")
    return database

def composite_records() -> list[dict]:
    """The first two SALSA records whose edits include a composite with constituents."""
    published = json.loads((SALSA / "salsa.json").read_text(encoding="utf-8"))
    found = [r for r in published if any(e.get("constituent_edits") for e in r["edits"])]
    return found[:2]


def three_annotators(records: list[dict]) -> list[dict]:
    """Record 0: all three annotators mark the same edits. Record 1: ann_c leaves out
    every composite (and so its constituents)."""
    out = []
    for n, record in enumerate(records):
        for who in WHO:
            copied = copy.deepcopy(record)
            copied["id"] = f"s{n}"
            copied["metadata"] = {**copied.get("metadata", {}), "annotator": who}
            if n == 1 and who == "ann_c":
                copied["edits"] = [e for e in copied["edits"] if not e.get("constituent_edits")]
            out.append(copied)
    return out


def test_identical_composites_of_a_majority_are_accepted_with_their_constituents(env,
                                                                                 tmp_path):
    records = composite_records()
    database = adjudicated_by_majority(three_annotators(records), tmp_path)
    with database.session() as session:
        for n, record in enumerate(records):
            document = session.scalars(select(Document).where(
                Document.external_id == f"s{n}")).one()
            composites = [e for e in record["edits"] if e.get("constituent_edits")]
            gold = gold_record(session, document)
            gold_composites = [e for e in gold["edits"]
                               if e["edit_type"] == composites[0]["category"]]
            assert len(gold_composites) == len(composites)
            parts = [e for e in gold["edits"] if "constituent_of" in e["provenance"]]
            assert len(parts) == sum(len(c["constituent_edits"]) for c in composites)
            sources = {s["id"] for c in gold_composites
                       for s in c["provenance"]["source_edits"]}
            assert all(set(p["provenance"]["constituent_of"]) <= sources for p in parts)
            notes = [d.note for d in session.scalars(select(AdjudicationDecision).where(
                AdjudicationDecision.document_id == document.id))]
            # never the false "marked no edit here" for a composite all (or two) marked
            agreed = "3 of 3" if n == 0 else "2 of 3"
            assert any(f"{agreed} annotators marked the same {composites[0]['category']}"
                       in (note or "") for note in notes), notes
    database.dispose()


def test_a_record_without_edits_but_with_span_keys_is_imported_with_a_warning(env, tmp_path):
    record = {"id": "p1", "source": "A long sentence here.", "target": "A sentence.",
              "metadata": {"annotator": "ann_a"}, "edits": [],
              "spans": [{"start": 2, "end": 6, "label": "deletion"}]}
    data = tmp_path / "odd.json"
    data.write_text(json.dumps([record]), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    out = run("import", "salsa", data, "--format", "thresh")
    assert (f"{data}:1: no edits read (edits are read from 'edits'), but the record carries "
            "'spans', which look like annotations") in out
    record["spans"] = []  # empty: nothing unread, no warning
    data.write_text(json.dumps([{**record, "id": "p2"}]), encoding="utf-8")
    assert "look like annotations" not in run("import", "salsa", data, "--format", "thresh")
