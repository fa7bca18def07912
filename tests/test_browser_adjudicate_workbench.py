"""The lead's adjudication workbench in a real browser (Debian's Chromium via Playwright):
marks and merged spans in code points on text with astral characters (𝛼, emoji), merging
by selection with a preview of the released edit, labels instead of raw values, texts kept
in view beside the units, and the compare-all table with keyboard navigation. Saves the
README's adjudication screenshot from a clean, demo-like document."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import GoldEdit, User
from annotator.study.projects import create_project
from tests.adjudication_fixtures import mark_done, qa_edit
from tests.browser_helpers import wait_for
from tests.conftest import ARTIFACTS, UPDATE_SCREENSHOTS, browser_login
from tests.helpers import write_jsonl

pytestmark = pytest.mark.browser

# Astral characters (two UTF-16 units in the browser, one code point in Python) sit before
# every marked phrase: a page that slices by JavaScript string index marks the wrong text.
SOURCE = ("BACKGROUND: Children with 𝛼-thalassemia 😀 often need transfusions.\n"
          "METHODS: In this randomised, double-blind trial, 86 children received "
          "luspatercept 1.0 mg/kg every 3 weeks for 48 weeks. "
          "RESULTS: Transfusion burden fell by 33% (95% CI 21 to 45).")
TARGET = ("Background: Children with a blood disease 😀 often need blood from donors.\n"
          "Methods: Children got a new medicine for almost a year. "
          "Results: They needed fewer transfusions.")


def cp(text: str, phrase: str) -> tuple[int, int]:
    start = text.index(phrase)  # Python indices are code points
    return start, start + len(phrase)


@pytest.fixture
def astral_study(app, database, users, tmp_path):
    """Project 'blood' (lead lee): document b1 done by ana and ben, who mark overlapping
    dosage evidence with different questions and severities (a severity tie)."""
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    with database.session() as session:
        project = create_project(session, "blood", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "blood.jsonl", [
            {"id": "b1", "source": SOURCE, "target": TARGET}]))
        assign_documents(session, project, ["ana", "ben"])
        doc = project.documents[0]
        ana = qa_edit(session, doc, "ana", "oversimplification",
                       "luspatercept 1.0 mg/kg every 3 weeks", "Which medicine, and how much?",
                       answer="Luspatercept, 1 mg per kg of body weight every 3 weeks.",
                       target_phrase="a new medicine", severity=2)
        ben = qa_edit(session, doc, "ben", "oversimplification", "1.0 mg/kg every 3 weeks",
                       "How often did children get the medicine?", answer="Every 3 weeks.",
                       target_phrase="a new medicine", severity=1)
        mark_done(session, doc, "ana", "ben")
        return {"project_id": project.id, "document_id": doc.id,
                "edits": {"ana": ana.id, "ben": ben.id}}


def open_view(page, live_server, study):
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{study['project_id']}/adjudicate/{study['document_id']}")
    page.locator("#adj-units .unit").first.wait_for()


def marked_text(page, edit_id: int, side: str) -> str:
    return page.evaluate("""([id, side]) =>
        [...document.querySelectorAll(`#text-${side} .seg.marked`)]
        .filter((s) => s.dataset.edits.split(' ').includes(String(id)))
        .map((s) => s.textContent).join('')""",
                         [edit_id, side])


def drag_select(page, side: str, start: int, end: int):
    """Select code points [start, end) of one text with a real mouse drag."""
    box = page.evaluate("""async ([side, start, end]) => {
        const m = await import('/static/js/offsets.js');
        const range = m.offsetsToRange(document.getElementById(`text-${side}`), start, end);
        range.startContainer.parentElement.scrollIntoView({block: 'center'});
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const a = rects[0], b = rects[rects.length - 1];
        return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2];
    }""", [side, start, end])
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move(box[2], box[3], steps=5)
    page.mouse.up()


def test_marks_and_merge_by_selection_count_code_points(page, live_server, astral_study,
                                                        database):
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    open_view(page, live_server, astral_study)
    ana, ben = astral_study["edits"]["ana"], astral_study["edits"]["ben"]
    # Marks sit on the annotators' words although 𝛼 and 😀 come before them.
    assert marked_text(page, ana, "source") == "luspatercept 1.0 mg/kg every 3 weeks"
    assert marked_text(page, ben, "source") == "1.0 mg/kg every 3 weeks"
    assert marked_text(page, ana, "target") == "a new medicine"

    unit = page.locator("#adj-units .unit").first
    ana_row = unit.locator(".edit[data-annotator=ana]")
    # Question before answer, severity by its label, quotes of the marked text.
    assert ana_row.locator("dt").all_inner_texts()[:3] == ["Question", "Answer", "Severity"]
    assert ana_row.locator(".field-severity").inner_text() == "2 · major"
    assert ana_row.locator(".quote-source").inner_text() == "“luspatercept 1.0 mg/kg every 3 weeks”"
    assert "Severity (tie" in unit.locator(".differs").inner_text()

    # Merge from ana's edit; the evidence is set by selecting text, not typed as offsets.
    ana_row.locator("button.merge").click()
    form = unit.locator(".merge-form")
    start, end = cp(SOURCE, "luspatercept 1.0 mg/kg")
    drag_select(page, "source", start + 2, end - 1)  # snapped to whole words
    spans = form.locator(".merge-span[data-side=source]")
    expect(spans.locator(".span-text")).to_have_text("luspatercept 1.0 mg/kg")
    assert spans.count() == 1
    offsets = (int(spans.get_attribute("data-start")), int(spans.get_attribute("data-end")))
    assert offsets == (start, end)
    assert spans.locator(".span-text").inner_text() == "luspatercept 1.0 mg/kg"
    # A second selection on the other side adds a span there; a deletion-only side refuses.
    t_start, t_end = cp(TARGET, "a new medicine for almost a year")
    drag_select(page, "target", t_start, t_end)
    expect(form.locator(".merge-span[data-side=target] .span-text")).to_have_text(
        "a new medicine for almost a year")
    form.locator("select[name=severity]").select_option(label="3 · critical")
    preview = form.locator(".merge-preview")
    assert preview.locator(".field-severity").inner_text() == "3 · critical"
    assert preview.locator(".quote-source").inner_text() == "“luspatercept 1.0 mg/kg”"
    assert preview.locator(".quote-target").inner_text() == "“a new medicine for almost a year”"
    form.locator("button.save-merge").click()
    decided = page.locator("#adj-units .unit.decided")
    decided.wait_for()
    assert "Decided: merge of ana's and ben's edits (from ana's) by lee" in \
        decided.locator(".decision").inner_text()
    assert decided.locator(".gold-edit .quote-source").inner_text() == "“luspatercept 1.0 mg/kg”"
    assert decided.locator(".gold-edit .field-severity").inner_text() == "3 · critical"

    with database.session() as session:
        (gold,) = session.scalars(select(GoldEdit)).all()
        assert sorted((s["side"], s["start"], s["end"]) for s in gold.spans) == [
            ("source", start, end), ("target", t_start, t_end)]
        assert gold.fields["severity"] == 3
    assert errors == []


def test_accept_names_whose_edit_and_texts_stay_in_view(page, live_server, astral_study):
    open_view(page, live_server, astral_study)
    unit = page.locator("#adj-units .unit").first
    unit.locator("text=Accept ben's").click()
    page.locator("#adj-units .unit.decided").wait_for()
    assert "Decided: accept ben's edit by lee" in page.locator("#adj-units .decision").inner_text()
    # The texts (side by side, issue 35) are above the units, and stay on screen when the
    # page scrolls to the end.
    page.evaluate("window.scrollTo(0, 0)")
    texts = page.locator("#adj-texts").bounding_box()
    units = page.locator("#adj-units").bounding_box()
    assert texts["y"] + texts["height"] <= units["y"]
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    wait_for(page, "window.scrollY > 0 && window.scrollY + window.innerHeight >= "
                   "document.documentElement.scrollHeight - 1")  # at the end (sticky is CSS)
    top = page.evaluate("document.getElementById('adj-texts').getBoundingClientRect().top")
    assert 0 <= top < 50


def test_compare_all_view_with_keyboard_navigation(page, live_server, astral_study):
    open_view(page, live_server, astral_study)
    page.locator("body").press("c")
    table = page.locator("#adj-compare-table")
    table.wait_for()
    assert page.locator("#adj-cards").is_hidden()
    assert table.locator("thead th").all_inner_texts() == ["Unit", "ana", "ben", "Decision"]
    row = table.locator("tbody tr").first
    ben = row.locator("td[data-annotator=ben]").inner_text()
    assert "How often did children get the medicine?" in ben
    assert "Which medicine, and how much?" in row.locator("td[data-annotator=ana]").inner_text()
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.classList.contains('compare-row')")
    focused = page.evaluate("document.activeElement.dataset.unit")
    # The focused unit's spans are emphasised in the texts.
    assert page.locator("#text-source .seg.focus").count() >= 1
    page.keyboard.press("Enter")
    assert page.locator("#adj-compare-view").is_hidden()
    assert page.evaluate("document.activeElement.dataset.unit") == focused
    assert page.evaluate("document.activeElement.classList.contains('unit')")


def test_screenshot_of_a_clean_document(page, live_server, astral_study):
    """The README screenshot: a demo-like abstract, no test artefacts."""
    open_view(page, live_server, astral_study)
    unit = page.locator("#adj-units .unit").first
    unit.locator(".edit[data-annotator=ana] button.merge").click()
    page.evaluate("window.scrollTo(0, 0)")
    unit.locator("h3").hover()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "adjudicate.png"))
    assert "script" not in page.locator("main").inner_text()
    if UPDATE_SCREENSHOTS:
        shutil.copy(ARTIFACTS / "adjudicate.png",
                    ARTIFACTS.parent / "docs" / "screenshots" / "adjudicate.png")


def test_keyboard_only_adjudication(page, live_server, astral_study, database):
    """j to the unit, Tab to a button, Enter: no mouse. A merge takes another annotator's
    spans with a button instead of a selection."""
    open_view(page, live_server, astral_study)
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.classList.contains('unit')")
    assert page.locator("#text-source .seg.focus").count() >= 1

    def tab_to(label: str):
        for _ in range(15):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent.trim()") == label:
                return
        raise AssertionError(f"Tab never reached {label!r}")

    tab_to("Merge from this")  # ana's edit comes first
    page.keyboard.press("Enter")
    form = page.locator("#adj-units .merge-form")
    form.wait_for()
    tab_to("add ben's spans")
    page.keyboard.press("Enter")
    start, end = cp(SOURCE, "1.0 mg/kg every 3 weeks")
    expect(form.locator(".merge-span[data-side=source]")).to_have_attribute(
        "data-start", str(start))
    tab_to("Save merged edit")
    page.keyboard.press("Enter")
    page.locator("#adj-units .unit.decided").wait_for()
    with database.session() as session:
        (gold,) = session.scalars(select(GoldEdit)).all()
        assert ("source", start, end) in {(s["side"], s["start"], s["end"]) for s in gold.spans}
    page.keyboard.press("c")
    assert "merge of ana's and ben's edits (from ana's) by lee" in \
        page.locator("#adj-compare-table .compare-decision").first.inner_text()
