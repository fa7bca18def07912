"""Annotation page readiness in a real browser: from navigation to the page marking itself
ready (``#annotate[data-ready='1']``: payload fetched, texts, suggestions and edits drawn),
in Debian's Chromium (headless, Playwright), on the same document as
``bench_annotate_page.py`` (600-token pair, 50 suggestions, 20 edits).

    .venv/bin/python benchmarks/bench_page_ready.py [--rounds 30]

Prints p50/p95 in milliseconds. Run it beside the same script of another checkout, in
turns, to compare two versions of the page (the figures depend on the machine's load).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_annotate_page import PASSWORD, build, percentiles  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        app, aid, _ = build(Path(folder))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        page.goto(f"{base}/login")
        page.fill("input[name=username]", "ann")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        samples = []
        for number in range(args.rounds + 3):
            start = time.perf_counter()
            page.goto(f"{base}/assignments/{aid}")
            page.wait_for_selector("#annotate[data-ready='1']")
            if number >= 3:  # the first loads fill the browser's caches
                samples.append(time.perf_counter() - start)
        print(f"page ready (browser, /assignments/{aid})  {percentiles(samples)}")
        browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
