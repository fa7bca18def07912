"""Every shell block of README.md and docs/*.md runs as written (issue 47, item 4).

Each ```sh, ```bash, ```shell and ```console block runs in bash (``set -e``: the first failing
command fails the block) from a fresh folder that holds the clone's files (links to them),
on a fresh SQLite database holding the demo (``annotator demo --no-serve``), with no
virtual environment on PATH, as a reader's fresh shell: the docs' convention is to call
``.venv/bin/annotator`` (a test holds every block to it). In a ```console block the
commands are the lines after ``$ `` (and ``> `` continuation lines); the rest is output.

A block that cannot run here carries a marker, an HTML comment on the line right before
its fence, e.g. ``<!-- block: needs-server -->``; MARKERS says what each means. A marked
block is not run: its test id names the marker, and its ``annotator`` commands are still
checked to be commands the CLI has. A block without a marker must run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from annotator.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

MARKERS = {
    "needs-server": "serves (annotator serve, make demo) or starts servers (make test)",
    "needs-postgres": "needs a PostgreSQL server",
    "needs-labelstudio": "needs a Label Studio server",
    "illustrative": "a usage form with placeholders, or files the reader brings",
}
FENCE = re.compile(r"^(\s*)```(sh|bash|shell|console)\s*$")  # also indented, in a list
MARKER = re.compile(r"^<!-- block: ([\w-]+) -->$")
# Commands that never end on their own (they serve, or work a queue): a block with one must
# carry needs-server; the runner refuses to start it rather than wait on it.
SERVES = re.compile(r"\bannotator\s+(?:serve|worker)\b|\bannotator\s+demo\b(?!.*--no-serve)"
                    r"|\bmake\s+(?:demo|test)\b")


@dataclass(frozen=True)
class Block:
    document: Path
    line: int          # of the opening fence
    language: str
    marker: str | None
    body: str

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def script(self) -> str:
        """What bash runs: the body, or a console block's commands."""
        if self.language != "console":
            return self.body
        commands = [line[2:] for line in self.body.split("\n")
                    if line.startswith("$ ") or line.startswith("> ")]
        return "\n".join(commands)


def shell_blocks(document: Path) -> list[Block]:
    lines = document.read_text(encoding="utf-8").split("\n")
    blocks, index = [], 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence:
            indent, end = fence.group(1), index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            assert end < len(lines), f"{document.name}:{index + 1}: block never closed"
            marker = MARKER.match(lines[index - 1].strip()) if index else None
            body = [line[len(indent):] if line.startswith(indent) else line
                    for line in lines[index + 1:end]]
            blocks.append(Block(document, index + 1, fence.group(2),
                                marker.group(1) if marker else None, "\n".join(body)))
            index = end
        index += 1
    return blocks


BLOCKS = [block for document in DOCUMENTS for block in shell_blocks(document)]


def block_id(block: Block) -> str:
    return f"{block.where}[{block.marker or 'runs'}]"


# an ``annotator`` call where a command starts: line start, after ; & | ( do then
CALL = re.compile(r"(?:^|[;&|(]|\bdo|\bthen)[ \t]*((?:\S*/)?annotator)[ \t]+([a-z][\w-]*)",
                  re.MULTILINE)


def annotator_commands(script: str) -> list[str]:
    """The first word after each ``annotator`` call: the top-level command it runs."""
    return [match.group(2) for match in CALL.finditer(script)]


def test_every_block_calls_the_command_in_the_clones_environment():
    """One convention everywhere (issue 47): ``.venv/bin/annotator``, which runs as written
    from the clone's folder after make setup, where a bare ``annotator`` needs an activated
    environment."""
    other = [f"{block.where}: {match.group(1)} {match.group(2)}" for block in BLOCKS
             for match in CALL.finditer(block.script) if match.group(1) != ".venv/bin/annotator"]
    assert other == []
    assert sum(len(annotator_commands(block.script)) for block in BLOCKS) > 80


def demo_database(folder: Path) -> Path:
    """A SQLite file in ``folder`` holding the demo; each block runs on a copy of it."""
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": f"sqlite:///{folder / 'demo.sqlite3'}",
           "ANNOTATOR_INSTANCE_PATH": str(folder / "instance")}
    made = subprocess.run([str(ROOT / ".venv" / "bin" / "annotator"), "demo", "--no-serve"],
                          cwd=folder, env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "demo projects: demo-infoloss" in made.stdout
    return folder / "demo.sqlite3"


def clone_folder(target: Path) -> Path:
    """A folder that looks like the clone's root (links to its files), so relative paths
    in the docs (.venv/bin/activate, tests/data/...) resolve and what a block writes stays
    out of the repository."""
    target.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in (".git", "instance", "exports"):
            (target / entry.name).symlink_to(entry)
    return target


def environment(database: Path, folder: Path) -> dict[str, str]:
    """The test's environment without any virtual environment on PATH."""
    venvs = {str(ROOT / ".venv" / "bin"), os.path.join(sys.prefix, "bin"),
             os.path.realpath(os.path.join(sys.prefix, "bin"))}
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and os.path.realpath(entry) not in {os.path.realpath(v) for v in venvs}]
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env.update(PATH=os.pathsep.join(path), ANNOTATOR_DATABASE_URL=f"sqlite:///{database}",
               ANNOTATOR_INSTANCE_PATH=str(folder / "instance"))
    return env


def test_the_runner_finds_every_block_and_only_known_markers():
    assert len(BLOCKS) >= 20
    assert {block.language for block in BLOCKS} >= {"sh", "console"}
    unknown = [f"{b.where}: {b.marker}" for b in BLOCKS if b.marker and b.marker not in MARKERS]
    assert unknown == [], f"unknown block markers (known: {sorted(MARKERS)})"
    assert any(block.marker is None for block in BLOCKS)


def test_a_bare_annotator_does_not_run_without_the_environment(tmp_path):
    """Why the docs call .venv/bin/annotator: in a fresh shell a bare annotator is not found."""
    env = environment(tmp_path / "none.sqlite3", tmp_path)
    result = subprocess.run(["bash", "-c", "annotator --help"], env=env, cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 127, result.stdout + result.stderr


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker], ids=block_id)
def test_a_marked_block_uses_commands_the_cli_has(block: Block, capsys):
    context = click.Context(cli, info_name="annotator")
    named = annotator_commands(block.script)
    unknown = [name for name in named if cli.get_command(context, name) is None]
    assert unknown == [], f"{block.where}: no such annotator command: {unknown}"
    with capsys.disabled():
        print(f"\n{block.where}: not run ({block.marker}: {MARKERS.get(block.marker)}); "
              f"{len(named)} annotator command(s) exist")


UNMARKED = [block for block in BLOCKS if not block.marker]


def test_no_unmarked_block_serves():
    serving = [block.where for block in UNMARKED if SERVES.search(block.script)]
    assert serving == [], f"{serving}: serve or never end; mark them <!-- block: needs-server -->"


def run_block(block: Block, demo: Path, folder: Path) -> str | None:
    """Run ``block`` as written from a clone-shaped ``folder`` on a copy of the database
    ``demo``; what went wrong (FILE:LINE, exit status, output), or None."""
    clone = clone_folder(folder / "clone")
    database = folder / "database.sqlite3"
    shutil.copyfile(demo, database)
    # -x: bash shows each command before it runs, so a failure names its command
    result = subprocess.run(["bash", "-e", "-x", "-c", block.script], cwd=clone,
                            env=environment(database, clone), capture_output=True, text=True)
    if result.returncode == 0:
        return None
    return (f"{block.where}: the block fails as written (exit {result.returncode}):\n"
            f"{result.stdout}\n{result.stderr}")


def test_the_runner_names_the_failing_block_and_shows_its_output(tmp_path):
    console = Block(ROOT / "docs" / "interop.md", 12, "console", None,
                    "$ for w in one two; do\n>   echo $w\n> done\n"
                    "one\ntwo\n$ .venv/bin/annotator no-such-command\nUsage: annotator ...")
    assert console.script == ("for w in one two; do\n  echo $w\ndone\n"
                              ".venv/bin/annotator no-such-command")
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    message = run_block(console, empty, tmp_path)
    assert message.startswith("docs/interop.md:12: the block fails as written (exit 2):\n")
    assert "one\ntwo\n" in message and "+ .venv/bin/annotator no-such-command" in message
    assert "No such command 'no-such-command'" in message


def test_every_unmarked_block_runs_as_written(tmp_path):
    """One test for all blocks: the demo is made once (about 2.5 min), not once per block
    or per test process."""
    assert len(UNMARKED) >= 4
    demo = demo_database(tmp_path)
    failures = []
    for number, block in enumerate(UNMARKED):
        (tmp_path / f"block-{number}").mkdir()
        failures.append(run_block(block, demo, tmp_path / f"block-{number}"))
    failed = [failure for failure in failures if failure]
    assert failed == [], "\n\n".join(failed)
