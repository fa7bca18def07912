"""Active time in Chromium against a scripted session with known pauses (issue 43).

The page's clock is Playwright's (page.clock), paused once the page is open: pauses are
moved on, not slept. The server bounds each time report by the wall-clock time since the
previous one (annotate/store.add_time); its clock is moved on with the page's, one second at
a time, so the bound sees the session's time and not the test's few real seconds.
"""

from __future__ import annotations

import re
import time
import types
from datetime import datetime, timedelta

from sqlalchemy import select

from annotator.agreement.html_report import render_html
from annotator.agreement.report import build_report
from annotator.agreement.store import load_agreement_input
from annotator.models import Assignment, Project
from tests.browser_helpers import eventually, open_page
from tests.conftest import browser_login

IDLE_LIMIT = 60  # seconds, timer.js IDLE_AFTER_MS


START = datetime(2026, 3, 2, 9, 0, 0)


class SessionClock:
    """The page's clock and the server's, moved on together. install() before the page
    loads; start() once it is open: the page then sat unattended for an hour (no time of
    its own: the first sign of presence starts the count) and its clock stands still
    between the steps of the script."""

    def __init__(self, page, monkeypatch):
        self.page, self.now = page, 0
        self.server = time.time()
        monkeypatch.setattr("annotator.annotate.store.time",
                            types.SimpleNamespace(time=lambda: self.server))
        # Time reports on their way: each is handled before the clocks move on, so the
        # server sees it at the page's time (a real report arrives a few ms after it is
        # sent; here a few ms of the test are seconds of the page's clock).
        self.reports: set = set()
        page.on("request", lambda r: self.reports.add(r) if "/time" in r.url else None)
        for done in ("requestfinished", "requestfailed"):
            page.on(done, lambda r: self.reports.discard(r))
        page.clock.install(time=START)

    def start(self):
        self.page.clock.pause_at(START + timedelta(hours=1))
        self.server += 3600

    def advance(self, seconds: int):
        for _ in range(seconds):
            self.server += 1  # the server's clock is never behind the page's
            self.page.clock.run_for(1000)
            self.now += 1
            self.page.evaluate("0")  # the page's events so far are seen here
            while self.reports:  # wait on each report's answer: the server has handled it
                self.reports.pop().response()

    def work(self, seconds: int, signs: list[int]):
        """A sign of presence (pointer movement) every second for ``seconds``."""
        for _ in range(seconds):
            self.advance(1)
            self.page.mouse.move(200 + 7 * (self.now % 50), 20 + self.now % 3)
            signs.append(self.now)


def counted(signs: list[int]) -> int:
    """Active seconds of a timeline of signs of presence: every pause between two signs up
    to the idle limit counts in full, a longer one not at all."""
    return sum(b - a for a, b in zip(signs, signs[1:]) if b - a <= IDLE_LIMIT)


def stored_seconds(database, assignment_id) -> float:
    with database.session() as session:
        return round(session.get(Assignment, assignment_id).seconds_spent, 1)


def test_stored_active_time_is_the_scripted_time_without_the_long_pause(
        page, live_server, study, database, monkeypatch):
    aid = study["assignments"]["ana"][0]
    browser_login(page, live_server, "ana")
    clock = SessionClock(page, monkeypatch)
    open_page(page, live_server, aid)
    clock.start()
    signs: list[int] = []
    clock.work(20, signs)
    clock.advance(30)               # reading: a pause within the limit counts
    clock.work(10, signs)
    assert counted(signs) == 59     # from the first sign (at 1) to the last (at 60)
    clock.advance(150)              # away: a pause beyond the limit does not count
    # Reported while away (the pause is decided): the 59 s, not a second of the pause.
    assert eventually(lambda: stored_seconds(database, aid), 59.0) == 59.0
    assert page.locator("#timer").inner_text() == "0:59"
    assert "idle" in page.locator("#timer").get_attribute("class")
    clock.work(5, signs)
    expected = counted(signs)
    assert expected == 63 and clock.now == 215  # 151 s of the 215 s were the long pause
    page.click("#btn-done")         # the time is sent before the document is closed
    page.wait_for_selector("#status.done")
    seconds = stored_seconds(database, aid)
    assert seconds == expected
    # The agreement report's seconds per document are those stored seconds: ana's other
    # two documents, never opened, are no zeros in the median.
    with database.session() as session:
        project = session.scalars(select(Project)).one()
        report = build_report(load_agreement_input(session, project), bootstrap=0)
    assert report["annotators"]["ana"]["median_seconds_per_document"] == seconds
    assert report["annotators"]["ben"]["median_seconds_per_document"] is None
    # The report's table: ana's row ends with those seconds (was "median s/doc 0.00").
    html = render_html(report)
    row = re.search(r"<tr><td>ana</td>(.*?)</tr>", html).group(1)
    assert row.endswith(f'<td class="num">{seconds:.2f}</td>')


def test_time_counts_again_after_reopen_and_not_while_done(page, live_server, study,
                                                          database, monkeypatch):
    aid = study["assignments"]["ana"][0]
    browser_login(page, live_server, "ana")
    clock = SessionClock(page, monkeypatch)
    open_page(page, live_server, aid)
    clock.start()
    signs: list[int] = []
    clock.start()
    clock.work(8, signs)            # 7 s from the first sign to the last
    page.click("#btn-done")
    page.wait_for_selector("#status.done")
    assert stored_seconds(database, aid) == 7
    clock.work(20, [])              # moving about a done document is no work on it
    page.click("#btn-done")         # "Reopen": counts from here
    page.wait_for_selector("#status.in_progress")
    clock.work(12, [])
    page.click("#btn-done")
    page.wait_for_selector("#status.done")
    assert stored_seconds(database, aid) == 7 + 12
