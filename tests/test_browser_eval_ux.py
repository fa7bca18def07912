"""The evaluation pages (QA quality, QA recall, PlainFact) have what the annotation page
has around its controls: a guideline tab, keyboard help and shortcuts, the active-time
timer, and a list of what blocks "done" whose entries jump to the item."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy import select

from annotator.models import Assignment, Document, EvalQAItem, Project, User
from annotator.operations.demo import DEMO_USERS, create_demo
from tests.browser_helpers import wait_eval_settled
from tests.conftest import ARTIFACTS, UPDATE_SCREENSHOTS, browser_login

pytestmark = pytest.mark.browser
PASSWORDS = {name: password for name, _, password in DEMO_USERS}


@pytest.fixture
def demo(app, database):
    with database.session() as session:
        create_demo(session, with_work=False)  # evaluation projects only: no release to cut
        return {p.name: p.id for p in session.scalars(select(Project))}


def first_assignment(database, project_id, username="ana", need=None):
    with database.session() as session:
        for a in session.scalars(
            select(Assignment)
            .join(Document)
            .join(User)
            .where(Document.project_id == project_id, User.username == username)
            .order_by(Assignment.id)
        ):
            if need is None or need(session, a):
                return a.id
    raise AssertionError("no assignment")


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    if UPDATE_SCREENSHOTS:
        shutil.copy(ARTIFACTS / name, ARTIFACTS.parent / "docs" / "screenshots" / name)


@pytest.mark.parametrize("project", ["demo-qa-quality", "demo-qa-recall", "demo-plainfact"])
def test_guidelines_help_and_timer_on_every_evaluation_page(
    demo, database, live_server, page, project
):
    aid = first_assignment(database, demo[project])
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.clock.install()  # the timer runs on the page's clock, moved on below
    page.goto(f"{live_server}/assignments/{aid}")
    page.wait_for_function("() => !!window.evalPage")
    page.keyboard.press("?")
    help_box = page.locator("#help")
    assert help_box.is_visible()
    assert "[object" not in help_box.inner_text() and "Next item" in help_box.inner_text()
    assert help_box.locator("tr", has_text="Mark the document done").locator(
        "kbd"
    ).all_inner_texts() == ["Ctrl", "Enter"]
    page.keyboard.press("Escape")
    assert help_box.is_hidden()
    page.keyboard.press("/")
    page.wait_for_selector("#tab-guidelines .guideline-body h1, #tab-guidelines .guideline-body h2")
    assert page.evaluate("document.activeElement.type") == "search"
    page.click("[role=tab][data-tab=rate]")
    assert page.locator("#tab-guidelines").is_hidden() and page.locator("#eval-panel").is_visible()
    for i in range(8):
        page.mouse.move(200 + 10 * i, 300)
        page.clock.run_for(350)
    assert page.locator("#timer").inner_text() in ("0:02", "0:03", "0:04")


def test_a_missing_rationale_links_to_its_item(demo, database, live_server, page):
    pid = demo["demo-qa-quality"]

    def has_two_items(session, a):
        return (
            len(
                session.scalars(
                    select(EvalQAItem.id).where(
                        EvalQAItem.document_id == a.document_id, EvalQAItem.sampled.is_(True)
                    )
                ).all()
            )
            >= 2
        )

    aid = first_assignment(database, pid, need=has_two_items)
    browser_login(page, live_server, "ana", PASSWORDS["ana"])
    page.goto(f"{live_server}/assignments/{aid}")
    page.locator("#criteria .criterion").first.wait_for()
    count = page.evaluate("window.evalPage.data.items.length")
    answers = (
        ("givenness", "good"),
        ("localization", "good"),
        ("jargon", "none"),
        ("standalone", "yes"),
        ("answerable_original", "single"),
        ("answerable_simplification", "not"),
        ("answer_accuracy", "yes"),
        ("evidence_accuracy", "yes"),
        ("hallucination", "none"),
    )
    for n in range(count):
        for field, value in answers:
            if n == 1 and field == "answer_accuracy":
                value = "no"  # negative, and no rationale given
            page.locator(
                f".criterion[data-field={field}] label:has(input[value='{value}'])"
            ).click()
            wait_eval_settled(page)
        page.keyboard.press("Escape")
        page.keyboard.press("j")  # next item from the keyboard
    page.keyboard.press("k")
    page.keyboard.press("Control+Enter")
    page.locator("#missing li").first.wait_for()
    text = page.locator("#missing").inner_text()
    assert "Some ratings are missing" not in text
    assert "Not done yet: 1 thing missing" in text
    entry = page.locator(
        "#missing li button", has_text="item 2: Answer accuracy is negative: give a rationale"
    )
    assert entry.count() == 1
    page.keyboard.press("j")  # move away, then jump back through the list
    entry.click()
    assert page.locator("#item-pos").inner_text() == f"Item 2 of {count}"
    assert page.evaluate(
        "document.activeElement.matches('.criterion[data-field=answer_accuracy] input.why')"
    )
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "eval_qa_quality.png")
    page.keyboard.type("The dose in the answer is wrong.")
    page.keyboard.press("Tab")
    wait_eval_settled(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.locator("#status.done").wait_for()
