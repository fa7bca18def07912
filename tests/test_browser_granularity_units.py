"""Issues 42 and 43 in the browser: a change three annotators marked at three granularities
("begins the largest strike" -> "launched the biggest strike": largest->biggest; begins the
largest->launched the biggest; begins->launched plus largest strike action->biggest strike)
is one unit with each annotator's extent visible, and the merge preview and the texts'
highlight show the same spans (one list drawn twice)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from annotator.models import Assignment, Document
from tests.conftest import browser_login
from tests.test_adjudication_units_by_change import strike_rows
from tests.test_composites_adjudication import run
from tests.test_interop_real_studies import SALSA

pytestmark = pytest.mark.browser


@pytest.fixture
def strike_url(env, app, database, users, live_server, tmp_path):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    data = tmp_path / "strike.json"
    data.write_text(json.dumps(strike_rows()), encoding="utf-8")
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml", "--lead", "lee")
    run("import", "salsa", data, "--format", "thresh")
    with database.session() as session:
        for a in session.scalars(select(Assignment)):
            a.status = "done"
        document = session.scalars(select(Document)).one()
        return f"{live_server}/projects/{document.project_id}/adjudicate/{document.id}"


def test_a_change_marked_at_three_granularities_is_one_unit_with_every_extent(
        strike_url, live_server, page):
    browser_login(page, live_server, "lee")
    page.goto(strike_url)
    cards = page.locator("#adj-cards .unit")
    cards.first.wait_for()
    assert cards.count() == 1  # one unit, nothing unmatched
    card = cards.first
    assert card.locator(":scope > .edit").count() == 4  # ann_c's two halves inside it
    assert "different granularity" in card.locator(".extents").inner_text()
    marked = {}
    for row in card.locator(".extent-row").all():
        key = (row.get_attribute("data-annotator"), row.get_attribute("data-side"))
        marked[key] = row.locator("mark").all_inner_texts()
    assert marked == {
        ("ann_a", "source"): ["largest"], ("ann_a", "target"): ["biggest"],
        ("ann_b", "source"): ["begins the largest"], ("ann_b", "target"): ["launched the biggest"],
        ("ann_c", "source"): ["begins", "largest strike action"],
        ("ann_c", "target"): ["launched", "biggest strike"],
    }
    # every line shows the same window of the text: the unit's whole extent
    windows = {row.locator(".extent-text").inner_text()
               for row in card.locator(".extent-row[data-side='source']").all()}
    assert windows == {"begins the largest strike action"}


MERGED_TEXTS = """() => {
  const out = {};
  for (const side of ["source", "target"]) {
    const runs = [];
    let last = null;
    for (const seg of document.querySelectorAll(`#text-${side} .seg`)) {
      if (seg.classList.contains("merging")) {
        if (last && last.nextElementSibling === seg) runs[runs.length - 1] += seg.textContent;
        else runs.push(seg.textContent);
        last = seg;
      }
    }
    out[side] = runs;
  }
  return out;
}"""


def preview_texts(card) -> dict:
    preview = card.locator(".merge-preview")
    out = {}
    for side in ("source", "target"):
        quote = preview.locator(f".quote-{side}")
        text = quote.inner_text() if quote.count() else ""
        out[side] = [t.strip("“”") for t in text.split(" … ")] if text else []
    return out


def test_the_merge_preview_and_the_text_highlight_show_the_same_spans(strike_url, live_server,
                                                                     page):
    browser_login(page, live_server, "lee")
    page.goto(strike_url)
    card = page.locator("#adj-cards .unit").first
    card.wait_for()
    card.locator(".edit[data-annotator='ann_a'] button.merge").click()
    card.locator(".merge-preview .gold-edit").wait_for()
    assert page.evaluate(MERGED_TEXTS) == preview_texts(card) == {
        "source": ["largest"], "target": ["biggest"]}
    # widening to ann_b's spans changes both, the same way
    card.locator("button.copy-spans", has_text="add ann_b's spans").click()
    expected = {"source": ["begins the largest"], "target": ["launched the biggest"]}
    page.wait_for_function("() => document.querySelector('.merge-preview .quote-source')"
                           "?.textContent.includes('begins')")
    assert preview_texts(card) == expected and page.evaluate(MERGED_TEXTS) == expected
    # a span removed from the form leaves the text too
    card.locator(".merge-span[data-side='target'] .remove-span").click()
    page.wait_for_function("() => !document.querySelector('.merge-preview .quote-target')")
    assert page.evaluate(MERGED_TEXTS) == {"source": ["begins the largest"], "target": []}
    card.locator(".cancel-merge").click()
    assert page.evaluate(MERGED_TEXTS) == {"source": [], "target": []}
