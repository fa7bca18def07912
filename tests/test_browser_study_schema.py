"""The annotation page with a schema made from a Thresh typology: a document-level edit (no
spans) and a conditional sub-question shown only for the answer it belongs to."""

from __future__ import annotations

import re

import pytest

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment
from annotator.study.projects import create_project
from tests.conftest import ARTIFACTS, browser_login
from tests.helpers import pairs, write_jsonl
from tests.test_browser_annotate import (
    api_state,
    drag_select,
    open_page,
    wait_saved,
    watch_errors,
)

pytestmark = pytest.mark.browser

TYPOLOGY = """
template_name: mini-salsa
edits:
  - name: deletion
    label: Deletion
    enable_input: true
    annotation:
      - name: deletion_type
        question: Select the type of this deletion.
        options:
          - name: good_deletion
            label: Insignificant
            question: How much does it help?
            options: likert-3
          - name: bad_deletion
            label: Significant
  - name: comment
    label: Comment
    annotation:
      - name: comment_text
        question: Any remarks on this pair?
        options: textarea
        required: true
"""


@pytest.fixture
def thresh_study(database, users, tmp_path):
    typology = tmp_path / "typology.yml"
    typology.write_text(TYPOLOGY, encoding="utf-8")
    records = pairs(1)
    with database.session() as session:
        project = create_project(session, "mini", str(typology))
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", records))
        assign_documents(session, project, ["ana"], per_document=1)
        assignment = session.query(Assignment).one()
        return {"assignment": assignment.id, "source": records[0]["source"]}


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
