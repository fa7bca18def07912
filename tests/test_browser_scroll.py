"""Synchronised scrolling follows the stored sentence alignment, not the text lengths."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Document, User
from annotator.study.projects import create_project
from tests.conftest import browser_login
from tests.helpers import write_jsonl

pytestmark = pytest.mark.browser


@pytest.fixture
def long_pair(database, users, tmp_path):
    """40 source sentences; the simplification opens with 10 extra (unaligned) sentences
    of background, then renders source sentence i as target sentence i + 10."""
    source = " ".join(f"Source sentence {i} reports outcome {i} in detail for the trial arm."
                      for i in range(40))
    extra = " ".join(f"Background sentence {j} explains a term." for j in range(10))
    target = extra + " " + " ".join(f"Plain sentence {i} about outcome {i}." for i in range(40))
    with database.session() as session:
        project = create_project(session, "scroll", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "s.jsonl", [
            {"id": "long", "source": source, "target": target}]))
        assign_documents(session, project, ["ana", "ben"])
        doc = session.query(Document).filter_by(external_id="long").one()
        assert len(doc.source_sentences) == 40 and len(doc.target_sentences) == 50
        doc.alignment = [[[i], [i + 10]] for i in range(40)]
        return doc.assignments[0].id if doc.assignments[0].user_id == users["ana"] \
            else doc.assignments[1].id


# Distance of sentence `index` from the top of its panel's visible area, in pixels.
OFFSET = """(side, index) => {
    const scroller = document.querySelector(`.scroller[data-side=${side}]`);
    const el = scroller.querySelector(`.sentence[data-i="${index}"]`);
    return el.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
}"""


def sentence_offset(page, side, index):
    return page.evaluate(f"([side, index]) => ({OFFSET})(side, index)", [side, index])


def settled_offsets(page, index, timeout=5.0):
    """Offsets of source sentence ``index`` and of its aligned target sentence, once they
    sit within a line of each other (waited for inside the page) or ``timeout`` passes: the
    target panel follows on the scroll event, which a busy browser handles later."""
    try:
        page.wait_for_function(
            f"(index) => Math.abs(({OFFSET})('source', index) - ({OFFSET})('target', index + 10))"
            " < 40", arg=index, timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        pass  # the caller's assertion says where they sat
    return sentence_offset(page, "source", index), sentence_offset(page, "target", index + 10)


def test_scrolling_the_original_brings_the_aligned_sentence_alongside(page, live_server,
                                                                      long_pair):
    page.set_viewport_size({"width": 1440, "height": 700})
    browser_login(page, live_server, "ana")
    page.goto(f"{live_server}/assignments/{long_pair}")
    page.wait_for_selector("#annotate[data-ready='1']")
    for index in (20, 30):
        page.evaluate(
            """(index) => {
                const scroller = document.querySelector('.scroller[data-side=source]');
                const el = scroller.querySelector(`.sentence[data-i="${index}"]`);
                const top = el.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
                scroller.scrollTop += top - scroller.clientHeight * 0.3 + 2;
            }""", index)
        source_y, target_y = settled_offsets(page, index)
        # The aligned sentence (index + 10) sits on the same reading line, within a line.
        assert abs(source_y - target_y) < 40, (index, source_y, target_y)
        # Proportional scrolling would have put a different sentence there.
        assert abs(sentence_offset(page, "target", index) - source_y) > 100
