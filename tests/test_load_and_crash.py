"""Shortened runs of benchmarks/load_test.py: no acknowledged save may be lost and no
stale save accepted, under concurrent annotators and after a SIGKILL of the server.
(The full-length figures are in docs/benchmarks.md.)"""

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "load_test", Path(__file__).resolve().parent.parent / "benchmarks" / "load_test.py")
load_test = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_test)


def test_concurrent_annotators_lose_nothing(database_url):
    result = load_test.run(database_url, annotators=6, seconds=6, workers=2, documents=20)
    assert result["acknowledged_edits"] > 0  # (a count, not a speed: the machine may be busy)
    assert result["statuses"].get("409", 0) > 0  # the deliberate conflicts were refused
    assert result["acknowledged_saves_missing"] == 0
    assert result["stale_saves_accepted"] == 0
    assert "500" not in result["statuses"]
    assert result["logins"]["count"] == 6 and result["healthz"]["probes"] > 0
    assert load_test.failures(result) == []  # what makes the benchmark exit 1
    assert load_test.failures({**result, "statuses": {**result["statuses"], "500": 1},
                               "5xx": result["5xx"] + 1}) == ["responses 500: 1"]


def test_killed_server_keeps_every_acknowledged_save(database_url):
    result = load_test.run(database_url, annotators=4, seconds=8, workers=2, documents=12,
                           crash=True)
    assert result["acknowledged_edits"] > 0  # a count, not a speed (the machine may be busy)
    assert result["acknowledged_saves_missing"] == 0
    assert result["stale_saves_accepted"] == 0
