"""A shortened run of benchmarks/load_logins_and_saves.py (issue 41's load run): `annotator
serve` as a subprocess, simultaneous logins while annotators save; no 5xx, logins 302 /
401 / 429, no acknowledged save lost, stale saves 409. (The two-minute figures with 50
logins and 20 annotators are in docs/benchmarks.md.)"""

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
spec = importlib.util.spec_from_file_location(
    "load_logins_and_saves", BENCHMARKS / "load_logins_and_saves.py")
load_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_run)


def test_a_short_load_run_passes_its_checks():
    result = load_run.run(seconds=10, annotators=2, logins=8, documents=4)
    assert load_run.failures(result) == [], result
    assert result["login_bursts"] >= 1 and result["logins"] == 8 * result["login_bursts"]
    assert result["acknowledged_edits"] > 0  # a count, not a speed (the machine is shared)
    assert result["stale_save_statuses"].get("409", 0) > 0  # the stale saves were sent


def test_the_checks_name_what_failed():
    """The checks read the figures they speak of: a 500, a login answered 200, a lost save
    and an accepted stale save are each named."""
    bad = {"5xx": 1, "connection_errors": {}, "login_outcomes": {"200": 1, "302": 3},
           "logins": 4, "acknowledged_edits": 5, "acknowledged_saves_missing": 2,
           "stale_save_statuses": {"200": 1, "409": 4}, "stale_saves_accepted": 1,
           "server_tracebacks": 0}
    problems = " | ".join(load_run.failures(bad))
    assert "1 answers 5xx" in problems and "'200': 1" in problems
    assert "2 acknowledged saves missing" in problems and "1 accepted" in problems
