"""The one way a page commits: the request's transaction, with the adjudication queue
entries its writers marked settled first (:func:`annotator.operations.work.commit`). A
bare commit on the request's session would leave them stale
(tests/test_adjudication_queue_writers.py greps web/ for one)."""

from __future__ import annotations

from annotator.operations import work
from annotator.web.access import db


def commit_work() -> None:
    """Settle the queue entries the request's writers marked, then commit."""
    work.commit(db())
