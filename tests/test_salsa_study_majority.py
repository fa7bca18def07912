"""Issue 34 "Done when", on a larger file built from the whole SALSA example: every one of
its 50 records annotated by three annotators (two as published, the third leaving out the
composites of every other record and answering some substitutions differently). After the
majority rule, no merged edit is invalid, every composite a majority marked is in the gold
with its constituents linked, and nothing is rejected with a false reason."""

from __future__ import annotations

import copy
import json

from sqlalchemy import select

from annotator.adjudication.gold import gold_record
from annotator.annotate.store import validate_fields
from annotator.models import AdjudicationDecision, Document, Project
from annotator.schemas.files import project_schema
from tests.test_composites_adjudication import WHO, adjudicated_by_majority
from tests.test_interop_real_studies import SALSA

INFO = "substitution_info_change"


def third_annotator(record: dict, n: int) -> list[dict]:
    edits = copy.deepcopy(record["edits"])
    if n % 2:
        edits = [e for e in edits if not e.get("constituent_edits")]
    for e in edits:  # a different branch of the nested answer, with its own sub-answer
        answer = e.get("annotation") or {}
        if e["category"] == "substitution" and isinstance(answer.get(INFO), dict) \
                and answer[INFO].get("val") == "same":
            answer[INFO] = {"val": "less", "less": {"val": "trivial_deletion"}}
    return edits


def study_rows() -> tuple[list[dict], list[dict]]:
    published = json.loads((SALSA / "salsa.json").read_text(encoding="utf-8"))
    rows = []
    for n, record in enumerate(published):
        for who in WHO:
            row = copy.deepcopy(record)
            row["id"] = f"r{n}"
            row["metadata"] = {**row.get("metadata", {}), "annotator": who}
            if who == "ann_c":
                row["edits"] = third_annotator(record, n)
            rows.append(row)
    return published, rows


def test_whole_salsa_example_three_annotators_majority_gold_is_valid(env, tmp_path):
    published, rows = study_rows()
    database = adjudicated_by_majority(rows, tmp_path)
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        schema = project_schema(project)
        composite_types = {et.name for et in schema.edit_types if et.composite}
        gold_composites = gold_parts = 0
        for n, record in enumerate(published):
            document = session.scalars(select(Document).where(
                Document.external_id == f"r{n}")).one()
            gold = gold_record(session, document)
            for edit in gold["edits"]:  # no merged (or accepted) edit is invalid
                validate_fields(edit["fields"], schema.edit_type(edit["edit_type"]).fields)
            composites = [e for e in record["edits"] if e.get("constituent_edits")]
            found = [e for e in gold["edits"] if e["edit_type"] in composite_types]
            parts = [e for e in gold["edits"] if "constituent_of" in e["provenance"]]
            assert len(found) == len(composites), (n, len(found), len(composites))
            assert len(parts) == sum(len(c["constituent_edits"]) for c in composites)
            gold_composites += len(found)
            gold_parts += len(parts)
        assert gold_composites == 56  # every published composite: all marked by 2 or 3
        assert gold_parts > 0
        notes = [d.note or "" for d in session.scalars(select(AdjudicationDecision)
                                                        .where(AdjudicationDecision.kind
                                                               == "reject"))]
        # the third annotator's lone edits are the only rejections: never a composite
        # that two or three annotators marked
        assert all("2 of 3 annotators marked no edit overlapping it" in note for note in notes)
    database.dispose()
