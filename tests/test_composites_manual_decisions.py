"""Issue 34: the lead's own decisions on a composite unit (SALSA's structure / split,
Heineman et al. 2023) keep the composite with its constituents: keep-both and merge copy
the constituents and link them, and a constituent is never accepted or kept alone."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.gold import gold_record
from annotator.config import Config
from annotator.db import Database
from annotator.models import Assignment, Document, Edit, User
from tests.test_composites_adjudication import composite_records, run, three_annotators
from tests.test_interop_real_studies import SALSA


@pytest.fixture
def composite_unit(env, tmp_path):
    """Record 0 of the SALSA composites marked identically by three annotators, every
    assignment done; yields (session, document, lead, the composite's unit, its edits)."""
    rows = [r for r in three_annotators(composite_records()) if r["id"] == "s0"]
    data = tmp_path / "salsa-study.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    run("import", "salsa", data, "--format", "thresh")
    run("user", "add", "lee", "--role", "lead", "--password", "a-long-password-1")
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        for a in session.scalars(select(Assignment)):
            a.status = "done"
        session.commit()
        document = session.scalars(select(Document).where(Document.external_id == "s0")).one()
        lead = session.scalars(select(User).where(User.username == "lee")).one()
        units = store.current_units(session, document)
        by_id = {e.id: e for e in session.scalars(select(Edit))}
        unit = next(u for u in units
                    if any(by_id[i].parent_id in u.edit_ids for i in u.edit_ids))
        yield session, document, lead, unit, [by_id[i] for i in unit.edit_ids]
    database.dispose()


def composites_in_gold(session, document) -> tuple[list[dict], list[dict]]:
    gold = gold_record(session, document)["edits"]
    parts = [e for e in gold if "constituent_of" in e["provenance"]]
    return [e for e in gold if "constituent_of" not in e["provenance"]], parts


def test_keep_both_keeps_each_composite_with_its_own_constituents(composite_unit):
    session, document, lead, unit, edits = composite_unit
    composites = [e for e in edits if e.parent_id not in unit.edit_ids]
    constituents = [e for e in edits if e.parent_id in unit.edit_ids]
    assert len(composites) == 3 and constituents  # one composite per annotator
    d.keep_both(session, document, unit.edit_ids, lead, "all three stand")
    tops, parts = composites_in_gold(session, document)
    assert len(tops) == 3 and len(parts) == len(constituents)
    for top in tops:
        (source,) = top["provenance"]["source_edits"]
        own = [p for p in parts if p["provenance"]["constituent_of"] == [source["id"]]]
        assert len(own) == sum(1 for c in constituents if c.parent_id == source["id"])


def test_merge_from_a_composite_keeps_the_base_constituents_linked(composite_unit):
    session, document, lead, unit, edits = composite_unit
    base = next(e for e in edits if e.parent_id not in unit.edit_ids)
    d.merge(session, document, unit.edit_ids, base.id, lead, note="one structure change")
    tops, parts = composites_in_gold(session, document)
    assert [t["edit_type"] for t in tops] == [base.edit_type]
    assert {s["id"] for s in tops[0]["provenance"]["source_edits"]} == {
        e.id for e in edits if e.parent_id not in unit.edit_ids}
    assert len(parts) == sum(1 for e in edits if e.parent_id == base.id)
    assert all(p["provenance"]["constituent_of"] == [base.id] for p in parts)


def test_merge_into_a_plain_type_stands_alone_and_names_the_whole_unit(composite_unit):
    session, document, lead, unit, edits = composite_unit
    base = next(e for e in edits if e.parent_id not in unit.edit_ids)
    part = next(e for e in edits if e.parent_id in unit.edit_ids)
    plain = part.edit_type
    d.merge(session, document, unit.edit_ids, base.id, lead, edit_type=plain,
            spans=store.edit_snapshot(part)["spans"], fields=dict(part.fields))
    tops, parts = composites_in_gold(session, document)
    assert parts == [] and [t["edit_type"] for t in tops] == [plain]
    assert {s["id"] for s in tops[0]["provenance"]["source_edits"]} == set(unit.edit_ids)


@pytest.mark.parametrize("action", ["accept", "keep"])
def test_a_constituent_is_never_decided_alone(composite_unit, action):
    session, document, lead, unit, edits = composite_unit
    part = next(e for e in edits if e.parent_id in unit.edit_ids)
    with pytest.raises(store.AdjudicationError,
                       match=f"edit {part.id} is a constituent of edit {part.parent_id}"):
        if action == "accept":
            d.accept(session, document, unit.edit_ids, part.id, lead)
        else:
            d.keep_both(session, document, unit.edit_ids, lead, keep_ids=[part.id, part.parent_id])
    assert gold_record(session, document)["edits"] == []
