"""Issue 34 in the browser: a composite unit (SALSA's structure / split) shows each
annotator's composite with its constituents inside it, offers no button for a constituent
alone, and accepting a composite releases it with its constituents."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from annotator.models import Assignment, Document, Edit
from tests.conftest import browser_login
from tests.test_composites_adjudication import composite_records, run, three_annotators
from tests.test_interop_real_studies import SALSA

pytestmark = pytest.mark.browser


def test_a_composite_unit_is_decided_with_its_constituents(env, app, database, users,
                                                           live_server, page, tmp_path):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    rows = [r for r in three_annotators(composite_records()) if r["id"] == "s0"]
    data = tmp_path / "salsa-study.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml", "--lead", "lee")
    run("import", "salsa", data, "--format", "thresh")
    with database.session() as session:
        for a in session.scalars(select(Assignment)):
            a.status = "done"
        document = session.scalars(select(Document)).one()
        parts = {e.id: e.parent_id for e in session.scalars(select(Edit))
                 if e.parent_id is not None}
        composite = session.get(Edit, next(iter(parts.values())))
        own_parts = sum(1 for p in parts.values() if p == composite.id)
        url = f"{live_server}/projects/{document.project_id}/adjudicate/{document.id}"
    browser_login(page, live_server, "lee")
    page.goto(url)
    card = page.locator(f"#adj-cards .unit:has(.edit[data-edit='{composite.id}'])")
    card.wait_for()
    # one row per annotator's composite; the constituents sit inside, without buttons
    assert card.locator(":scope > .edit").count() == 3
    row = card.locator(f".edit[data-edit='{composite.id}']")
    assert row.locator(".constituent").count() == own_parts
    assert card.locator(".constituent button").count() == 0
    assert card.locator(".constituent").count() == 3 * own_parts  # the same in all three
    row.locator("button.accept", has_text=f"with {own_parts} constituents").click()
    card = page.locator(f"#adj-cards .unit.decided:has(.edit[data-edit='{composite.id}'])")
    card.wait_for()
    assert card.locator(".gold-edit").count() == 1 + own_parts
