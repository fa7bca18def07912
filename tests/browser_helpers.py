"""Driving the annotation page in Chromium (Playwright): the test texts (with astral
characters: offsets count code points), preparing a document and its suggestions, opening
the page, reading the API state, selecting text with a real mouse drag by code-point
offsets, waiting for saves and for the page to handle an input, collecting errors."""

from __future__ import annotations

from contextlib import contextmanager

from annotator.align.text import split_sentences
from annotator.models import Assignment, Suggestion
from tests.waiting import wait_until

# The overgeneration example: a simplification whose last sentence is the model talking
# about its own output (appended text to be marked as such).
OVERGEN_SOURCE = "Children with asthma used the inhaler twice a day for 8 weeks."
OVERGEN_LEAK = "Here is the simplified version: I chose 'rephrase' as the strategy."
OVERGEN_TARGET = "Kids with asthma used an inhaler twice a day for 8 weeks. " + OVERGEN_LEAK


def open_page(page, live_server, assignment_id):
    page.goto(f"{live_server}/assignments/{assignment_id}")
    page.wait_for_selector("#annotate[data-ready='1']")


def api_state(page, live_server, assignment_id):
    return page.request.get(f"{live_server}/api/assignments/{assignment_id}").json()


def watch_errors(page):
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error"
            and not msg.text.startswith("Failed to load resource") else None)
    return errors


def drag_select(page, side: str, start: int, end: int):
    """Select code points [start, end) of one side with a real mouse drag."""
    box = page.evaluate("""async ([side, start, end]) => {
        const m = await import('/static/js/offsets.js');
        const text = document.querySelector(`.text[data-side=${side}]`);
        const range = m.offsetsToRange(text, start, end);
        range.startContainer.parentElement.scrollIntoView({block: 'center'});
        const rects = [...range.getClientRects()].filter(r => r.width > 0);
        const a = rects[0], b = rects[rects.length - 1];
        return [a.left + 2, a.top + a.height / 2, b.right - 2, b.top + b.height / 2];
    }""", [side, start, end])
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, steps=4)
    page.mouse.move(box[2], box[3], steps=4)
    page.mouse.up()


class HeldSave:
    """The first rating save of a page, held at the network until ``release()``: a slow
    server, its first answer still on its way while the test clicks on. ``sent`` collects
    the body of every rating save the page sends (later ones go straight through)."""

    PATTERN = "**/api/assignments/*/ratings"

    def __init__(self, page):
        self.page, self.sent, self.held = page, [], []
        page.route(self.PATTERN, self._route)

    def _route(self, route):
        self.sent.append(route.request.post_data_json)
        if len(self.sent) == 1:
            self.held.append(route)  # answered in release()
        else:
            route.continue_()

    def release(self):
        """Let the held save through and wait for the page's next rating save, which must
        have waited for its answer (it is recorded in ``sent`` as it passes the route)."""
        assert len(self.held) == 1 and len(self.sent) == 1, self.sent
        with self.page.expect_request(self.PATTERN):
            self.held.pop().continue_()


def hold_first_rating_save(page, first_click) -> HeldSave:
    """Hold the first rating save ``first_click()`` makes the page send (see HeldSave)."""
    held = HeldSave(page)
    with page.expect_request(HeldSave.PATTERN):
        first_click()
    return held


def wait_for(page, expression: str, timeout: float = 10.0):
    """Wait, inside the page, until a JS expression is true (Playwright polls it on every
    animation frame). Passed as a function: its text is evaluated once, through the
    debugger; a bare expression would be re-evaluated with eval on every poll, which the
    page's CSP forbids. The timeout is the page's default (tests/conftest.py): only a
    failing wait lasts that long."""
    page.wait_for_function(f"() => ({expression})", timeout=timeout * 1000)


def eventually(read, expected, timeout: float = 10.0):
    """Poll ``read()`` (a look at the server's side, e.g. the database) until it returns
    ``expected``; return it. For effects the page sends on its own after a save (a
    suggestion's accept action follows the save of its edit), which no page state
    reports."""
    seen = []
    wait_until(lambda: seen.append(read()) or seen[-1] == expected, timeout,
               lambda: f"{expected!r} (last read: {seen[-1]!r})")
    return seen[-1]


@contextmanager
def handled_by_page(page, kind: str, count: int = 1, timeout: float = 10.0):
    """Wait, after the block, until the page has handled ``count`` more inputs of ``kind``
    ("key", "selection", "confirm": static/js/handled.js counts them on <html>). For checks
    that an input changed nothing: the count proves the page answered it."""
    attribute = f"handled{kind[0].upper()}{kind[1:]}"
    read = f"Number(document.documentElement.dataset.{attribute} || 0)"
    before = page.evaluate(read)
    yield
    wait_for(page, f"{read} >= {before + count}", timeout)


def wait_settled(page):
    """Wait until every save of the annotation page has gone out and come back."""
    wait_for(page, "window.annotator && !window.annotator.saver.dirty")
    wait_saved(page)


def wait_eval_settled(page):
    """Wait until every rating save of an evaluation page has come back."""
    wait_for(page, "window.evalPage && window.evalPage.pending === 0")


def click_to_load(page, selector: str):
    """Click a link or submit button and wait for the page it loads: reading the old page
    (or the new one before it is parsed) right after a bare click fails under load."""
    with page.expect_navigation():
        page.click(selector)


def wait_saved(page):
    page.wait_for_selector("#save-state[data-state=saved]")


SOURCE = (
    "BACKGROUND: Opioid use after spinal fusion remains high.\r\n"
    "METHODS: In this double-blind, placebo-controlled trial, 124 adults with 𝛼-thalassemia 😀 "
    "received ketamine 0.5\u00a0mg/kg i.v. before surgery. Pain was measured with the "
    "Numeric Rating Scale (NRS) at 2, 24 and 48 h.\r\n"
    "RESULTS: Morphine use at 48 h was 41.3 mg with ketamine vs. 58.7 mg with placebo "
    "(p < 0.001)."
)
TARGET = ("Background: After back surgery, people often need strong painkillers.\r\n"
          "Methods: In this study, adults 😀 got the drug ketamine during the operation. "
          "Their pain was checked with a survey.\r\n"
          "Results: People who got ketamine needed less morphine. "
          "Here is the simplified version: I chose 'rephrase' as the strategy.")


def span(text: str, phrase: str, nth: int = 0) -> tuple[int, int]:
    """Code-point offsets (Python indices) of a phrase."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(phrase, start + 1)
    return start, start + len(phrase)


def prepare(database, assignment_id: int, source: str = SOURCE, target: str = TARGET,
            suggestions: list[dict] = ()) -> dict:
    """Give the assignment's document our texts (with sentence offsets) and suggestions."""
    with database.session() as session:
        assignment = session.get(Assignment, assignment_id)
        doc = assignment.document
        doc.source, doc.target = source, target
        doc.source_sentences = [list(s) for s in split_sentences(source)]
        doc.target_sentences = [list(s) for s in split_sentences(target)]
        ids = []
        for s in suggestions:
            row = Suggestion(document_id=doc.id, method=s.get("method", "test"),
                             score=s.get("score", 0.8), explanation=s.get("explanation", "why"),
                             kind=s["kind"], source_spans=s.get("source_spans", []),
                             target_spans=s.get("target_spans", []), category=s.get("category"),
                             kind_scores=s.get("kind_scores"))
            session.add(row)
            session.flush()
            ids.append(row.id)
        session.commit()
        return {"document_id": doc.id, "suggestions": ids}


def standard_suggestions():
    return [
        {
            "kind": "deletion",
            "source_spans": [list(span(SOURCE, "double-blind, placebo-controlled"))],
            "explanation": "Study-design terms with no counterpart in the simplification",
            "score": 0.91,
        },
        {
            "kind": "oversimplification",
            "source_spans": [list(span(SOURCE, "Numeric Rating Scale (NRS)"))],
            "target_spans": [list(span(TARGET, "a survey"))],
            "explanation": "A named scale became a generic phrase",
            "score": 0.77,
        },
        {
            "kind": "leaked_instruction",
            "target_spans": [
                list(
                    span(
                        TARGET,
                        "Here is the simplified version: I chose 'rephrase' as the strategy.",
                    )
                )
            ],
            "explanation": "Matches a leaked-instruction pattern",
            "score": 0.95,
            "category": "leaked_instruction",
        },
    ]


def add_edit(database, assignment_id, edit_type="deletion", fields=None, spans=()):
    from annotator.models import Edit, Span
    with database.session() as session:
        edit = Edit(assignment_id=assignment_id, edit_type=edit_type, fields=fields or {},
                    spans=[Span(side=side, start=a, end=b) for side, a, b in spans])
        session.add(edit)
        session.commit()
        return edit.id
