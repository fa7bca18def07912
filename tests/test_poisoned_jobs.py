"""Issue 41, finding 7: a job row whose payload (or result) cannot be read fails that job
with the reason, and the worker goes on to the next job, in `annotator worker` and in the
server's worker thread; the pages that list jobs render such rows instead of a 500.

The rows are poisoned the way the probe did it: the stored JSON rewritten by hand in the
real database (SQLite, or PostgreSQL with ANNOTATOR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from annotator.cli import main
from annotator.models import Job, User
from annotator.operations.worker import Worker, start_in_thread
from annotator.study import jobs
from annotator.study.projects import create_project
from tests.conftest import login
from tests.helpers import poison_job_json
from tests.waiting import wait_until

HUGE_NUMBER = "1" * 5000
# (name, stored text, what the failed job's reason says)
POISONS = [
    ("not JSON", '{"version": "v1", ', "not valid JSON"),
    ("a 5,000-digit number", '{"version": "v1", "user_id": ' + HUGE_NUMBER + "}",
     "5000 digits"),
    ("a list, not an object", '["v1"]', "a JSON list, not an object"),
    ("a bare string", '"v1"', "a JSON string, not an object"),
]


@pytest.fixture
def project_id(database, users):
    with database.session() as session:
        return create_project(session, "alpha", "infolossqa",
                              leads=[session.get(User, users["lee"])]).id


def _queue(database, project_id: int, kind: str, version: str | None = None) -> int:
    with database.session() as session:
        payload = {"version": version} if version else {}
        return jobs.enqueue(session, kind, project_id, payload, key=version).id


def _states(database) -> dict[int, tuple[str, str]]:
    with database.engine.connect() as connection:
        return {row.id: (row.state, row.error) for row in connection.execute(
            select(Job.id, Job.state, Job.error))}


def _poisoned_then_good(database, project_id: int) -> tuple[dict[int, str], int]:
    """One release job per poison (those the database accepts), then a good job of the
    same project; ({job id: expected reason}, the good job's id)."""
    poisoned = {}
    for index, (_name, raw, reason) in enumerate(POISONS):
        job_id = _queue(database, project_id, "release", f"v{index}")
        if poison_job_json(database, job_id, raw):
            poisoned[job_id] = reason
        else:  # only PostgreSQL refuses non-JSON text, and only that poison
            assert database.engine.dialect.name == "postgresql" and reason == "not valid JSON"
            with database.engine.begin() as connection:
                connection.execute(text("DELETE FROM jobs WHERE id = :id"), {"id": job_id})
    good = _queue(database, project_id, "queue-refresh")
    return poisoned, good


def _assert_failed_with_reasons(database, poisoned: dict[int, str], good: int) -> None:
    states = _states(database)
    for job_id, reason in poisoned.items():
        state, error = states[job_id]
        assert state == "failed", (job_id, states[job_id])
        assert "payload" in error and reason in error, error
        assert len(error) < 400  # a bounded reason, not the 5,000 digits
    assert states[good][0] == "done", states[good]


def test_the_worker_fails_each_unreadable_job_and_runs_the_next(database, project_id):
    poisoned, good = _poisoned_then_good(database, project_id)
    assert len(poisoned) >= 3
    ran = Worker(database, poll_seconds=0.1).run(once=True)
    _assert_failed_with_reasons(database, poisoned, good)
    assert ran == 1  # the good job; the poisoned ones were failed, not run


def test_annotator_worker_command_survives_poisoned_jobs(env, database, project_id):
    poisoned, good = _poisoned_then_good(database, project_id)
    result = CliRunner().invoke(main, ["worker", "--once"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "stopped after 1 job" in result.output
    _assert_failed_with_reasons(database, poisoned, good)


def test_the_servers_worker_thread_survives_poisoned_jobs(database, project_id):
    poisoned, good = _poisoned_then_good(database, project_id)
    worker, thread = start_in_thread(database, poll_seconds=0.05)
    def good_job_finished() -> bool:
        assert thread.is_alive(), "the worker thread died"
        return _states(database)[good][0] in ("done", "failed")

    try:
        wait_until(good_job_finished, 120, lambda: f"the good job to finish: {_states(database)}")
        assert thread.is_alive()
    finally:
        worker.stop()
        thread.join(timeout=30)
    _assert_failed_with_reasons(database, poisoned, good)


def test_a_poisoned_payload_never_blocks_queueing_the_same_work(database, project_id):
    """A queued job with an unreadable payload holds the dedupe key of its work: queueing
    that work again gives the queued job back instead of failing on the payload."""
    job_id = _queue(database, project_id, "release", "v1")
    assert poison_job_json(database, job_id, '{"version": ' + HUGE_NUMBER + "}")
    assert _queue(database, project_id, "release", "v1") == job_id


def test_pages_listing_jobs_render_poisoned_and_odd_rows(client, database, project_id):
    """Queued and failed rows with unreadable payloads and results, an unknown kind, and
    progress beyond its total: the project page, the releases page (and its status JSON)
    and the set-up page with its pre-highlight status answer 200 and show the rows."""
    queued = _queue(database, project_id, "release", "v1")
    assert poison_job_json(database, queued, '{"version": ' + HUGE_NUMBER + "}")
    failed = _queue(database, project_id, "release", "v2")
    assert poison_job_json(database, failed, '["v2"]')
    prehighlight = _queue(database, project_id, "prehighlight")
    assert poison_job_json(database, prehighlight, '{"documents": ' + HUGE_NUMBER + "}", "result")
    odd = _queue(database, project_id, "refit")
    with database.engine.begin() as connection:
        connection.execute(text("UPDATE jobs SET state = 'failed', error = 'broke', "
                                "dedupe_key = NULL WHERE id IN (:a, :b)"),
                           {"a": failed, "b": prehighlight})
        connection.execute(text("UPDATE jobs SET kind = 'no-such-kind', progress_done = 9, "
                                "progress_total = 3 WHERE id = :id"), {"id": odd})
    login(client, "lee")
    page = client.get(f"/projects/{project_id}")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    for job_id in (queued, failed, prehighlight, odd):
        assert f'data-job="{job_id}"' in body
    assert 'data-kind="no-such-kind"' in body
    releases = client.get(f"/projects/{project_id}/releases")
    assert releases.status_code == 200
    assert "payload unreadable" in releases.get_data(as_text=True)
    status = client.get(f"/projects/{project_id}/releases/status")
    assert status.status_code == 200
    shown = {row["job"]: row for row in status.get_json()["in_progress"]}
    assert set(shown) == {queued, failed}
    assert shown[failed]["error"] == "broke" and shown[queued]["state"] == "queued"
    assert client.get(f"/projects/{project_id}/setup").status_code == 200
    run = client.get(f"/projects/{project_id}/prehighlight/status")
    assert run.status_code == 200
    last = run.get_json()["last_run"]
    assert last["error"] == "broke" and last["documents"] is None


def test_a_readable_payload_of_the_wrong_shape_fails_its_job_with_the_field(database,
                                                                           project_id):
    """JSON objects a release job cannot use (no version, a number for the version): the
    job fails naming the field, and the next job runs."""
    shapes = {}
    for version, raw in (("v1", '{"notes": "no version"}'), ("v2", '{"version": 5}')):
        job_id = _queue(database, project_id, "release", version)
        assert poison_job_json(database, job_id, raw)
        shapes[job_id] = raw
    good = _queue(database, project_id, "queue-refresh")
    Worker(database, poll_seconds=0.1).run(once=True)
    states = _states(database)
    for job_id in shapes:
        state, error = states[job_id]
        assert state == "failed" and "payload: 'version' is" in error, states[job_id]
    assert "'version' is None" in states[min(shapes)][1]
    assert "'version' is 5" in states[max(shapes)][1]
    assert states[good][0] == "done"
