"""Driving the annotation page in Chromium (Playwright): open it, read the API state,
select text with a real mouse drag by code-point offsets, wait for saves, collect errors."""

from __future__ import annotations

import time


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


def wait_for(page, expression: str, timeout: float = 5.0):
    """Poll a JS expression from Python (wait_for_function would need eval, which the
    page's CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        page.wait_for_timeout(50)


def wait_saved(page):
    page.wait_for_selector("#save-state[data-state=saved]")
