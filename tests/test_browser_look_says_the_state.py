"""Issue 43, item 5 in Chromium: the look says the state. A saved edit, a pending
suggestion and the reader's selection differ in colour and in line (computed styles, at
100 % and 200 % zoom, with contrast and a deuteranopia simulation of the CSS values); at
200 % zoom both texts keep at least a third of the window; the suggestion figures of the
annotation page match the database, also once the document is done or skipped; headings
of both texts are treated alike; destructive buttons look destructive and disabled ones
say why; times show in the reader's time zone."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from sqlalchemy import select

from annotator.models import Assignment, Document, Job, Release, Suggestion, SuggestionAction
from tests.adjudication_fixtures import release
from tests.api_helpers import Api
from tests.browser_helpers import (
    SOURCE,
    TARGET,
    add_edit,
    drag_select,
    eventually,
    open_page,
    prepare,
    span,
    wait_for,
    watch_errors,
)
from tests.colour_checks import contrast, deuteranope_distance, parse
from tests.conftest import browser_login

pytestmark = pytest.mark.browser
SCHEMAS = Path(__file__).resolve().parents[1] / "annotator" / "schemas"
# 100 % and 200 % zoom of a 1440 x 900 window: at 200 % a CSS pixel is two device pixels
# and the page has half the CSS width and height.
ZOOMS = {"100%": ({"width": 1440, "height": 900}, 1), "200%": ({"width": 720, "height": 450}, 2)}


def _page(chromium, zoom: str, **options):
    viewport, scale = ZOOMS[zoom]
    context = chromium.new_context(viewport=viewport, device_scale_factor=scale, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


def _built_in_edit_colours() -> set[str]:
    colours = set()
    for path in SCHEMAS.glob("*.yaml"):
        for edit_type in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get(
                "edit_types") or []:
            if edit_type.get("color"):
                colours.add(edit_type["color"])
    return colours


def _look(page) -> dict:
    """Computed styles of a segment under a pending suggestion only, one under a saved edit
    only, and of the selection, with the page's state colours."""
    return page.evaluate("""() => {
        const segs = [...document.querySelectorAll('.text[data-side=source] .seg')];
        const sugg = segs.find((s) => s.dataset.suggs && !s.dataset.edits);
        const edit = segs.find((s) => s.dataset.edits && !s.dataset.suggs);
        const plain = segs.find((s) => !s.dataset.edits && !s.dataset.suggs && s.textContent.trim());
        const css = getComputedStyle(document.getElementById('annotate'));
        const style = (el, pseudo) => { const c = getComputedStyle(el, pseudo); return {
            outlineStyle: c.outlineStyle, outlineColor: c.outlineColor, outlineWidth: c.outlineWidth,
            decoration: c.textDecorationLine, decorationStyle: c.textDecorationStyle,
            decorationColor: c.textDecorationColor, image: c.backgroundImage,
            background: c.backgroundColor, color: c.color}; };
        return {sugg: style(sugg), edit: style(edit), plain: style(plain),
                selection: style(plain, '::selection'),
                legend: style(document.querySelector('#kind-toggles label.sg-oversimplification .dot')),
                suggLine: css.getPropertyValue('--sugg-line').trim(),
                selectionBg: css.getPropertyValue('--selection-bg').trim()};
    }""")


@pytest.mark.parametrize("zoom", ["100%", "200%"])
def test_a_saved_edit_a_suggestion_and_the_selection_differ_in_colour_and_line(
        chromium, live_server, study, database, zoom):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=[{
        "kind": "oversimplification", "source_spans": [list(span(SOURCE, "Numeric Rating Scale"))],
        "target_spans": [list(span(TARGET, "a survey"))]}])
    # A saved oversimplification edit: the same amber as the suggestion's kind.
    add_edit(database, aid, "oversimplification", {"question": "How was pain measured?"},
             [("source", *span(SOURCE, "double-blind, placebo-controlled"))])
    context, page = _page(chromium, zoom)
    errors = watch_errors(page)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    drag_select(page, "source", *span(SOURCE, "Opioid use"))
    look = _look(page)
    schema_colours = {t["color"] for t in page.request.get(
        f"{live_server}/api/assignments/{aid}").json()["schema"]["edit_types"]}
    context.close()

    sugg, edit, selection = look["sugg"], look["edit"], look["selection"]
    ink = parse(look["suggLine"])
    # Line: the suggestion is boxed with dashes and underlined in its kind's style; the
    # edit has solid bars only (no dashes anywhere: not a repeating gradient, no box).
    assert sugg["outlineStyle"] == "dashed" and sugg["decorationStyle"] == "dashed"
    assert edit["outlineStyle"] == "none" and edit["decoration"] == "none"
    assert "linear-gradient" in edit["image"] and "repeating" not in edit["image"]
    assert selection["outlineStyle"] == "none" and selection["decoration"] == "none"
    # Colour: the suggestion's lines are the state ink, the edit's bar its type's colour.
    assert parse(sugg["outlineColor"]) == parse(sugg["decorationColor"]) == ink
    # The kind toggle's sample ("ab") draws the same underline as the text.
    legend = look["legend"]
    assert (legend["decorationStyle"], parse(legend["decorationColor"])) == ("dashed", ink)
    assert "rgb(240, 173, 78)" in edit["image"]  # the schema's #f0ad4e
    assert parse(selection["background"]) == parse(look["selectionBg"])
    # Colour-blind safe: the suggestion ink against every edit colour (this project's and
    # every built-in schema's): WCAG 3:1 for interface parts, and clearly apart for a
    # deuteranope; the selection fill apart from white and from every edit tint.
    for colour in schema_colours | _built_in_edit_colours():
        rgb = parse(colour)
        assert contrast(ink, rgb) >= 3, colour
        assert deuteranope_distance(ink, rgb) >= 20, colour
        tint = parse(f"rgba({rgb[0]}, {rgb[1]}, {rgb[2]}, 0.12)")
        assert deuteranope_distance(parse(look["selectionBg"]), tint) >= 20, colour
    assert deuteranope_distance(parse(look["selectionBg"]), (255, 255, 255)) >= 20
    assert errors == []


@pytest.mark.parametrize("window", [(1440, 900), (1280, 800), (1920, 1080)])
def test_at_200_percent_each_text_keeps_a_third_of_the_window(chromium, live_server, study,
                                                               window):
    """Today each text showed three lines at 200 % zoom."""
    context = chromium.new_context(viewport={"width": window[0] // 2, "height": window[1] // 2},
                                   device_scale_factor=2)
    page = context.new_page()
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignments"]["ana"][0])
    boxes = page.evaluate("""() => [...document.querySelectorAll('.text-panel .scroller')].map(
        (s) => s.getBoundingClientRect().height).concat([innerHeight])""")
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.annotate .text')).lineHeight)")
    context.close()
    *texts, height = boxes
    assert len(texts) == 2
    for shown in texts:
        assert shown >= height / 3, (window, texts, height)
        assert shown / line >= 4, (window, texts, line)  # more than the three lines of old


def _open_suggestions(database, assignment_id) -> tuple[int, int]:
    """Suggestions of the assignment's document the annotator has not acted on; those of
    them carrying two kinds."""
    with database.session() as session:
        assignment = session.get(Assignment, assignment_id)
        acted = set(session.scalars(select(SuggestionAction.suggestion_id).where(
            SuggestionAction.user_id == assignment.user_id)))
        rows = session.scalars(select(Suggestion).where(
            Suggestion.document_id == assignment.document_id)).all()
        open_ = [s for s in rows if s.id not in acted]
        return len(open_), sum(1 for s in open_ if len(s.kind_scores or {}) > 1)


def test_the_suggestion_figures_match_the_database_also_after_done_and_skip(
        page, live_server, study, database, app):
    errors = watch_errors(page)
    ana, ben = study["assignments"]["ana"][0], study["assignments"]["ben"][0]
    suggestions = [
        {"kind": "deletion", "source_spans": [list(span(SOURCE, "double-blind"))]},
        {"kind": "deletion", "source_spans": [list(span(SOURCE, "124 adults"))]},
        {"kind": "oversimplification", "kind_scores": {"oversimplification": 0.5, "deletion": 0.4},
         "source_spans": [list(span(SOURCE, "Numeric Rating Scale"))],
         "target_spans": [list(span(TARGET, "a survey"))]},
        {"kind": "oversimplification", "kind_scores": {"oversimplification": 0.6, "deletion": 0.3},
         "source_spans": [list(span(SOURCE, "41.3 mg"))]},
    ]
    prepare(database, ana, suggestions=suggestions)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, ana)
    card = page.locator("#suggestion-card p.hint")
    undo = page.locator("#btn-undo")
    assert undo.is_disabled() and undo.get_attribute("title") == \
        "Undo (Ctrl+Z): nothing to undo yet"
    open_, two = _open_suggestions(database, ana)
    assert (open_, two) == (4, 2)
    assert card.get_attribute("data-open") == str(open_)
    assert card.inner_text().startswith(f"{open_} suggestions to review ({two} of them carry "
                                        "two kinds and count under both toggles)")
    toggles = {page.locator(f"#kind-toggles label.sg-{k} .count").inner_text()
               for k in ("deletion",)}
    assert toggles == {"4"}  # 2 deletions + 2 boxes that may be deletions
    assert page.locator("#kind-toggles label.sg-oversimplification .count").inner_text() == "2"
    assert "a suggestion with two kinds counts under both" in page.locator(
        "#kind-toggles label.sg-deletion").get_attribute("title")

    # Dismiss one, then mark the document done: the rest are "not acted on", not "to review".
    page.keyboard.press("j")
    page.keyboard.press("x")
    assert eventually(lambda: _open_suggestions(database, ana)[0], 3) == 3
    wait_for(page, "document.querySelector('#kind-toggles label.sg-deletion .count')"
                   ".textContent === '3'")
    version = Api(app, "ana").get(f"/api/assignments/{ana}").get_json()["assignment"]["version"]
    answer = Api(app, "ana").send("POST", f"/api/assignments/{ana}/status",
                                  {"status": "done", "version": version})
    assert answer.status_code == 200, answer.get_json()
    open_page(page, live_server, ana)
    assert card.get_attribute("data-open") == "3"
    assert card.inner_text() == ("Marked done with 3 suggestions not acted on; reopen the "
                                 "document to review them.")
    assert "to review." not in page.locator("#suggestion-card").inner_text()
    assert undo.is_disabled() and undo.get_attribute("title") == \
        "Undo (Ctrl+Z): the document is done; reopen it to change it"

    # ben skips his copy of the same document without acting on any.
    browser_login(page, live_server, "ben")
    version = Api(app, "ben").get(f"/api/assignments/{ben}").get_json()["assignment"]["version"]
    Api(app, "ben").send("POST", f"/api/assignments/{ben}/status",
                         {"status": "skipped", "version": version})
    open_page(page, live_server, ben)
    assert _open_suggestions(database, ben)[0] == 4
    assert card.inner_text().startswith("Skipped with 4 suggestions not acted on")
    assert errors == []


HEADED_SOURCE = ("BACKGROUND:\nOpioid use after surgery remains high.\nMETHODS:\n"
                 "Adults received ketamine. Pain was measured.")
HEADED_TARGET = "Background: People need painkillers after surgery.\nMethods: Adults got a drug."


def test_headings_of_both_texts_are_treated_alike(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, source=HEADED_SOURCE, target=HEADED_TARGET)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    seen = page.evaluate("""() => Object.fromEntries(['source', 'target'].map((side) => [side, {
        numbers: [...document.querySelectorAll(`.gutter[data-side=${side}] .num`)].map((n) => n.textContent),
        numbered: [...document.querySelectorAll(`.text[data-side=${side}] .sentence[data-number]`)].map((s) => s.textContent),
        headings: [...document.querySelectorAll(`.text[data-side=${side}] .seg.heading`)].map((s) => s.textContent.trim()),
        header: document.querySelector(`.text-panel[data-side=${side}] .panel-head .muted`).textContent}]))""")
    source, target = seen["source"], seen["target"]
    assert source["headings"] == ["BACKGROUND:", "METHODS:"]
    assert target["headings"] == ["Background:", "Methods:"]
    # Only sentences are numbered, on both sides; a heading line has no number of its own.
    assert source["numbered"] == ["Opioid use after surgery remains high.",
                                  "Adults received ketamine.", "Pain was measured."]
    assert source["numbers"] == ["1", "2·3"] or source["numbers"] == ["1", "2", "3"]
    assert source["header"] == "3 sentences" and target["header"] == "2 sentences"
    assert len(target["numbered"]) == 2


def test_destructive_and_disabled_buttons_say_so(page, live_server, qa_study, database):
    errors = watch_errors(page)
    browser_login(page, live_server, "lee")
    pid, q1 = qa_study["project_id"], qa_study["docs"]["q1"]
    page.goto(f"{live_server}/projects/{pid}/adjudicate/{q1}")
    page.locator("#adj-units .unit button.reject").first.wait_for()
    colours = page.evaluate("""() => {
        const bg = (sel) => getComputedStyle(document.querySelector(sel)).backgroundColor;
        const root = getComputedStyle(document.documentElement);
        return {reject: bg('#adj-units .unit button.reject'), accept: bg('#adj-units .unit button.accept'),
                danger: root.getPropertyValue('--danger').trim()};
    }""")
    assert parse(colours["reject"]) == parse(colours["danger"])
    assert parse(colours["reject"]) != parse(colours["accept"])
    # Reopen on a document not adjudicated yet: off, and the reason on hover.
    reopen = page.locator("#adj-reopen")
    assert reopen.is_disabled()
    assert "Not adjudicated yet" in reopen.get_attribute("title")
    page.check("#adj-reset")
    assert reopen.is_enabled() and reopen.get_attribute("title") is None
    page.uncheck("#adj-reset")
    assert reopen.is_disabled()
    complete = page.locator("#adj-complete")
    assert complete.is_disabled() and "still open" in complete.get_attribute("title")

    # q3 is not finished: every action is off and says why.
    page.goto(f"{live_server}/projects/{pid}/adjudicate/{qa_study['docs']['q3']}")
    page.locator("#adj-status", has_text="Not every annotator").wait_for()
    for button in ("#adj-auto", "#adj-complete", "#adj-reopen"):
        assert page.locator(button).is_disabled()
        assert "Not every annotator has finished" in page.locator(button).get_attribute("title")

    # The pre-highlight button, grey while the import's run waits for a worker, says why;
    # the reason follows the server's status.
    page.goto(f"{live_server}/projects/{pid}/setup")
    start = page.locator("#prehighlight-start")
    status = page.request.get(f"{live_server}/projects/{pid}/prehighlight/status").json()
    assert status["running"] and status["state"] == "queued"
    assert start.is_disabled()
    assert start.get_attribute("title") == "A run is queued already: it waits for a worker."
    with database.session() as session:
        session.execute(Document.__table__.update().values(
            prehighlighted_at=datetime.now(timezone.utc)))
        session.execute(Job.__table__.delete())
        session.commit()
    page.reload()
    wait_for(page, "document.getElementById('prehighlight-start').title.startsWith('Every')")
    assert start.is_disabled()
    assert start.get_attribute("title") == "Every document (3) is pre-highlighted already."
    assert errors == []


def test_times_show_in_the_readers_time_zone(chromium, live_server, adjudicated, database):
    release(database, adjudicated, version="v1.0")
    with database.session() as session:
        stored = session.scalar(select(Release.created_at))
    created = datetime.fromisoformat(str(stored).replace("Z", "+00:00"))
    created = created if created.tzinfo else created.replace(tzinfo=timezone.utc)
    context = chromium.new_context(timezone_id="Asia/Tokyo", locale="en-GB")
    page = context.new_page()
    browser_login(page, live_server, "lee")
    page.goto(f"{live_server}/projects/{adjudicated['project_id']}/releases")
    shown = page.locator("article[data-version='v1.0'] h2 time")
    wait_for(page, "document.querySelector('article h2 time')?.dataset.local === '1'")
    iso = shown.get_attribute("datetime")
    text = shown.inner_text()
    context.close()
    assert datetime.fromisoformat(iso.replace("Z", "+00:00")) == created.replace(microsecond=0)
    tokyo = created.astimezone(ZoneInfo("Asia/Tokyo"))
    assert tokyo.strftime("%H:%M") in text and str(tokyo.year) in text
    assert "T" not in text and "Z" not in text  # no raw ISO
