"""The annotation page's interaction details in Debian's Chromium (issue 17, annotator side):
double-click guards, the keyboard help table, undo/redo through autosave, insertion
suggestions, PLABA without edits, per-annotator edit numbers, long answers, narrow windows,
non-colour cues and accessible names, labels, unreviewed suggestions, and a whole
annotation walked with the keyboard only."""

from __future__ import annotations

from dataclasses import replace

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.core.limits import current_limits, use_limits
from annotator.models import Assignment, Suggestion, SuggestionAction
from tests.browser_helpers import (
    SOURCE,
    TARGET,
    add_edit,
    api_state,
    drag_select,
    eventually,
    handled_by_page,
    open_page,
    prepare,
    span,
    standard_suggestions,
    wait_for,
    wait_settled,
    watch_errors,
)
from tests.conftest import ARTIFACTS, browser_login

pytestmark = pytest.mark.browser


def server_edits(database, assignment_id):
    with database.session() as session:
        a = session.get(Assignment, assignment_id)
        return [
            {
                "id": e.id,
                "type": e.edit_type,
                "fields": dict(e.fields),
                "version": e.version,
                "spans": sorted((s.side, s.start, s.end) for s in e.spans),
            }
            for e in sorted(a.edits, key=lambda e: e.id)
        ]


def server_actions(database, suggestion_ids):
    with database.session() as session:
        rows = session.scalars(
            select(SuggestionAction).where(SuggestionAction.suggestion_id.in_(suggestion_ids))
        ).all()
        return {r.suggestion_id: r.action for r in rows}


def test_double_click_on_a_menu_choice_adds_no_stray_span(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    drag_select(page, "source", *span(SOURCE, "124 adults"))
    choice = page.locator("#popover [data-type=deletion]")
    box = choice.bounding_box()
    # A point of the menu choice with a letter of the text underneath it: where the second
    # click of the double-click lands once the first has closed the menu.
    x, y = page.evaluate(
        """([x0, y0, w, h]) => {
        const pop = document.getElementById('popover');
        pop.style.visibility = 'hidden';
        try {
            for (let dy = 4; dy < h - 3; dy += 3) for (let dx = 4; dx < w - 3; dx += 3) {
                const r = document.caretRangeFromPoint(x0 + dx, y0 + dy);
                const node = r && r.startContainer;
                if (node && node.nodeType === 3 && node.parentElement.closest('.text')
                    && /\\p{L}/u.test(node.data[r.startOffset] || '')) return [x0 + dx, y0 + dy];
            }
            return null;
        } finally { pop.style.visibility = ''; }
    }""",
        [box["x"], box["y"], box["width"], box["height"]],
    )
    with handled_by_page(page, "selection", count=2):  # both releases' selection checks
        page.mouse.dblclick(x, y)
    wait_settled(page)
    assert page.locator("#edit-form .chip").count() == 1
    assert page.locator("#popover").is_hidden()  # nor an offer to add the word
    assert [e["spans"] for e in server_edits(database, aid)] == [
        [("source", *span(SOURCE, "124 adults"))]
    ]



def test_a_press_before_the_first_release_is_handled_adds_no_stray_span(page, live_server,
                                                                         study, database):
    """The order a busy browser may deliver a double-click on a menu choice in: input runs
    before timers, so the second press (selecting the word under the closed menu) can come
    before the first release's deferred selection check. That check must not add the word."""
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    drag_select(page, "source", *span(SOURCE, "124 adults"))
    page.locator("#popover [data-type=deletion]").wait_for()
    with handled_by_page(page, "selection"):  # the first release's deferred check has run
        page.evaluate("""async ([start, end]) => {
            const m = await import('/static/js/offsets.js');
            const choice = document.querySelector('#popover [data-type=deletion]');
            const press = (target, type, detail) => target.dispatchEvent(
                new MouseEvent(type, {bubbles: true, cancelable: true, button: 0, detail}));
            press(choice, 'mousedown', 1);
            press(choice, 'mouseup', 1);       // its selection check is deferred to a timer
            choice.click();                    // the edit is made and the selection cleared
            const text = document.querySelector('.text[data-side=source]');
            const word = m.offsetsToRange(text, start, end);
            const sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(word);                // the second press selects a word ...
            press(word.startContainer.parentElement, 'mousedown', 2);   // ... before the timer
        }""", list(span(SOURCE, "placebo-controlled")))
    wait_settled(page)
    assert page.locator("#edit-form .chip").count() == 1
    assert page.locator("#popover").is_hidden()  # nor an offer to add the word
    assert [e["spans"] for e in server_edits(database, aid)] == [
        [("source", *span(SOURCE, "124 adults"))]
    ]


def test_keyboard_help_lists_keys_as_keys(page, live_server, study):
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignments"]["ana"][0])
    page.keyboard.press("?")
    help_text = page.locator("#help").inner_text()
    assert "[object" not in help_text and ",\n" not in help_text
    row = page.locator("#help tr", has_text="Redo")
    assert row.locator("kbd").all_inner_texts() == ["Ctrl", "Shift", "Z"]
    assert (
        page.locator("#help tr", has_text="Next suggestion").locator("td").first.inner_text() == "j"
    )


def test_undo_and_redo_spans_fields_delete_and_suggestions(page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    page.clock.install()  # the page's own clock, moved on below instead of waited out
    open_page(page, live_server, aid)
    kb = page.keyboard
    first, second = span(SOURCE, "124 adults"), span(SOURCE, "ketamine", 0)

    # span: two spans, undo the second, redo it; each step is a versioned save
    drag_select(page, "source", *first)
    page.click("#popover [data-type=deletion]")
    drag_select(page, "source", *second)
    page.click("#popover .pop-add")  # a selection joins the open edit only when asked to
    wait_settled(page)
    [edit] = server_edits(database, aid)
    assert len(edit["spans"]) == 2
    version = edit["version"]
    page.locator("#edit-form .form-head h3").click()
    kb.press("Control+z")
    wait_settled(page)
    [edit] = server_edits(database, aid)
    assert edit["spans"] == [("source", *first)] and edit["version"] == version + 1
    assert page.locator("#edit-form .chip").count() == 1
    kb.press("Control+Shift+z")
    wait_settled(page)
    [edit] = server_edits(database, aid)
    assert len(edit["spans"]) == 2 and edit["version"] == version + 2

    # field: typed text is one step, undone outside the field
    page.fill("#edit-form [data-field=question]", "How many adults took part?")
    page.locator("#edit-form [data-field=question]").blur()
    wait_settled(page)
    assert server_edits(database, aid)[0]["fields"] == {"question": "How many adults took part?"}
    page.locator("#edit-form .form-head h3").click()
    kb.press("Control+z")
    wait_settled(page)
    assert server_edits(database, aid)[0]["fields"] == {}
    assert page.locator("#edit-form [data-field=question]").input_value() == ""
    kb.press("Control+Shift+z")
    wait_settled(page)
    assert server_edits(database, aid)[0]["fields"] == {"question": "How many adults took part?"}

    # delete: a double-click on "Delete edit" does not confirm; two clicks do; undo restores
    delete = page.locator("#edit-form button", has_text="Delete edit")
    delete.dblclick()  # returns once the page has handled both clicks
    expect(page.locator("#edit-form button", has_text="Click again to delete")).to_have_count(1)
    wait_settled(page)
    assert len(server_edits(database, aid)) == 1
    assert page.evaluate("window.annotator.state.edits.length") == 1
    page.clock.run_for(4200)  # the armed button resets after 4 s
    page.locator("#edit-form button", has_text="Delete edit").click()
    page.locator("#edit-form button", has_text="Click again to delete").click()
    wait_for(page, "window.annotator.state.edits.length === 0")
    assert server_edits(database, aid) == []
    kb.press("Control+z")
    wait_settled(page)
    [restored] = server_edits(database, aid)
    assert restored["spans"] == [("source", *first), ("source", *second)]
    assert restored["fields"] == {"question": "How many adults took part?"}

    # accept: undo removes the pre-filled edit and withdraws the action; redo brings both back
    kb.press("Escape")
    kb.press("Escape")
    kb.press("j")
    kb.press("a")
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    wait_settled(page)
    assert eventually(lambda: server_actions(database, ids), {ids[0]: "accepted"}) == {
        ids[0]: "accepted"}
    assert len(server_edits(database, aid)) == 2
    kb.press("Escape")
    kb.press("Control+z")
    wait_settled(page)
    wait_for(page, "window.annotator.state.edits.length === 1")
    assert eventually(lambda: server_actions(database, ids), {}) == {}
    assert len(server_edits(database, aid)) == 1
    kb.press("Control+Shift+z")
    wait_settled(page)
    assert eventually(lambda: server_actions(database, ids), {ids[0]: "accepted"}) == {
        ids[0]: "accepted"}
    accepted = [
        e
        for e in server_edits(database, aid)
        if e["spans"] == [("source", *span(SOURCE, "double-blind, placebo-controlled"))]
    ]
    assert len(accepted) == 1
    with database.session() as session:
        record = session.scalar(
            select(SuggestionAction).where(SuggestionAction.suggestion_id == ids[0])
        )
        assert (record.action, record.edit_id) == ("accepted", accepted[0]["id"])

    # dismiss: undone, the suggestion is open again
    kb.press("Escape")
    kb.press("Escape")
    kb.press("j")
    kb.press("x")
    dismissed = {ids[0]: "accepted", ids[1]: "dismissed"}
    assert eventually(lambda: server_actions(database, ids), dismissed) == dismissed
    kb.press("Control+z")
    reopened = {ids[0]: "accepted"}
    assert eventually(lambda: server_actions(database, ids), reopened) == reopened
    assert "of 2" in page.locator("#suggestion-card").inner_text()  # open again: 2 to review
    assert errors == []


def test_insertion_suggestions_are_marked_and_tooltips_close(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    insertion = {
        "kind": "insertion",
        "target_spans": [list(span(TARGET, "got the drug ketamine"))],
        "explanation": "Words added in the middle of an aligned sentence.",
        "score": 0.2,
    }
    prepare(database, aid, suggestions=standard_suggestions() + [insertion])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.locator("input[data-kind=insertion]").check()
    seg = page.locator(".seg.sg-insertion").first
    style = seg.evaluate(
        "e => { const s = getComputedStyle(e); return [s.backgroundColor, s.textDecorationLine]; }"
    )
    assert style[0] not in ("rgba(0, 0, 0, 0)", "transparent") and "underline" in style[1]
    dot = page.locator("label.sg-insertion .dot").evaluate("e => getComputedStyle(e).color")
    assert dot != page.locator("label.sg-insertion").evaluate("e => getComputedStyle(e).color")
    # j stops on it like on any shown kind, and its card names the kind
    for _ in range(4):
        page.keyboard.press("j")
        if "INSERTION" in page.locator("#suggestion-card").inner_text().upper():
            break
    assert page.locator("#suggestion-card .kind-badge").text_content() == "Insertion"
    # hover shows a tooltip; j and accept close it (it would cover the form)
    page.locator(".seg.sg-deletion").first.hover()
    assert page.locator("#tooltip").is_visible()
    page.keyboard.press("j")
    assert page.locator("#tooltip").is_hidden()
    page.mouse.move(5, 5)
    page.locator(".seg.sg-deletion").first.hover()
    assert page.locator("#tooltip").is_visible()
    page.keyboard.press("a")
    assert page.locator("#tooltip").is_hidden()


def test_plaba_shows_no_suggestions_it_cannot_accept_and_no_new_edit_heading(
    page, live_server, app, database
):
    from annotator.models import Document, Project, User
    from annotator.operations.demo import DEMO_USERS, create_demo

    with database.session() as session:
        create_demo(session, with_work=False)  # evaluation projects only: no release to cut
        project = session.scalar(select(Project).where(Project.name == "demo-plaba"))
        a = session.scalar(
            select(Assignment)
            .join(Document)
            .join(User)
            .where(Document.project_id == project.id, User.username == "ana")
            .order_by(Assignment.id)
        )
        doc = a.document
        session.add(
            Suggestion(
                document_id=doc.id,
                kind="deletion",
                method="t",
                score=0.9,
                explanation="no edit type takes this",
                source_spans=[[0, 5]],
                target_spans=[],
            )
        )
        session.commit()
        aid = a.id
    password = {n: p for n, _, p in DEMO_USERS}["ana"]
    browser_login(page, live_server, "ana", password)
    open_page(page, live_server, aid)
    assert page.locator(".seg.sugg").count() == 0
    assert page.locator("#kind-toggles").inner_text().strip() == ""
    assert page.locator("#new-edit").is_hidden()
    assert "NEW EDIT" not in page.locator(".sidebar").inner_text().upper()
    page.keyboard.press("j")
    page.keyboard.press("a")
    assert "no edit type" not in page.locator("body").inner_text()


def test_edit_numbers_count_this_annotators_edits_only(page, live_server, study, database):
    ana, ben = study["assignments"]["ana"][0], study["assignments"]["ben"][0]
    prepare(database, ana)
    for phrase in ("double-blind", "124 adults", "ketamine"):
        add_edit(
            database, ana, spans=[("source", *span(SOURCE, phrase))], fields={"question": "Q?"}
        )
    browser_login(page, live_server, "ben")
    open_page(page, live_server, ben)
    drag_select(page, "source", *span(SOURCE, "Opioid use"))
    page.click("#popover [data-type=deletion]")
    wait_settled(page)
    assert page.locator("#edit-form .form-head h3").inner_text() == "Deletion #1"
    assert "Deletion #1" in page.locator("#edit-list .edit-name").first.inner_text()
    wait_for(page, "!!document.querySelector('.seg[aria-label^=\"Deletion #1: Opioid\"]')")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#missing li")
    assert "Deletion #1: Question is required" in page.locator("#missing").inner_text()
    assert "#4" not in page.locator("#missing").inner_text()


def test_a_long_answer_saves_and_beyond_the_limit_says_why(
    page, live_server, study, database
):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    edit_id = add_edit(database, aid, spans=[("source", *span(SOURCE, "double-blind"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.click(f"#edit-list [data-key=e{edit_id}]")
    answer = ("The trial hid which treatment each patient got. " * 500)[:24_000]
    page.fill("#edit-form [data-field=answer]", answer)
    page.locator("#edit-form [data-field=answer]").blur()
    wait_settled(page)
    assert server_edits(database, aid)[0]["fields"]["answer"] == answer
    # The live server runs in this process: the limits in effect are its limits too.
    use_limits(replace(current_limits(), max_text_chars=30_000))
    page.fill("#edit-form [data-field=answer]", "x" * 30_001)
    page.locator("#edit-form [data-field=answer]").blur()
    page.wait_for_selector("#save-state[data-state=error]")
    problem = page.locator("#edit-form .problems").inner_text()
    assert "fields.answer: 30,001 characters; the limit is 30,000" in problem
    assert server_edits(database, aid)[0]["fields"]["answer"] == answer


@pytest.mark.parametrize("width,height", [(1024, 768), (720, 450)])
def test_narrow_window_keeps_the_sidebar_beside_the_texts(
    chromium, live_server, study, database, width, height
):
    """1024 px wide, and 200 % zoom of a 1440 x 900 window (720 x 450 CSS pixels)."""
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        browser_login(page, live_server, "ana")
        open_page(page, live_server, aid)
        side = page.locator(".sidebar").bounding_box()
        for panel in ("source", "target"):
            text = page.locator(f".text-panel[data-side={panel}]").bounding_box()
            assert side["x"] >= text["x"] + text["width"] - 1, (panel, side, text)
            assert text["width"] >= 250
        assert side["y"] < height / 2 and side["x"] + side["width"] <= width + 1
        assert page.locator("#new-edit").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"annotate-{width}px.png"))
    finally:
        context.close()


def test_kinds_and_types_differ_without_colour_and_have_names(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    add_edit(
        database, aid, "deletion", {"question": "Q?"}, [("source", *span(SOURCE, "124 adults"))]
    )
    add_edit(
        database,
        aid,
        "oversimplification",
        {"question": "Q?"},
        [("source", *span(SOURCE, "Pain was measured")), ("target", *span(TARGET, "Their pain"))],
    )
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    style = "e => getComputedStyle(e).textDecorationStyle"
    lines = {
        kind: page.locator(f".seg.sg-{kind}").first.evaluate(style)
        for kind in ("deletion", "oversimplification", "leaked_instruction")
    }
    assert len(set(lines.values())) == 3, lines
    bars = {
        t: page.locator(".seg.has-edit", has_text=phrase).first.evaluate(
            "e => e.style.backgroundImage"
        )
        for t, phrase in (("deletion", "124"), ("oversimplification", "Pain was"))
    }
    # Two patterns, both of solid lines: dashes belong to pending suggestions (issue 43).
    assert bars["deletion"] != bars["oversimplification"]
    assert all(b.startswith("linear-gradient") for b in bars.values()), bars
    marks = page.get_by_role(
        "group", name="Deletion suggestion: double-blind, placebo-controlled", exact=True
    )
    assert marks.count() == 1
    assert (
        page.get_by_role("group", name="Oversimplification #2: Their pain", exact=True).count() == 1
    )


def test_suggested_category_shows_its_label(page, live_server, database, users, tmp_path):
    from annotator.annotate.assignment import assign_documents
    from annotator.ingest import import_file
    from annotator.models import User
    from annotator.study.projects import create_project
    from tests.browser_helpers import OVERGEN_LEAK as LEAK
    from tests.browser_helpers import OVERGEN_SOURCE as OG_SOURCE
    from tests.browser_helpers import OVERGEN_TARGET as OG_TARGET
    from tests.helpers import write_jsonl

    with database.session() as session:
        project = create_project(
            session, "og", "overgeneration", leads=[session.get(User, users["lee"])]
        )
        import_file(
            session,
            project,
            write_jsonl(
                tmp_path / "og.jsonl",
                [{"id": "og-1", "sentences": [{"source": OG_SOURCE, "target": OG_TARGET}]}],
            ),
        )
        assign_documents(session, project, ["ana", "ben"])
        a = session.query(Assignment).filter_by(user_id=users["ana"]).one()
        start = OG_TARGET.index(LEAK)
        session.add(
            Suggestion(
                document_id=a.document_id,
                kind="leaked_instruction",
                method="lexicon",
                score=0.95,
                explanation="pattern",
                category="leaked_instruction",
                source_spans=[],
                target_spans=[[start, start + len(LEAK)]],
            )
        )
        session.commit()
        aid = a.id
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("j")
    card = page.locator("#suggestion-card").inner_text()
    assert "Leaked model instruction" in card and "leaked_instruction" not in card
    page.keyboard.press("a")
    wait_settled(page)
    item = page.locator("#edit-list .edit-item").first.inner_text()
    assert "Leaked model instruction" in item and "leaked_instruction" not in item


def test_mark_done_mentions_unreviewed_suggestions(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#missing:not([hidden])")
    assert "3 suggestions not reviewed yet" in page.locator("#missing").inner_text()
    assert page.locator("#status").inner_text() != "done"
    page.locator("#missing button", has_text="Mark done anyway").click()
    page.wait_for_selector("#status.done")
    assert "3 suggestions not reviewed" in page.locator("#notice").inner_text()


def test_whole_annotation_with_the_keyboard_only(page, live_server, study, database):
    """From the document list to "done" without the mouse: open the document, select words
    and make an edit of them, fill its fields, accept a suggestion, dismiss the others,
    undo a slip, mark done."""
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    kb = page.keyboard
    page.goto(f"{live_server}/my")
    href = f"/assignments/{aid}"
    for _ in range(40):
        kb.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('href')") == href:
            break
    kb.press("Enter")
    page.wait_for_selector("#annotate[data-ready='1']")

    for _ in range(30):  # Tab to the original text
        kb.press("Tab")
        if page.evaluate("document.activeElement.matches('.scroller[data-side=source]')"):
            break
    kb.press("ArrowRight")  # "BACKGROUND"
    kb.press("ArrowRight")  # "Opioid"
    kb.press("Shift+ArrowRight")  # "Opioid use"
    assert page.evaluate("getSelection().toString()") == "Opioid use"
    kb.press("Enter")  # the new-edit menu, focus on its first choice
    wait_for(page, "document.activeElement.classList.contains('pop-choice')")
    kb.press("d")  # deletion
    page.wait_for_selector("#edit-form .span-row[data-side=source] .chip")
    kb.press("q")
    kb.type("How many patients still used opioids?")
    kb.press("Escape")
    kb.press("w")
    kb.type("Most of them; the abstract gives no number.")
    kb.press("Escape")
    kb.press("Escape")  # close the edit

    kb.press("j")
    kb.press("a")  # accept the deletion suggestion
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    kb.type("How was the trial kept blind?")
    kb.press("Escape")
    kb.press("w")
    kb.type("Neither patients nor doctors knew who got the drug.")
    kb.press("Escape")
    kb.press("Escape")
    kb.press("j")
    kb.press("x")  # dismiss the oversimplification ...
    kb.press("x")  # ... and the leaked instruction
    with handled_by_page(page, "key"):  # the undo's own save has come back
        kb.press("Control+z")  # a slip: undo the last dismissal
    expect(page.locator("#suggestion-card")).to_contain_text("1 suggestion to review")
    kb.press("j")
    kb.press("x")
    kb.press("Control+Enter")
    # Mark done lists what still warns (the questions' guidance warnings) at once; a
    # second Mark done finishes (issue 43).
    page.wait_for_selector("#missing:not([hidden])")
    assert "on your answers" in page.locator("#missing .missing-head").inner_text()
    kb.press("Control+Enter")
    page.wait_for_selector("#status.done")

    data = api_state(page, live_server, aid)
    assert data["assignment"]["status"] == "done"
    by_origin = {e["suggestion_id"]: e for e in data["edits"]}
    manual = by_origin[None]
    assert manual["spans"] == [
        {
            "side": "source",
            "start": SOURCE.index("Opioid use"),
            "end": SOURCE.index("Opioid use") + len("Opioid use"),
        }
    ]
    assert manual["fields"]["answer"] == "Most of them; the abstract gives no number."
    assert by_origin[ids[0]]["fields"]["question"] == "How was the trial kept blind?"
    assert {s["id"]: s["action"] for s in data["suggestions"]} == {
        ids[0]: "accepted",
        ids[1]: "dismissed",
        ids[2]: "dismissed",
    }
    assert errors == []
