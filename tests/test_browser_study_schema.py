"""The annotation page with a schema made from a Thresh typology: a document-level edit (no
spans) and a conditional sub-question shown only for the answer it belongs to."""

from __future__ import annotations

import re

import pytest

from tests.browser_helpers import api_state, drag_select, open_page, wait_saved, watch_errors
from tests.conftest import ARTIFACTS, browser_login
from tests.helpers import mini_typology_assignment

pytestmark = pytest.mark.browser


@pytest.fixture
def thresh_study(database, users, tmp_path):
    return mini_typology_assignment(database, tmp_path)


def test_document_level_edit_and_conditional_sub_question(page, live_server, thresh_study):
    errors = watch_errors(page)
    aid = thresh_study["assignment"]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)

    # A comment about the whole pair: no span rows, just its field.
    page.click("#new-edit [data-type=comment]")
    form = page.locator("#edit-form")
    assert form.locator(".document-level").inner_text() == "About the whole pair: no spans."
    assert form.locator(".span-row").count() == 0
    form.locator("[data-field=comment_text]").fill("No information loss <b>here</b>")
    form.locator("[data-field=comment_text]").blur()
    wait_saved(page)

    # A deletion: the efficacy question appears only for "Insignificant".
    source = thresh_study["source"]
    start = source.index("double-blind")
    drag_select(page, "source", start, start + len("double-blind"))
    page.click("#popover [data-type=deletion]")
    sub = form.locator(".field[data-name='deletion_type.good_deletion']")
    assert sub.is_hidden()
    form.locator(".field[data-name=deletion_type] label", has_text="Insignificant").click()
    assert sub.is_visible()
    sub.locator("label", has_text="a lot").click()
    wait_saved(page)
    form.locator(".field[data-name=deletion_type] label",
                 has_text=re.compile(r"^Significant$")).click()
    assert sub.is_hidden()  # and its answer is dropped: it no longer applies
    wait_saved(page)
    form.locator(".field[data-name=deletion_type] label", has_text="Insignificant").click()
    sub.locator("label", has_text="somewhat").click()
    wait_saved(page)

    data = api_state(page, live_server, aid)
    by_type = {e["edit_type"]: e for e in data["edits"]}
    assert by_type["comment"]["spans"] == []
    assert by_type["comment"]["fields"] == {"comment_text": "No information loss <b>here</b>"}
    assert by_type["deletion"]["fields"] == {"deletion_type": "good_deletion",
                                             "deletion_type.good_deletion": "somewhat"}
    assert by_type["deletion"]["spans"] == [{"side": "source", "start": start,
                                             "end": start + len("double-blind")}]
    # Text from the file stays text in the list.
    assert page.locator("#edit-list b").count() == 0
    assert errors == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate-study-schema.png"))
