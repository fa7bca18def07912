"""Tests wait on conditions, not time, and assert no durations (issue 45, item 4; see
docs/tests.md, "Waiting on conditions"). Sleeping or waiting a fixed time proves only that
nothing happened yet, and fails on a busy machine; speed belongs to benchmarks/. The one
place that pauses between looks is tests/waiting.py (``wait_until``)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
WAIT_HELPER = TESTS / "waiting.py"
CLOCKS = {"time", "monotonic", "perf_counter", "process_time", "now", "utcnow",
          "monotonic_ns", "perf_counter_ns", "time_ns"}
TIMED_NAMES = ("elapsed", "duration", "took", "took_seconds")


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return None


def _reads_clock(node: ast.AST, clocked: set[str]) -> bool:
    """Whether an expression reads a clock, or a name assigned from one in this file."""
    return any(_call_name(n) in CLOCKS or (isinstance(n, ast.Name) and n.id in clocked)
               for n in ast.walk(node))


def waits_on_time(source: str) -> list[str]:
    """Line and reason of every sleep, fixed wait, hand-rolled deadline loop and timed
    assertion in one test file's source."""
    tree = ast.parse(source)
    found = []
    clocked = set()  # names holding a clock reading or a difference of them
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _call_name(node.value) in CLOCKS | {None} \
                and _reads_clock(node.value, set()):
            clocked.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        name = _call_name(node)
        if name == "sleep":
            found.append(f"{node.lineno}: sleep()")
        elif name == "wait_for_timeout":
            found.append(f"{node.lineno}: wait_for_timeout()")
        elif isinstance(node, ast.ImportFrom) and node.module in ("time", "asyncio") and any(
                alias.name == "sleep" for alias in node.names):
            found.append(f"{node.lineno}: imports sleep")
        elif isinstance(node, ast.While) and _reads_clock(node.test, clocked):
            found.append(f"{node.lineno}: a loop until a deadline (use tests/waiting.py)")
        elif isinstance(node, ast.Assert):
            for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
                ordered = any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                              for op in compare.ops)
                operands = [compare.left, *compare.comparators]
                timed = any(_reads_clock(o, clocked) or any(
                    isinstance(n, ast.Name) and n.id.lower() in TIMED_NAMES
                    for n in ast.walk(o)) for o in operands)
                if ordered and timed:
                    found.append(f"{node.lineno}: asserts a duration")
    return sorted(found, key=lambda problem: int(problem.split(":")[0]))


def test_no_test_sleeps_waits_a_fixed_time_or_asserts_a_duration():
    found = {
        path.relative_to(TESTS).as_posix(): problems
        for path in sorted(TESTS.rglob("*.py"))
        if path != WAIT_HELPER and "data" not in path.relative_to(TESTS).parts
        and (problems := waits_on_time(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_rule_sees_each_way_of_waiting_on_time():
    source = '''
import time
from time import sleep
from asyncio import sleep as nap

def test_x(page):
    time.sleep(0.3)
    page.wait_for_timeout(200)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pass
    start = time.perf_counter()
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0
    assert time.perf_counter() - start < 20
    assert 0 < duration
'''
    assert [line.split(":")[0] for line in waits_on_time(source)] == [
        "3", "4", "7", "8", "10", "14", "15", "16"]


def test_the_rule_lets_conditions_events_and_clock_free_bounds_pass():
    source = '''
def test_y(page, thread, ready, seconds, server):
    page.wait_for_function("() => window.ready")
    wait_until(lambda: server.answers(), 60, "the server")
    assert ready.wait(30)
    thread.join(timeout=30)
    assert 2 <= seconds <= 6
    assert duration(725) == "12 min 5 s"
    assert server.time.time() == 5
'''
    assert waits_on_time(source) == []
