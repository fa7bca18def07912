"""The README's command table is the CLI's own help (scripts/command_table.py writes it):
a command the CLI has and the table lacks fails here, and so does a row of
docs/benchmarks.md without its benchmark script or the date its figure was taken (issue 31;
the figures left the README for docs/benchmarks.md in issue 45)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS_DOC = ROOT / "docs" / "benchmarks.md"
BENCHMARK_HEADER = "| what | command | measured | machine | result |"
SCRIPT = ROOT / "scripts" / "command_table.py"


def script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, cwd=ROOT)


def table_lines(text: str, header: str) -> list[str]:
    lines = text.split("\n")
    start = lines.index(header) + 2
    end = start
    while end < len(lines) and lines[end].startswith("| "):
        end += 1
    return lines[start:end]


def test_every_command_of_the_cli_is_in_the_readme_table():
    paths = script("--paths")
    assert paths.returncode == 0, paths.stderr
    commands = paths.stdout.split("\n")
    assert {"release verify", "release export", "user password", "user deactivate",
            "labelstudio push", "labelstudio pull", "backup", "restore"} <= set(commands)
    rows = table_lines(README.read_text(encoding="utf-8"), "| command | what it does |")
    listed = [re.match(r"\| `annotator ([^`]*)`", row).group(1) for row in rows]
    missing = [c for c in commands if c and not any(
        shown == c or shown.startswith(f"{c} ") for shown in listed)]
    assert missing == [], f"README.md: commands missing from the table: {missing}"


def test_the_readme_table_is_what_the_script_writes_from_the_help():
    check = script("--check")
    assert check.returncode == 0, check.stderr


def benchmark_tables(text: str) -> list[list[str]]:
    """The rows of every table of docs/benchmarks.md headed BENCHMARK_HEADER."""
    lines = text.split("\n")
    return [table_lines("\n".join(lines[start:]), BENCHMARK_HEADER)
            for start, line in enumerate(lines) if line == BENCHMARK_HEADER]


def test_every_speed_row_names_its_benchmark_script_and_date():
    """One dated table per benchmark in docs/benchmarks.md: every row names the script that
    measured it (which exists), the date, and the machine."""
    tables = benchmark_tables(BENCHMARKS_DOC.read_text(encoding="utf-8"))
    assert len(tables) >= 10 and all(tables)
    rows = [row for table in tables for row in table]
    assert len(rows) >= 20
    for row in rows:
        what, command, measured, machine, _ = row[2:-2].split(" | ", 4)
        scripts = re.findall(r"benchmarks/[\w.-]+\.py", command)
        assert scripts, f"speed row without its script: {what}"
        for name in scripts:
            assert (ROOT / name).is_file(), f"{what}: {name} does not exist"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", measured), f"{what}: no date ({measured!r})"
        assert machine.strip(), f"{what}: no machine"


def test_the_readme_quotes_no_benchmark_figures():
    """The figures live in docs/benchmarks.md; the README links there instead of keeping a
    speed table of its own."""
    text = README.read_text(encoding="utf-8")
    assert "| what | command | measured |" not in text
    assert "docs/benchmarks.md" in text
