"""The annotation page in a real browser (Debian's Chromium through Playwright)."""

from __future__ import annotations

import json
import shutil

import pytest
from playwright.sync_api import expect

from annotator.align.text import split_sentences
from annotator.models import Assignment, Suggestion
from tests.browser_helpers import (
    SOURCE,
    TARGET,
    add_edit,
    api_state,
    drag_select,
    handled_by_page,
    open_page,
    prepare,
    span,
    standard_suggestions,
    wait_for,
    wait_saved,
    wait_settled,
    watch_errors,
)
from tests.conftest import ARTIFACTS, UPDATE_SCREENSHOTS, browser_login
from tests.helpers import factuality_sentence_pairs
from tests.waiting import wait_until

pytestmark = pytest.mark.browser

ROOT = ARTIFACTS.parent

def test_page_renders_texts_and_suggestions(page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    assert page.locator(".text[data-side=source]").inner_text().replace("\r", "") == SOURCE.replace("\r", "")
    assert page.locator(".seg.sugg").count() >= 3
    assert page.locator(".gutter[data-side=source] .num").count() >= 3
    ready_ms = int(page.locator("#annotate").get_attribute("data-ready-ms"))
    assert ready_ms < 3000, f"interactive after {ready_ms} ms"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate-initial.png"))
    assert errors == []


SEGMENTS = """(side) => [...document.querySelectorAll(`.text[data-side=${side}] .seg`)].map((s) => ({
    a: Number(s.dataset.a), b: Number(s.dataset.b), text: s.textContent,
    heading: s.classList.contains('heading'),
    edits: (s.dataset.edits || '').split(' ').filter(Boolean),
    suggs: (s.dataset.suggs || '').split(' ').filter(Boolean).map(Number)}))"""


def _marked(segments, test):
    """The texts of the runs of consecutive marked segments, joined per run."""
    runs, last = [], None
    for s in segments:
        if test(s):
            if last is not None and last == s["a"]:
                runs[-1] += s["text"]
            else:
                runs.append(s["text"])
            last = s["b"]
    return runs


def test_marks_after_astral_characters_sit_on_their_words(page, live_server, study, database):
    """𝛼 and 😀 are one code point each (the server's unit) but two UTF-16 units in the
    browser: a saved edit, the pre-highlights and the section headings that come after them
    must still be drawn on their own words, and every segment must hold exactly the code
    points its data-a / data-b name."""
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    assert SOURCE.index("😀") < SOURCE.index("ketamine 0.5") and TARGET.index("😀") < TARGET.index("got the drug")
    edit_id = add_edit(database, aid, "oversimplification",
                       fields={"question": "How much?", "answer": "0.5 mg per kg."},
                       spans=[("source", *span(SOURCE, "ketamine 0.5\u00a0mg/kg")),
                              ("target", *span(TARGET, "got the drug ketamine"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    sides = {"source": (SOURCE, page.evaluate(SEGMENTS, "source")),
             "target": (TARGET, page.evaluate(SEGMENTS, "target"))}
    for text, segments in sides.values():
        assert [(s["a"], s["b"], s["text"]) for s in segments] == [
            (s["a"], s["b"], text[s["a"]:s["b"]]) for s in segments]
        assert "".join(s["text"] for s in segments) == text
    source_segments, target_segments = sides["source"][1], sides["target"][1]
    assert _marked(source_segments, lambda s: f"e{edit_id}" in s["edits"]) == ["ketamine 0.5\u00a0mg/kg"]
    assert _marked(target_segments, lambda s: f"e{edit_id}" in s["edits"]) == ["got the drug ketamine"]
    assert _marked(source_segments, lambda s: ids[1] in s["suggs"]) == ["Numeric Rating Scale (NRS)"]
    assert _marked(target_segments, lambda s: ids[1] in s["suggs"]) == ["a survey"]
    assert _marked(target_segments, lambda s: ids[2] in s["suggs"]) == [
        "Here is the simplified version: I chose 'rephrase' as the strategy."]
    assert [s["text"] for s in source_segments if s["heading"]] == ["BACKGROUND:", "METHODS:", "RESULTS:"]
    assert [s["text"] for s in target_segments if s["heading"]] == ["Background:", "Methods:", "Results:"]
    assert errors == []


def test_mouse_edit_accept_and_reload_keep_offsets(page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)

    # Drag from inside "thalassemia" to inside "ketamine": snaps to whole words ("𝛼-" is
    # part of the word; 𝛼 and 😀 are one code point in Python but two UTF-16 units in JS),
    # after a "\r\n" and before a non-breaking space.
    src_start, src_end = span(SOURCE, "𝛼-thalassemia 😀 received ketamine")
    drag_select(page, "source", src_start + 5, src_end - 3)
    page.click("#popover [data-type=oversimplification]")
    tgt = span(TARGET, "got the drug ketamine")
    drag_select(page, "target", tgt[0] + 1, tgt[1] - 2)
    page.click("#popover .pop-add")  # a selection joins the open edit only when asked to
    page.fill("#edit-form [data-field=question]", "How much ketamine did the adults get?")
    page.fill("#edit-form [data-field=answer]", "0.5 mg for every kilogram of body weight, into a vein.")
    page.locator("#edit-form .choice", has_text="major").click()
    wait_saved(page)
    chips = page.locator("#edit-form .chip")
    assert chips.count() == 2

    # Accept the oversimplification pre-highlight from the keyboard.
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert "named scale" in page.locator("#suggestion-card").inner_text()
    with handled_by_page(page, "key"):  # its edit saved and the accept recorded
        page.keyboard.press("a")
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    page.keyboard.type("What was used to measure pain?")
    page.keyboard.press("w")  # typed into the field, not a shortcut
    page.keyboard.press("Backspace")
    page.locator("#edit-form [data-field=answer]").fill("A 0 to 10 pain rating scale.")
    wait_settled(page)

    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    data = api_state(page, live_server, aid)
    edits = sorted(data["edits"], key=lambda e: e["id"])
    assert len(edits) == 2
    first, second = edits
    assert first["edit_type"] == "oversimplification"
    assert first["fields"] == {"question": "How much ketamine did the adults get?",
                               "answer": "0.5 mg for every kilogram of body weight, into a vein.",
                               "severity": 2}
    assert {(s["side"], s["start"], s["end"]) for s in first["spans"]} == {
        ("source", src_start, src_end), ("target", *tgt)}
    assert SOURCE[src_start:src_end] == "𝛼-thalassemia 😀 received ketamine"
    assert second["suggestion_id"] == ids[1]
    assert second["fields"]["question"] == "What was used to measure pain?"
    assert {(s["side"], s["start"], s["end"]) for s in second["spans"]} == {
        ("source", *span(SOURCE, "Numeric Rating Scale (NRS)")), ("target", *span(TARGET, "a survey"))}
    assert [s["action"] for s in data["suggestions"] if s["id"] == ids[1]] == ["accepted"]

    # After the reload the highlights sit on the same words.
    key = f"e{first['id']}"
    marked = page.evaluate("""(key) => [...document.querySelectorAll('.seg')]
        .filter(s => (s.dataset.edits || '').split(' ').includes(key)).map(s => s.textContent).join('|')""", key)
    assert marked == "𝛼-thalassemia 😀 received ketamine|got the drug ketamine"
    assert page.locator("#edit-list .edit-item").count() == 2
    assert errors == []


def test_stale_version_from_second_context_shows_conflict(page, chromium, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    edit_id = add_edit(database, aid, spans=[("source", *span(SOURCE, "double-blind"))],
                       fields={"question": "How was the study run?"})
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    other_context = chromium.new_context(viewport={"width": 1440, "height": 900})
    other = other_context.new_page()
    try:
        browser_login(other, live_server, "ana")
        open_page(other, live_server, aid)
        for p in (page, other):
            p.click(f"#edit-list [data-key=e{edit_id}]")
        page.fill("#edit-form [data-field=answer]", "Neither patients nor doctors knew the group.")
        wait_saved(page)
        other.fill("#edit-form [data-field=answer]", "An older answer typed in the second tab.")
        other.wait_for_selector("#banner.conflict")
        banner = other.locator("#banner").inner_text()
        assert "Conflict" in banner and "nothing was overwritten" in banner
        assert other.locator("#banner button", has_text="Reload").is_visible()
        assert other.locator("#save-state").get_attribute("data-state") == "conflict"
        assert other.locator("#edit-form [data-field=answer]").is_disabled()
        data = api_state(page, live_server, aid)
        assert data["edits"][0]["fields"]["answer"] == "Neither patients nor doctors knew the group."
        other.locator("#banner button", has_text="Reload").click()
        other.wait_for_selector("#annotate[data-ready='1']")
        other.click(f"#edit-list [data-key=e{edit_id}]")
        assert other.locator("#edit-form [data-field=answer]").input_value() == \
            "Neither patients nor doctors knew the group."
    finally:
        other_context.close()


def test_planted_markup_stays_text(page, live_server, study, database):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    aid = study["assignments"]["ana"][2]
    with database.session() as session:
        doc = session.get(Assignment, aid).document
        target = doc.target
        doc.source = "Original <img src=x onerror=\"window.__pwned2=1\"> text."
        doc.source_sentences = [[0, len(doc.source)]]
        session.add(Suggestion(document_id=doc.id, kind="trailing", method="t", score=0.5,
                               explanation="<img src=x onerror=\"window.__pwned3=1\">",
                               source_spans=[], target_spans=[[6, len(target)]]))
        session.commit()
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.locator(".seg.sugg").first.hover()
    with handled_by_page(page, "key"):
        page.keyboard.press("j")
    expect(page.locator("#suggestion-card")).to_contain_text("onerror")
    # Any image the texts had made would have failed to load (src=x) by now.
    wait_for(page, "[...document.images].every((image) => image.complete)")
    assert page.evaluate("[window.__pwned, window.__pwned2, window.__pwned3]") == [None, None, None]
    assert dialogs == []
    assert page.locator(".text img, #suggestion-card img, #tooltip img").count() == 0
    assert "<script>window.__pwned = 1</script>" in page.locator(".text[data-side=target]").inner_text()
    assert "onerror" in page.locator("#suggestion-card").inner_text()


def test_keyboard_only_completion(page, live_server, study, database):
    errors = watch_errors(page)
    aid = study["assignments"]["ana"][0]
    ids = prepare(database, aid, suggestions=standard_suggestions())["suggestions"]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    kb = page.keyboard

    kb.press("?")
    assert page.locator("#help").is_visible()
    assert "Accept the current suggestion" in page.locator("#help").inner_text()
    kb.press("Escape")
    assert page.locator("#help").is_hidden()

    kb.press("j")                      # the deletion suggestion
    kb.press("a")                      # accept: a pre-filled deletion, cursor in the question
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    kb.type("Did the patients know which drug they got?")
    page.wait_for_selector("#edit-form .warnings li")   # yes/no guidance, gentle
    assert "yes/no" in page.locator("#edit-form [data-name=question] .warnings").inner_text()
    kb.press("Control+a")
    kb.type("How were patients kept from knowing their group?")
    kb.press("Escape")
    kb.press("w")
    kb.type("Neither they nor their doctors knew; the dummy treatment looked the same.")
    kb.press("Escape")
    kb.press("Escape")                 # close the edit
    kb.press("j")                      # the oversimplification suggestion
    kb.press("x")                      # dismiss; moves on to the leaked instruction
    kb.press("x")
    assert "All suggestions reviewed" in page.locator("#suggestion-card").inner_text()

    kb.press("d")                      # new deletion; focus in the sentence picker
    wait_for(page, "document.activeElement.tagName === 'SELECT'")
    kb.press("ArrowDown")              # sentence 1 of the original becomes a span
    page.wait_for_selector("#edit-form .span-row[data-side=source] .chip")
    kb.press("Escape")
    kb.press("q")
    kb.type("Why was a new painkiller needed?")
    kb.press("Control+Enter")          # answer missing: a clear list, nothing marked done
    page.wait_for_selector("#missing li")
    assert "Answer is required" in page.locator("#missing").inner_text()
    kb.press("Enter")                  # the focused item opens the edit at the answer
    wait_for(page, "document.activeElement.dataset.field === 'answer'")
    kb.type("Patients used a lot of opioids after this surgery.")
    kb.press("Control+Enter")
    page.wait_for_selector("#status.done")
    assert page.locator("#btn-done").inner_text() == "Reopen"

    data = api_state(page, live_server, aid)
    assert data["assignment"]["status"] == "done"
    assert len(data["edits"]) == 2
    assert {e["edit_type"] for e in data["edits"]} == {"deletion"}
    assert {s["id"]: s["action"] for s in data["suggestions"]} == {
        ids[0]: "accepted", ids[1]: "dismissed", ids[2]: "dismissed"}
    manual = next(e for e in data["edits"] if e["suggestion_id"] is None)
    first = [list(s) for s in split_sentences(SOURCE)][0]
    assert manual["spans"] == [{"side": "source", "start": first[0], "end": first[1]}]
    assert errors == []


def test_factuality_ratings_per_sentence_pair(page, live_server, database, users, tmp_path):
    aid = factuality_sentence_pairs(database, users, tmp_path)[0]
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    rows = page.locator(".rating-row[data-level=pair]")
    assert rows.count() == 2
    for item in range(2):
        row = page.locator(f".rating-row[data-item='{item}']")
        row.locator("[data-rating$='|insertion'] label", has_text="0").first.click()
        # keyboard: focus the first option of a group, arrows choose
        row.locator("[data-rating$='|deletion'] input").first.focus()
        page.keyboard.press("ArrowRight")   # 0 -> 1
        row.locator("[data-rating$='|substitution'] label", has_text="2").click()
    page.locator(".rating-row[data-item='1'] .rating-text").fill("Deaths are invented.")
    page.locator(".rating-row[data-item='1'] [data-rating$='|insertion'] label", has_text="2").click()
    wait_saved(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#status.done")
    data = api_state(page, live_server, aid)
    got = {(r["item"], r["field"]): r["value"] for r in data["ratings"]}
    assert got == {("0", "insertion"): 0, ("0", "deletion"): 1, ("0", "substitution"): 2,
                   ("1", "insertion"): 2, ("1", "deletion"): 1, ("1", "substitution"): 2,
                   ("1", "comment"): "Deaths are invented."}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate-factuality.png"))


def test_lead_sees_annotations_read_only(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid, suggestions=standard_suggestions())
    edit_id = add_edit(database, aid, spans=[("source", *span(SOURCE, "double-blind"))],
                       fields={"question": "How was it blinded?", "answer": "Nobody knew."})
    browser_login(page, live_server, "lee")
    open_page(page, live_server, aid)
    assert "Read-only" in page.locator("#banner").inner_text()
    assert page.locator("#new-edit").is_hidden()
    assert page.locator("#btn-done").is_hidden()
    page.click(f"#edit-list [data-key=e{edit_id}]")
    assert page.locator("#edit-form [data-field=question]").is_disabled()
    with handled_by_page(page, "selection"):
        drag_select(page, "source", *span(SOURCE, "124 adults"))
    assert page.locator("#popover").is_hidden()
    with handled_by_page(page, "key", count=3):
        page.keyboard.press("Escape")
        page.keyboard.press("j")
        page.keyboard.press("a")
    data = api_state(page, live_server, aid)
    assert data["read_only"] is True and len(data["edits"]) == 1
    assert all(s["action"] is None for s in data["suggestions"])


def test_guidelines_search_and_help(page, live_server, study):
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignments"]["ana"][0])
    page.keyboard.press("/")
    search = page.locator("#tab-guidelines input[type=search]")
    search.wait_for()
    page.wait_for_selector("#tab-guidelines .guideline-body h1, #tab-guidelines .guideline-body h2")
    assert page.evaluate("document.activeElement.type") == "search"
    # One input event per query: typed letter by letter on a busy machine, a pause between
    # two letters could run the search for a prefix and the count be read in between.
    search.fill("oversimplification")
    page.wait_for_selector("mark.gl-hit.current")
    count = page.locator("mark.gl-hit").count()
    assert count > 3
    assert page.locator(".match-count").inner_text() == f"{count} matches"
    search.fill("zzqx-not-there")
    expect(page.locator(".match-count")).to_have_text("no matches")
    page.click("[role=tab][data-tab=annotate]")
    assert page.locator("#tab-guidelines").is_hidden()
    page.click("#btn-help")
    assert page.locator("#help").is_visible()
    assert "New deletion edit" in page.locator("#help").inner_text()
    page.keyboard.press("Escape")
    assert page.locator("#help").is_hidden()


def test_active_time_is_reported_when_leaving(page, live_server, study):
    aid = study["assignments"]["ana"][1]
    browser_login(page, live_server, "ana")
    page.clock.install()  # the timer runs on the page's clock, moved on below
    open_page(page, live_server, aid)
    for i in range(8):
        page.mouse.move(300 + i * 10, 300)
        page.clock.run_for(400)
    shown = page.locator("#timer").inner_text()
    assert shown in ("0:02", "0:03", "0:04")
    page.goto(f"{live_server}/my")            # pagehide: keepalive report
    # The report lands on its own after the page is gone: only the server shows it.
    seconds = wait_until(lambda: api_state(page, live_server, aid)["assignment"]["seconds_spent"],
                         10, "the active time reported on leaving")
    assert 2 <= seconds <= 6


def test_guidance_rules(page, live_server, study):
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignments"]["ana"][0])
    result = page.evaluate("""async () => {
        const g = await import('/static/js/guidance.js');
        const target = 'People got the drug ketamine. Their pain was checked with a survey. Pain fell.';
        const type = {sides: ['source', 'target']};
        const edit = (q, a, spans) => ({fields: {question: q, answer: a}, spans});
        const rationale = [{side: 'target', start: 0, end: 29}];
        return {
          yesno: g.isYesNoQuestion('Was the trial blinded?'),
          wh: g.isYesNoQuestion('How was the trial blinded?'),
          present: g.answerInText('the drug Ketamine', target),
          absent: g.answerInText('0.5 mg per kg', target),
          ungiven: g.ungivenWords('How was the survey scored with ketamine infusion?', target),
          laterInText: g.guidance(edit('What survey measured pain?', '', rationale), type, target).question,
          wholeText: g.guidance(edit('What survey measured pain?', '', []), {sides: ['source']}, target).question,
          acronyms: g.unexplainedAcronyms('Pain on the NRS and a 95% CI of the SIBDQ (a bowel disease questionnaire).'),
          explained: g.unexplainedAcronyms('the Numeric Rating Scale (NRS)'),
          clean: g.guidance(edit('How much ketamine did people get?', 'Half a milligram per kilogram.', []), type, target),
        };
    }""")
    assert result["yesno"] is True and result["wh"] is False
    assert result["present"] is True and result["absent"] is False
    assert result["ungiven"] == ["scored", "infusion"]
    # The whole simplification counts as given, for an oversimplification too: words after
    # its rationale are known to the reader (issue 35).
    assert result["laterInText"] == []
    assert result["wholeText"] == []
    assert result["acronyms"] == ["NRS", "CI"]
    assert result["explained"] == []
    assert result["clean"] == {"question": [], "answer": []}


def demo_pair():
    from importlib.resources import files
    demo = files("annotator") / "demo_data"
    record = json.loads((demo / "infolossqa_demo.jsonl").read_text(encoding="utf-8").splitlines()[0])
    planted = [p for p in json.loads((demo / "infolossqa_demo_planted.json").read_text(encoding="utf-8"))
               if p["id"] == record["id"]]
    return record, planted


def test_screenshot_of_a_working_session(page, live_server, study, database):
    record, planted = demo_pair()
    source, target = record["source"], record["target"]
    aid = study["assignments"]["ana"][0]
    suggestions = [{"kind": p["kind"], "source_spans": [p["source_span"]],
                    "target_spans": [p["target_span"]] if p["target_span"] else [],
                    "explanation": p["note"], "score": 0.82, "method": "content-class diff"}
                   for p in planted]
    prepare(database, aid, source, target, suggestions)
    add_edit(database, aid, "oversimplification",
             {"question": "Which adults took part in the study?",
              "answer": "Adults having a planned fusion of the lower (lumbar) spine.", "severity": 1},
             [("source", *span(source, "124 adults undergoing elective lumbar spinal fusion")),
              ("target", *span(target, "124 adults having planned surgery on the lower spine"))])
    add_edit(database, aid, "deletion",
             {"question": "How sure are the researchers about the 17 mg difference?",
              "answer": "The true difference probably lies between 10 and 25 mg; p < 0.001.",
              "severity": 2},
             [("source", *span(source, "mean difference -17.4 mg, 95% CI -24.5 to -10.3; p < 0.001"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("a")
    wait_for(page, "document.activeElement.dataset.field === 'question'")
    page.keyboard.type("Was the pain measured with the NRS?")
    page.locator("#edit-form [data-field=answer]").fill("With the NRS, from 0 to 10.")
    wait_saved(page)
    page.locator("#edit-form [data-field=answer]").blur()
    page.locator("#edit-list .edit-item").first.hover()   # outlines its spans, no tooltip
    page.locator(".text .seg.hl").first.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "annotate.png"))
    if UPDATE_SCREENSHOTS:
        shutil.copyfile(ARTIFACTS / "annotate.png", ROOT / "docs" / "screenshots" / "annotate.png")
    warnings = page.locator("#edit-form .warnings li").all_inner_texts()
    assert any("yes/no" in w for w in warnings)
    assert any("NRS" in w for w in warnings)


def test_unsaved_text_warns_before_unload_and_is_still_saved(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    prepare(database, aid)
    edit_id = add_edit(database, aid, spans=[("source", *span(SOURCE, "double-blind"))])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    page.click(f"#edit-list [data-key=e{edit_id}]")
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.accept()))
    page.locator("#edit-form [data-field=question]").type("Typed just before closing")
    assert page.locator("#save-state").get_attribute("data-state") in ("unsaved", "saving")
    context = page.context
    page.close(run_before_unload=True)
    other = context.new_page()
    # The page sends the text as it closes (keepalive); on a busy machine it lands later.
    question = wait_until(lambda: other.request.get(f"{live_server}/api/assignments/{aid}")
                          .json()["edits"][0]["fields"].get("question"), 10,
                          "the text sent as the page closed")
    assert dialogs == ["beforeunload"]
    assert question == "Typed just before closing"


def test_low_priority_kinds_start_hidden_and_can_be_shown(page, live_server, study, database):
    aid = study["assignments"]["ana"][0]
    insertion = {"kind": "insertion", "target_spans": [list(span(TARGET, "got the drug ketamine"))],
                 "explanation": "Words added in the middle of an aligned sentence.", "score": 0.2}
    prepare(database, aid, suggestions=standard_suggestions() + [insertion])
    browser_login(page, live_server, "ana")
    open_page(page, live_server, aid)
    assert page.locator(".seg.sg-insertion").count() == 0
    assert page.locator(".seg.sg-deletion").count() >= 1
    toggle = page.locator("input[data-kind=insertion]")
    assert not toggle.is_checked()
    toggle.check()
    assert page.locator(".seg.sg-insertion").count() >= 1
