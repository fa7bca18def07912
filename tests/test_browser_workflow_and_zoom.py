"""The workbench, round three (issue 35) in Debian's Chromium: work flows on (Next document
after Mark done or Skip, Next in queue after adjudicating), a new edit's form comes into
view focused, the adjudication view shows the two texts side by side, question guidance
flags only what matters, PLABA pages say what they can do, and 200 % zoom keeps the tools
reachable."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.models import Assignment, Document, GoldEdit, Project, User
from annotator.operations.demo import DEMO_USERS, create_demo
from tests.adjudication_fixtures import TARGET as QA_TARGET
from tests.browser_helpers import (
    SOURCE,
    drag_select,
    handled_by_page,
    open_page,
    prepare,
    span,
    standard_suggestions,
    wait_for,
)
from tests.conftest import browser_login
from tests.test_browser_annotate_states import open_with_a_new_deletion

pytestmark = pytest.mark.browser
DEMO_PASSWORDS = {name: password for name, _, password in DEMO_USERS}


# ---------------------------------------------------------------- item 5: the flow


def test_after_mark_done_the_next_document_is_one_click_away(page, live_server, study,
                                                              database):
    first, second = study["assignments"]["ana"][:2]
    prepare(database, first)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    next_link = page.locator("#btn-next")
    assert next_link.is_hidden()
    page.click("#btn-done")
    next_link.wait_for()
    # The way on has the focus: Enter opens the next document to do.
    assert page.evaluate("document.activeElement.id") == "btn-next"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/assignments/{second}")


def test_skip_is_stored_on_the_server_and_listed_as_skipped(page, live_server, study,
                                                             database):
    first, second = study["assignments"]["ana"][:2]
    prepare(database, first)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    page.click("#btn-skip")
    page.locator("#status.skipped").wait_for()
    with database.session() as session:
        assert session.get(Assignment, first).status == "skipped"
    assert page.locator("#btn-skip").is_hidden()
    assert page.locator("#btn-done").inner_text() == "Reopen"
    assert page.locator("#btn-next").get_attribute("href") == f"/assignments/{second}"
    page.goto(f"{live_server}/my?show=skipped")
    rows = page.locator("#my-documents tbody tr")
    assert rows.count() == 1 and "skipped" in rows.first.inner_text()


def test_a_stale_skip_is_refused_and_changes_nothing(page, live_server, study, database):
    first = study["assignments"]["ana"][0]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, first)
    with database.session() as session:  # another tab saved something meanwhile
        session.get(Assignment, first).version += 1
        session.commit()
    page.click("#btn-skip")
    page.locator("#banner.conflict").wait_for()
    with database.session() as session:
        assert session.get(Assignment, first).status != "skipped"


def test_after_adjudicating_the_next_in_queue_is_offered(app, page, live_server, database,
                                                         qa_study):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    pid, docs = qa_study["project_id"], qa_study["docs"]
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{pid}/adjudicate/{docs['q1']}")
    page.locator("#adj-units [data-unit]").first.wait_for()
    assert page.locator("#adj-next").is_hidden()
    page.click("#adj-auto")
    page.locator("#adj-said").wait_for()  # the automatic rules have been applied
    for card in ("#adj-units", "#adj-unmatched"):
        for _ in range(page.locator(f"{card} .unit.undecided").count()):
            undecided = page.locator(f"{card} .unit.undecided")
            left = undecided.count() - 1
            undecided.locator("button.reject").first.click()
            expect(undecided).to_have_count(left)  # decided before the next click
    wait_for(page, "!document.getElementById('adj-complete').disabled")
    page.click("#adj-complete")
    link = page.locator("#adj-next")
    link.wait_for()
    assert page.evaluate("document.activeElement.id") == "adj-next"
    with page.expect_navigation():
        link.click()
    assert page.url.endswith(f"/projects/{pid}/adjudicate/{docs['q2']}")


# ---------------------------------------------------------------- item 8: adjudication


def open_adjudication(app, page, live_server, qa_study, document="q1"):
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{qa_study['project_id']}/adjudicate/"
              f"{qa_study['docs'][document]}")
    page.locator("#adj-units [data-unit]").first.wait_for()


def test_adjudication_texts_side_by_side_and_a_units_target_span_on_screen(
        app, page, live_server, qa_study):
    open_adjudication(app, page, live_server, qa_study)
    original = page.locator("#text-source").bounding_box()
    simplification = page.locator("#text-target").bounding_box()
    assert abs(original["y"] - simplification["y"]) < 2, (original, simplification)
    assert simplification["x"] >= original["x"] + original["width"]
    # Ben's unmatched edit has a span in the simplification ("fair"): with its card focused
    # far down the page, the span is on screen, emphasised.
    card = page.locator("#adj-unmatched .unit").first
    card.focus()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    span = page.locator("#text-target .seg.focus").first
    box = span.bounding_box()
    assert span.inner_text() == "fair"
    assert 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"]


def test_compare_all_uses_the_width_and_keeps_the_decision_column_whole(
        app, page, live_server, qa_study):
    open_adjudication(app, page, live_server, qa_study)
    page.locator("#adj-units .unit button.reject").first.click()
    page.locator("#adj-units .unit.decided").wait_for()
    page.click("#adj-compare-toggle")
    table = page.locator("#adj-compare-table")
    body = page.locator(".adj-body").bounding_box()
    assert table.bounding_box()["width"] >= 0.9 * body["width"]
    decision = table.locator(".compare-decision").first
    assert decision.inner_text() == "reject by lee"
    assert decision.evaluate("e => e.scrollWidth <= e.clientWidth")
    # one line: the words are not broken into a narrow column
    lines = decision.evaluate("""e => { const r = document.createRange();
        r.selectNodeContents(e);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }""")
    assert lines == 1


def test_the_merge_form_chooses_the_edit_type_with_styled_boxes(app, page, live_server,
                                                                 qa_study, database):
    open_adjudication(app, page, live_server, qa_study)
    unit = page.locator("#adj-units .unit").first
    unit.locator(".edit[data-annotator=ana] button.merge").click()
    form = unit.locator(".merge-form")
    choice = form.locator("select[name=edit_type]")
    assert {"Deletion", "Oversimplification"} <= set(choice.locator("option").all_inner_texts())
    assert choice.input_value() == "deletion"
    question = form.locator("textarea[name=question]")
    look = question.evaluate("""e => { const s = getComputedStyle(e);
        return {radius: parseFloat(s.borderTopLeftRadius), width: e.getBoundingClientRect().width,
                font: s.fontFamily, page: getComputedStyle(document.body).fontFamily}; }""")
    assert look["radius"] > 0 and look["font"] == look["page"], look
    assert look["width"] >= 0.9 * form.bounding_box()["width"], look
    choice.select_option("oversimplification")
    # The question typed so far stays (both types ask it); the preview names the new type.
    assert question.input_value() == "How much of the drug did patients get?"
    assert "Oversimplification" in form.locator(".merge-preview h4").inner_text()
    drag_select(page, "target", *span(QA_TARGET, "got a drug every day"))  # its other side
    form.locator(".merge-span[data-side=target]").wait_for()
    form.locator("button.save-merge").click()
    page.locator("#adj-units .unit.decided").wait_for()
    with database.session() as session:
        (gold,) = session.scalars(select(GoldEdit)).all()
        assert gold.edit_type == "oversimplification"


def test_history_shows_usernames_and_readable_times(app, page, live_server, qa_study):
    open_adjudication(app, page, live_server, qa_study)
    page.locator("#adj-units .unit button.reject").first.click()
    page.locator("#adj-units .unit.decided").wait_for()
    page.locator("#adj-units .unit.decided button.undo").click()
    page.locator("#adj-history li.retracted").wait_for()
    lines = page.locator("#adj-history li").all_inner_texts()
    text = "\n".join(lines)
    assert not re.search(r"#\d", text), text                     # no database ids
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:", text), text   # no raw ISO timestamps
    assert not re.search(r"edits:\d", text), text
    assert "reject · unit 1 · lee" in lines[1], lines
    assert "(undone by lee)" in lines[1], lines
    year = str(datetime.now(timezone.utc).year)
    assert all(year in line for line in lines), lines


# ---------------------------------------------------------------- item 4: the new edit's form


def test_a_new_edit_from_a_selection_brings_its_form_into_view_focused(page, live_server,
                                                                       study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    page.set_viewport_size({"width": 1440, "height": 560})
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    drag_select(page, "source", *span(SOURCE, "124 adults"))
    page.locator("#popover [data-type=deletion]").click()
    form = page.locator("#edit-form")
    form.wait_for()
    # The first field has the focus: the annotator types the question at once.
    assert page.evaluate("document.activeElement.dataset.field") == "question"
    assert page.evaluate("document.getElementById('edit-form').contains(document.activeElement)")
    panel = page.locator("#tab-annotate").bounding_box()
    top = form.bounding_box()["y"]
    assert panel["y"] - 1 <= top < panel["y"] + panel["height"] / 2, (panel, top)
    page.keyboard.type("How many adults took part?")
    assert page.locator("#edit-form textarea[data-field=question]").input_value() == \
        "How many adults took part?"


# ---------------------------------------------------------------- item 9: question guidance


def test_guidance_leaves_ordinary_words_and_words_given_later_alone(page, live_server, study):
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignments"]["ana"][0])
    result = page.evaluate("""async () => {
        const g = await import('/static/js/guidance.js');
        const target = 'Kids got a new medicine. It helped them breathe. The inhaler was used at all ages.';
        const type = {sides: ['source', 'target']};
        const rationale = [{side: 'target', start: 0, end: 24}];  // "Kids got a new medicine."
        const edit = (q) => ({fields: {question: q, answer: ''}, spans: rationale});
        return {
          ordinary: g.ungivenWords('Having which ages was the medicine useful for?', 'Kids got a medicine.'),
          later: g.guidance(edit('How often was the inhaler used?'), type, target).question,
          concept: g.ungivenWords('What was the infusion rate of the bronchodilator?', target),
        };
    }""")
    assert result["ordinary"] == [], result
    assert result["later"] == [], result  # "inhaler" comes after the rationale
    assert result["concept"] == ["infusion", "bronchodilator"], result


def test_a_guidance_warning_can_be_dismissed(page, live_server, study, database):
    open_with_a_new_deletion(page, live_server, study, database)
    question = page.locator("#edit-form textarea[data-field=question]")
    question.fill("Was the trial blinded")
    yes_no = page.locator("#warn-question li", has_text="yes/no")
    yes_no.wait_for()
    yes_no.locator("button.dismiss-warning").click()
    assert yes_no.count() == 0
    question.press("End")
    page.keyboard.type("?")  # typing on: the dismissed warning stays away
    assert question.input_value() == "Was the trial blinded?"
    assert yes_no.count() == 0
    # the other warning ("blinded" is not in the simplification) is still there
    assert "blinded" in page.locator("#warn-question").inner_text()


# ---------------------------------------------------------------- item 10: PLABA


def open_plaba(page, live_server, database):
    with database.session() as session:
        create_demo(session, with_work=False)  # evaluation projects only: no release to cut
        project = session.scalar(select(Project).where(Project.name == "demo-plaba"))
        aid = session.scalar(select(Assignment.id).join(Document).join(User).where(
            Document.project_id == project.id, User.username == "ana").order_by(Assignment.id))
    browser_login(page, live_server, "ana", DEMO_PASSWORDS["ana"])
    open_page(page, live_server, aid)


def test_a_schema_without_edit_types_offers_no_edit_tools(page, live_server, database):
    open_plaba(page, live_server, database)
    sidebar = page.locator(".sidebar").inner_text()
    assert "Select text" not in sidebar and "accept a suggestion" not in sidebar
    with handled_by_page(page, "selection"):
        drag_select(page, "source", 0, 20)
    assert page.locator("#notice").is_hidden()
    assert page.locator("#popover").is_hidden()


def test_rating_buttons_line_up(page, live_server, database):
    open_plaba(page, live_server, database)
    row = page.locator(".rating-row").first
    lefts = row.locator(".rating-field .seg-control").evaluate_all(
        "groups => groups.map(g => Math.round(g.getBoundingClientRect().left))")
    assert len(lefts) == 4 and len(set(lefts)) == 1, lefts


# ---------------------------------------------------------------- item 6: say what happened


def test_apply_automatic_rules_says_what_it_did(app, page, live_server, qa_study):
    open_adjudication(app, page, live_server, qa_study, document="q2")  # identical edits
    said = page.locator("#adj-said")
    assert said.is_hidden()
    page.click("#adj-auto")
    said.wait_for()
    assert said.inner_text() == "Automatic rules applied: 1 unit accepted."
    page.click("#adj-auto")
    page.locator("#adj-said", has_text="nothing to apply").wait_for()


def test_deactivating_a_user_asks_first(page, live_server, study, database):
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/users/")
    questions = []

    def answer(dialog, accept):
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.once("dialog", lambda d: answer(d, False))
    with handled_by_page(page, "confirm"):
        page.locator("[data-user=ben] button", has_text="Deactivate").click()
    assert questions and questions[0].startswith("Deactivate ben?")
    with database.session() as session:
        assert session.scalar(select(User.active).where(User.username == "ben")) is True
    page.once("dialog", lambda d: answer(d, True))
    with page.expect_navigation():
        page.locator("[data-user=ben] button", has_text="Deactivate").click()
    with database.session() as session:
        assert session.scalar(select(User.active).where(User.username == "ben")) is False
    assert len(posts) == 1 and posts[0].endswith("/active")  # the dismissed click sent none


def test_the_password_minimum_is_the_servers_with_a_clear_4xx(page, live_server, study,
                                                              database):
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/users/")
    with database.session() as session:
        before = session.scalar(select(User.password_hash).where(User.username == "ana"))
    card = page.locator("[data-user=ana]")
    # Past the browser's own check (an old browser, a script): the server refuses.
    card.locator("input[name=password]").evaluate("e => e.removeAttribute('minlength')")
    card.locator("input[name=password]").fill("short")
    with page.expect_response(lambda r: r.url.endswith("/password")) as answer:
        card.locator("button", has_text="Reset password").click()
    assert answer.value.status == 422
    page.locator(".flash.error").wait_for()
    assert "password: at least 8 characters" in page.locator(".flash.error").inner_text()
    with database.session() as session:
        assert session.scalar(select(User.password_hash).where(User.username == "ana")) == before


# ---------------------------------------------------------------- item 11: 200 % zoom

ZOOMED = {"width": 700, "height": 450}  # a 1400 x 900 window at 200 %


def test_the_data_manager_at_200_percent_neither_scrolls_sideways_nor_overlaps(
        page, live_server, study):
    page.set_viewport_size(ZOOMED)
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{study['project_id']}/documents")
    assert page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    apply = page.locator("#bulk-form button[type=submit]").bounding_box()
    count = page.locator("#dm-count").bounding_box()
    assert apply["y"] + apply["height"] <= count["y"], (apply, count)


def test_the_sync_scroll_toggle_stays_at_200_percent(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    page.set_viewport_size(ZOOMED)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    toggle = page.locator("#sync-scroll")
    assert toggle.is_visible()
    box = toggle.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= ZOOMED["width"]
    toggle.click()
    assert page.evaluate("window.annotator.syncEnabled()") is False


LOOK_OF = """sel => { const e = document.querySelector(sel); const s = getComputedStyle(e);
    return [s.fontFamily, s.fontSize, s.textTransform, s.backgroundColor, s.color,
            s.borderTopColor]; }"""


def test_evaluation_pages_use_the_annotation_pages_look(page, live_server, database):
    open_plaba(page, live_server, database)  # an annotation page, demo data
    parts = ("h1", ".panel-head h2", "#btn-help", "#btn-done", ".tab[aria-selected=true]",
             "#save-state")
    annotation = {sel: page.evaluate(LOOK_OF, sel) for sel in parts}
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "demo-qa-quality"))
        aid = session.scalar(select(Assignment.id).join(Document).join(User).where(
            Document.project_id == project.id, User.username == "ana").order_by(Assignment.id))
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#eval .criterion").first.wait_for()
    evaluation = {sel: page.evaluate(LOOK_OF, sel) for sel in parts}
    assert evaluation == annotation
    # The same frame: the texts start at the window's edge, as on the annotation page.
    assert page.locator(".text-panel[data-side=source]").bounding_box()["x"] < 40
