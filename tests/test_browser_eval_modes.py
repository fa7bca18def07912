"""Each evaluation mode end to end in Debian's Chromium: rate a generated QA pair, compare
a reference with a model QA, score PLABA axes, type PlainFact sentences. Screenshots go
to test-artifacts/ and docs/screenshots/."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy import select

from annotator.models import Assignment, Document, EvalQAItem, Project, Rating, User
from annotator.operations.demo import DEMO_USERS, create_demo
from tests.browser_helpers import (
    hold_first_rating_save,
    wait_eval_settled,
    wait_for,
    wait_settled,
)
from tests.conftest import ARTIFACTS, UPDATE_SCREENSHOTS, browser_login

PASSWORDS = {name: password for name, _, password in DEMO_USERS}

pytestmark = pytest.mark.browser
PAYLOAD = "<img src=x onerror=\"window.__pwned = 1\">"


@pytest.fixture
def demo(app, database):
    with database.session() as session:
        create_demo(session, with_work=False)  # evaluation projects only: no release to cut
        return {p.name: p.id for p in session.scalars(select(Project))}


def _assignment(database, project_id, username, need=None):
    with database.session() as session:
        rows = session.scalars(select(Assignment).join(Document).join(User).where(
            Document.project_id == project_id, User.username == username)
            .order_by(Assignment.id)).all()
        for a in rows:
            if need is None or need(session, a):
                return a.id, a.document_id
    raise AssertionError("no assignment")


def _ratings(database, assignment_id):
    with database.session() as session:
        return {(r.item, r.field): (r.value, r.rationale) for r in session.scalars(
            select(Rating).where(Rating.assignment_id == assignment_id))}


def _shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=False)
    if UPDATE_SCREENSHOTS:
        shutil.copy(ARTIFACTS / name, ARTIFACTS.parent / "docs" / "screenshots" / name)


def _pick(page, field, value):
    page.locator(f".criterion[data-field={field}] label:has(input[value='{value}'])").click()
    wait_eval_settled(page)


def test_rate_a_generated_qa_pair(demo, database, live_server, page):
    pid = demo["demo-qa-quality"]
    aid, doc = _assignment(database, pid, "ana", lambda s, a: s.scalar(select(EvalQAItem.id).where(
        EvalQAItem.document_id == a.document_id, EvalQAItem.sampled.is_(True))))
    with database.session() as session:
        items = session.scalars(select(EvalQAItem).where(EvalQAItem.document_id == doc,
                                EvalQAItem.sampled.is_(True)).order_by(EvalQAItem.id)).all()
        items[0].answer += " " + PAYLOAD  # untrusted model output
        first = items[0]
        evidence = session.get(Document, doc).source[slice(*first.evidence_spans[0])]
        count = len(items)
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#criteria .criterion").first.wait_for()
    assert page.locator("#text-source mark.hl-evidence").first.inner_text() == evidence
    assert PAYLOAD in page.locator("#qa-card").inner_text()
    assert page.evaluate("window.__pwned") is None
    for n in range(count):
        _pick(page, "givenness", "bad" if n == 0 else "good")
        for field, value in (("localization", "good"), ("jargon", "none"), ("standalone", "yes"),
                             ("answerable_original", "single"),
                             ("answerable_simplification", "not"), ("answer_accuracy", "yes"),
                             ("evidence_accuracy", "yes"), ("hallucination", "none")):
            _pick(page, field, value)
        if n == 0:
            assert "needs-why" in page.locator(".criterion[data-field=givenness]").get_attribute(
                "class"
            )
        page.click("#next")
    page.click("#btn-done")
    page.locator("#missing").wait_for()
    assert "give a rationale" in page.locator("#missing").inner_text()
    page.click("#prev") if count > 1 else None
    for _ in range(count):
        page.click("#prev")
    page.fill(
        ".criterion[data-field=givenness] input.why", "asks about 'ferritin', never mentioned"
    )
    page.locator(".criterion[data-field=givenness] input.why").press("Tab")
    wait_eval_settled(page)
    # (the screenshot of this page comes from test_browser_eval_ux: no planted payload in it)
    page.click("#btn-done")
    page.locator("#status.done").wait_for()
    ratings = _ratings(database, aid)
    assert len(ratings) == 9 * count
    assert ratings[(str(first.id), "givenness")] == (
        "bad",
        "asks about 'ferritin', never mentioned",
    )


# Astral characters (one code point in Python, two UTF-16 units in the browser) put before
# every highlight of a document.
ASTRAL_SOURCE = "𝛼-thalassemia 😀 (𝛼𝛽) "
ASTRAL_TARGET = "😀 Kids with 𝛼-thalassemia: "


def _code_points(spans):
    return set().union(*(range(s, e) for s, e in spans))


MARKS = """(side) => [...document.querySelectorAll(`#text-${side} mark`)].map((m) => ({
    a: Number(m.dataset.a), b: Number(m.dataset.b), text: m.textContent, cls: [...m.classList]}))"""


def test_highlights_after_astral_characters_sit_on_their_words(demo, database, live_server, page):
    """The evidence and rationale of each QA item are drawn on their own words although
    𝛼 and 😀 come before them (offsets count code points), through the segmentation the
    annotation page and the adjudication view use."""
    pid = demo["demo-qa-quality"]
    aid, doc = _assignment(database, pid, "ana", lambda s, a: s.scalar(select(EvalQAItem.id).where(
        EvalQAItem.document_id == a.document_id, EvalQAItem.sampled.is_(True))))
    shift_source, shift_target = len(ASTRAL_SOURCE), len(ASTRAL_TARGET)
    with database.session() as session:
        document = session.get(Document, doc)
        document.source = ASTRAL_SOURCE + document.source
        document.target = ASTRAL_TARGET + document.target
        document.source_sentences = [[0, shift_source]] + [
            [s + shift_source, e + shift_source] for s, e in document.source_sentences or []]
        document.target_sentences = [[0, shift_target]] + [
            [s + shift_target, e + shift_target] for s, e in document.target_sentences or []]
        spans = {}
        for item in session.scalars(select(EvalQAItem).where(EvalQAItem.document_id == doc)):
            item.evidence_spans = [[s + shift_source, e + shift_source] for s, e in item.evidence_spans]
            item.rationale_spans = [[s + shift_target, e + shift_target] for s, e in item.rationale_spans]
            spans[item.id] = {"source": item.evidence_spans, "target": item.rationale_spans}
        session.commit()
        texts = {"source": document.source, "target": document.target}
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#criteria .criterion").first.wait_for()
    shown = page.evaluate("window.evalPage.data.items.map((item) => item.id)")
    assert shown and set(shown) <= set(spans)
    seen = {"source": 0, "target": 0}
    for n, item_id in enumerate(shown):
        if n:
            page.click("#next")
        assert page.locator("#item-pos").text_content().startswith(f"Item {n + 1} of ")
        for side, cls in (("source", "hl-evidence"), ("target", "hl-rationale")):
            text = texts[side]
            assert page.locator(f"#text-{side}").text_content() == text
            marks = page.evaluate(MARKS, side)
            assert [(m["text"], cls in m["cls"]) for m in marks] == [(text[m["a"]:m["b"]], True) for m in marks]
            assert _code_points((m["a"], m["b"]) for m in marks) == _code_points(spans[item_id][side])
            seen[side] += len(marks)
    assert seen["source"] > 0 and seen["target"] > 0  # both kinds of highlight were checked


def test_overlapping_reference_and_model_evidence_both_show(demo, database, live_server, page):
    """Where a reference's and a model's evidence overlap, the shared words carry both
    highlights and each highlight still covers exactly its own span (the page once kept
    only the span that started first)."""
    from annotator.models import EvalRecallPair

    pid = demo["demo-qa-recall"]
    aid, doc = _assignment(database, pid, "ben", lambda s, a: s.scalar(select(EvalRecallPair.id).where(
        EvalRecallPair.document_id == a.document_id, EvalRecallPair.candidate.is_(True))))
    with database.session() as session:
        pair = session.scalars(select(EvalRecallPair).where(
            EvalRecallPair.document_id == doc, EvalRecallPair.candidate.is_(True))
            .order_by(EvalRecallPair.id)).first()
        source = session.get(Document, doc).source
        start, end = pair.reference.evidence_spans[0]
        assert end - start >= 4
        model = [[start + (end - start) // 2, min(len(source), end + 12)]]
        pair.prediction.evidence_spans = model
        session.commit()
        reference = pair.reference.evidence_spans
    browser_login(page, live_server, "ben", PASSWORDS["ben"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#ref-card h3").wait_for()
    marks = page.evaluate(MARKS, "source")
    assert all(m["text"] == source[m["a"]:m["b"]] for m in marks)
    assert _code_points((m["a"], m["b"]) for m in marks if "hl-ref" in m["cls"]) == _code_points(reference)
    assert _code_points((m["a"], m["b"]) for m in marks if "hl-model" in m["cls"]) == _code_points(model)
    both = [m["text"] for m in marks if {"hl-ref", "hl-model"} <= set(m["cls"])]
    assert both and "".join(both) == source[model[0][0]:end]


def test_compare_reference_and_model_qa(demo, database, live_server, page):
    from annotator.models import EvalRecallPair

    pid = demo["demo-qa-recall"]
    aid, doc = _assignment(
        database,
        pid,
        "ben",
        lambda s, a: s.scalar(
            select(EvalRecallPair.id).where(
                EvalRecallPair.document_id == a.document_id, EvalRecallPair.candidate.is_(True)
            )
        ),
    )
    with database.session() as session:
        pairs = session.scalars(select(EvalRecallPair).where(
            EvalRecallPair.document_id == doc, EvalRecallPair.candidate.is_(True))
            .order_by(EvalRecallPair.id)).all()
        reference_q = pairs[0].reference.question
    browser_login(page, live_server, "ben", PASSWORDS["ben"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#ref-card h3").wait_for()
    assert reference_q in page.locator("#ref-card").inner_text()
    assert page.locator("#text-source mark.hl-ref").count() >= 1
    for n in range(len(pairs)):
        _pick(page, "recall", "fully" if n == 0 else "not")
        if n == 0:
            page.fill("#recall-form input.why", "same number, same unit")
            page.locator("#recall-form input.why").press("Tab")
            wait_eval_settled(page)
            _shot(page, "eval_recall.png")
        page.click("#next")
    page.click("#btn-done")
    page.locator("#status.done").wait_for()
    ratings = _ratings(database, aid)
    assert ratings[(f"p{pairs[0].id}", "recall")][0] == "fully"
    assert ratings[(f"p{pairs[0].id}", "comment")][0] == "same number, same unit"


def test_score_plaba_axes_then_read_the_results(demo, database, live_server, page):
    pid = demo["demo-plaba"]
    aid, doc = _assignment(database, pid, "ana")
    with database.session() as session:
        n = len(session.get(Document, doc).target_sentences)
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator(".rating-row").first.wait_for()
    for i in range(n):
        for axis, index in (("SIM", 2), ("ACC", 2), ("COM", 1), ("BRV", 0)):
            page.locator(f"input[name='rate-sentence-{i}-{axis}'][value='{index}']").locator(
                "xpath=..").click()
    wait_settled(page)
    _shot(page, "eval_plaba.png")
    ratings = _ratings(database, aid)
    assert (
        len(ratings) == 4 * n and ratings[("0", "SIM")][0] == 1 and ratings[("0", "BRV")][0] == -1
    )
    page.context.clear_cookies()
    browser_login(page, live_server, "lee", PASSWORDS["lee"])
    page.goto(f"{live_server}/eval/projects/{pid}/results")
    row = page.locator("#scores-table tr[data-system=all]")
    # SIM all 1 -> 100; COM all 0 -> 50; BRV all -1 -> 0; FIN (100 + 100 + 50 + 0) / 4
    assert row.inner_text().split("\t")[1:6] == ["100.0", "100.0", "50.0", "0.0", "62.5"]
    assert page.locator("svg.corr-plot rect").count() == 16
    _shot(page, "eval_plaba_results.png")


def test_type_plainfact_sentences_with_the_alignment_suggestion(demo, database, live_server, page):
    pid = demo["demo-plainfact"]
    aid, doc = _assignment(database, pid, "ana")
    with database.session() as session:
        document = session.get(Document, doc)
        n, alignment = len(document.target_sentences), document.alignment
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator(".pf-row").first.wait_for()
    assert page.locator(".pf-row").count() == n
    first_rel = page.locator(".pf-row[data-sentence='0'] .relation")
    assert first_rel.get_attribute("data-suggested") == "true"
    suggested = sorted(s + 1 for g in alignment if 0 in g[1] for s in g[0])
    assert [int(v) for v in first_rel.locator("input:checked").evaluate_all(
        "els => els.map(e => e.value)")] == suggested
    for i in range(n):
        row = page.locator(f".pf-row[data-sentence='{i}']")
        last = i == n - 1
        row.locator(
            f"label:has(input[value='{'elaboration' if last else 'simplification'}'])"
        ).click()
        row.locator(
            f"label:has(input[value='{'definition' if last else 'method_result'}'])"
        ).click()
        if last:
            # "external" never goes with sentence numbers: refused while any is ticked
            rel = row.locator(".relation")
            if rel.locator("input[value=external]").is_checked():
                rel.locator("label").first.click()
                wait_eval_settled(page)
            if not rel.locator("input:checked").count():
                rel.locator("label").nth(1).click()
                wait_eval_settled(page)
            rel.locator("label").first.click()
            assert "untick the sentence numbers" in rel.locator(".refused").inner_text()
            assert not rel.locator("input[value=external]").is_checked()
            for box in rel.locator("input:checked").all():
                box.locator("xpath=..").click()
                wait_eval_settled(page)
            rel.locator("label").first.click()
            wait_eval_settled(page)
            assert rel.locator(".refused").inner_text() == ""
        else:
            row.locator("button.accept").click()
        wait_eval_settled(page)
    _shot(page, "eval_plainfact.png")
    page.click("#btn-done")
    page.locator("#status.done").wait_for()
    ratings = _ratings(database, aid)
    assert ratings[("0", "relation")][0] == suggested
    assert ratings[(str(n - 1), "type")][0] == "elaboration"
    assert ratings[(str(n - 1), "relation")][0] == ["external"]


def test_two_quick_clicks_on_one_criterion_are_saved_in_turn(demo, database, live_server, page):
    """Two values of one fresh rating clicked in quick succession while the server is slow:
    the second save waits for the first's answer and sends its version, so there is no
    conflict and the second value is the one stored."""
    pid = demo["demo-qa-quality"]
    aid, doc = _assignment(database, pid, "ana", lambda s, a: s.scalar(select(EvalQAItem.id).where(
        EvalQAItem.document_id == a.document_id, EvalQAItem.sampled.is_(True))))
    assert _ratings(database, aid) == {}
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#criteria .criterion").first.wait_for()
    def option(value):
        return page.locator(f".criterion[data-field=localization] label:has(input[value='{value}'])")

    saves = hold_first_rating_save(page, option("good").click)
    option("missing").click()  # the first answer is still on its way (held)
    wait_for(page, "window.evalPage.pending === 2")  # both clicks taken, one save queued
    saves.release()
    wait_eval_settled(page)

    assert [(b["value"], b["version"] is None) for b in saves.sent] == [("good", True), ("missing", False)]
    assert page.locator("#save-state").get_attribute("data-state") == "saved"
    ratings = _ratings(database, aid)
    assert [value for (_, field), (value, _) in ratings.items() if field == "localization"] == [
        "missing"]
