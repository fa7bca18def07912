"""The annotators' guideline tab shows the guideline a schema file carried: the InfoLossQA
authors' Thresh typology's ``instructions`` (issue 43: the tab said there was none)."""

from __future__ import annotations

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, User
from annotator.study.projects import create_project
from tests.browser_helpers import open_page, watch_errors
from tests.conftest import browser_login
from tests.helpers import INFOLOSSQA_TYPOLOGY, pairs, write_jsonl


def test_the_guideline_tab_shows_the_typology_instructions(page, live_server, database,
                                                           users, tmp_path):
    errors = watch_errors(page)
    with database.session() as session:
        project = create_project(session, "infoloss", str(INFOLOSSQA_TYPOLOGY),
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", pairs(1)))
        assign_documents(session, project, ["ana"], per_document=1)
        aid = session.query(Assignment.id).scalar()
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("/")  # the guidelines tab, its search focused
    body = page.locator("#tab-guidelines .guideline-body")
    body.locator("ol > li").first.wait_for()
    items = body.locator("ol > li").all_inner_texts()
    assert items[0] == "Read both the original and simplified text"
    assert items[2].startswith("For each highlight, write a Q/A pair")
    assert "Omissions from the original, and" in items[1]
    assert "Please refer to the full guidelines for examples." in body.inner_text()
    assert "no guideline" not in body.inner_text()
    assert errors == []
