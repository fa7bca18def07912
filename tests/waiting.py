"""The one place tests wait (issue 45: no test sleeps): poll a condition until it holds,
or fail saying what was awaited. For what only an outside look can see (a server
starting, a row a worker writes, a request that lands after the page is gone); where a
real event exists (a subprocess's exit, a threading.Event, a Playwright request or
selector) tests wait on that instead. tests/test_test_rules.py keeps sleeps out of
every other test file."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float, what: str | Callable[[], str],
               interval: float = 0.05) -> T:
    """Call ``condition`` until it returns something truthy and return that; after
    ``timeout`` seconds raise AssertionError naming ``what`` (a string, or a function
    that describes the last thing seen). The pause between calls is ``interval``."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout:g} s waiting for {described}")
        time.sleep(interval)
