"""The README's command table is the CLI's own help (scripts/command_table.py writes it):
a command the CLI has and the table lacks fails here, and so does a speed row without its
benchmark script or the date its figure was taken (issue 31)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
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


def test_every_speed_row_names_its_benchmark_script_and_date():
    rows = table_lines(README.read_text(encoding="utf-8"),
                       "| what | command | measured | result |")
    assert len(rows) >= 10
    for row in rows:
        what, command, measured, _ = row[2:-2].split(" | ", 3)
        scripts = re.findall(r"benchmarks/[\w.-]+\.py", command)
        assert scripts, f"speed row without its script: {what}"
        for name in scripts:
            assert (ROOT / name).is_file(), f"{what}: {name} does not exist"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", measured), f"{what}: no date ({measured!r})"
