"""A fresh clone stands alone (issue 47): no test or benchmark reads outside the repository,
and tests/data is read-only in tests. The guard is tests/outside_reads.py (an audit hook on
every file the test process opens); these tests show that it bites, and scan the code that
runs in other processes (commands, benchmarks, scripts) for paths that climb out."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import outside_reads
from tests.outside_reads import REPOSITORY, STUDY_DATA, OutsideRepository, refusal

SIBLING = REPOSITORY.parent / "not-part-of-this-repository" / "data.json"


def test_the_rule_allows_the_repository_and_refuses_its_neighbours(tmp_path):
    assert refusal(str(REPOSITORY / "README.md"), "r") is None
    assert refusal(str(STUDY_DATA / "thresh-salsa" / "salsa.json"), "r") is None
    assert refusal(str(tmp_path / "out.json"), "w") is None
    assert refusal(os.path.join(sys.prefix, "pyvenv.cfg"), "r") is None
    assert refusal(3, "r") is None  # an open descriptor names no file
    climbing = str(REPOSITORY / "tests" / ".." / ".." / "shared" / "data" / "x.json")
    assert refusal(climbing, "r") == (
        f"{REPOSITORY.parent / 'shared' / 'data' / 'x.json'}: outside the repository "
        f"{REPOSITORY} (a fresh clone has nothing beside it; keep test files in tests/data)")
    assert refusal(str(SIBLING).encode(), None, os.O_RDONLY).startswith(f"{SIBLING}: outside")
    for mode, flags in (("w", 0), ("a", 0), ("r+", 0), (None, os.O_WRONLY | os.O_CREAT)):
        assert refusal(str(STUDY_DATA / "README.md"), mode, flags) == (
            f"{STUDY_DATA / 'README.md'}: opened for writing under tests/data "
            "(read-only in tests)")


def test_a_read_outside_the_repository_is_caught_where_it_happens():
    before = len(outside_reads.VIOLATIONS)
    with pytest.raises(OutsideRepository, match=re.escape(str(SIBLING))):
        SIBLING.read_text(encoding="utf-8")
    # recorded too (the autouse guard would fail this test on it; taken back here)
    assert outside_reads.VIOLATIONS[before:] == [refusal(str(SIBLING), "r")]
    del outside_reads.VIOLATIONS[before:]


def test_tests_data_cannot_be_written():
    target = STUDY_DATA / "README.md"
    content = target.read_bytes()
    before = len(outside_reads.VIOLATIONS)
    with pytest.raises(OutsideRepository, match="read-only in tests"):
        with open(target, "a", encoding="utf-8") as handle:
            handle.write("changed by a test\n")
    del outside_reads.VIOLATIONS[before:]
    assert target.read_bytes() == content


def test_a_test_that_swallows_the_error_still_fails_its_session(tmp_path):
    """A whole pytest session with the plugin: the test catches the error, the run fails
    anyway and names the file."""
    (tmp_path / "test_sneaky.py").write_text(
        "def test_reads_beside_the_checkout():\n"
        "    try:\n"
        f"        open({str(SIBLING)!r}).read()\n"
        "    except Exception:\n"
        "        pass\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.outside_reads", "-p", "no:xdist",
         "-p", "no:cacheprovider", "-q", str(tmp_path / "test_sneaky.py")],
        cwd=REPOSITORY, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 passed, 1 error" in result.stdout
    assert f"{SIBLING}: outside the repository" in result.stdout


# Paths that climb out of the repository, in code whose file reads the hook cannot see
# (benchmarks, and the arguments tests hand to commands run in other processes); SHARED_DATA
# is the old name of the folder beside the checkout (now tests/helpers.py STUDY_DATA).
CLIMBING_PYTHON = re.compile(
    r"parents\[\s*[2-9]|\.parent\.parent\.parent|\.parents\b(?!\s*\[)"
    r"|\.\./shared|shared/data|[\"']shared[\"']\s*/\s*[\"']data[\"']|SHARED_DATA")
CLIMBING_SHELL = re.compile(r"\.\./\.\.|\.\./shared|shared/data|SHARED_DATA")
# the guard and this test name the patterns they look for
SCANNERS = {Path(outside_reads.__file__).resolve(), Path(__file__).resolve()}


def climbing_lines(paths, pattern) -> list[str]:
    found = []
    for path in paths:
        if path.resolve() in SCANNERS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(REPOSITORY)}:{number}: {line.strip()}")
    return found


def test_no_test_benchmark_or_script_names_a_path_outside_the_repository():
    python = sorted((REPOSITORY / "tests").rglob("*.py")) + sorted(
        (REPOSITORY / "benchmarks").rglob("*.py")) + sorted((REPOSITORY / "scripts").glob("*.py"))
    shell = sorted((REPOSITORY / "scripts").glob("*.sh")) + [
        REPOSITORY / "Makefile", REPOSITORY / ".ci" / "run"]
    assert len(python) > 150 and all(path.is_file() for path in shell)
    assert climbing_lines(python, CLIMBING_PYTHON) == []
    assert climbing_lines(shell, CLIMBING_SHELL) == []


def test_the_scan_finds_a_climbing_path():
    lines = ['DATA = Path(__file__).resolve().parents[2] / "shared" / "data"',
             'SALSA = next(p for p in Path(__file__).resolve().parents if p.name == "x")',
             'ROOT = Path(__file__).resolve().parents[1]']
    lines.append("    from tests.helpers import SHARED_DATA")
    assert [bool(CLIMBING_PYTHON.search(line)) for line in lines] == [True, True, False, True]
    assert CLIMBING_SHELL.search("DATA=../shared/data") and not CLIMBING_SHELL.search(
        'ROOT=$(cd "$(dirname "$0")/.." && pwd)')
