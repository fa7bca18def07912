"""Every extension point's registry is documented (issue 45, item 3): each task mode, job
kind, file format and pre-highlighter has a row in docs/extending.md, each variable the
settings object reads a row in docs/configuration.md, and each command-line option a row
in docs/cli.md; and no row names something no longer registered."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.annotate.modes import MODES
from annotator.config import VARIABLES
from annotator.core.records import FORMATS, ROW_READERS
from annotator.core.vocabulary import JOB_KINDS, PREHIGHLIGHTERS, SUGGESTION_KINDS, TASK_MODES
from annotator.interop import ANNOTATION_FORMATS
from annotator.interop.exporting import EXPORTERS
from annotator.interop.importing import READERS
from annotator.operations.job_kinds import RUNNERS

ROOT = Path(__file__).resolve().parents[1]
EXTENDING = ROOT / "docs" / "extending.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|")


def table_names(text: str, section: str | None, column: str) -> list[str]:
    """The names in the first column (`name`) of the table headed ``| column |`` inside
    section ``## section`` of ``text`` (the whole text when ``section`` is None)."""
    if section is not None:
        heading = f"\n## {section}\n"
        assert heading in text, f"no section {section!r}"
        text = text.split(heading, 1)[1].split("\n## ", 1)[0]
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith(f"| {column} |"):
            inside = True
        elif inside and line.startswith("|"):
            found = ROW.match(line)
            if found:
                names.append(found.group(1))
        elif inside:
            break
    assert inside, f"no table headed {column!r} in {section!r}"
    return names


def difference(registered, documented) -> dict[str, list[str]]:
    return {"undocumented": sorted(set(registered) - set(documented)),
            "documented but not registered": sorted(set(documented) - set(registered))}


NOTHING = {"undocumented": [], "documented but not registered": []}

REGISTRIES = [
    ("Task modes", "mode", MODES),
    ("Background job kinds", "job kind", RUNNERS),
    ("Document formats", "format", ROW_READERS),
    ("Annotation formats (in)", "format", READERS),
    ("Annotation formats (out)", "format", EXPORTERS),
    ("Pre-highlighters", "pre-highlighter", PREHIGHLIGHTERS),
    ("Pre-highlighters", "suggestion kind", SUGGESTION_KINDS),
]


@pytest.mark.parametrize("section,column,registry", REGISTRIES,
                         ids=[f"{s}: {c}" for s, c, _ in REGISTRIES])
def test_every_registered_name_has_a_row_in_extending(section, column, registry):
    documented = table_names(EXTENDING.read_text(encoding="utf-8"), section, column)
    assert difference(registry, documented) == NOTHING
    assert len(documented) == len(set(documented)), "a name listed twice"


def test_the_registries_agree_with_the_vocabulary_lists():
    """The short lists other code checks names against (schema `mode:`, `jobs.enqueue`,
    the import command's choices) name exactly the registered entries."""
    assert tuple(MODES) == TASK_MODES and tuple(RUNNERS) == JOB_KINDS
    assert tuple(READERS) == ANNOTATION_FORMATS and tuple(ROW_READERS) == FORMATS


def test_every_setting_has_a_row_in_configuration():
    documented = table_names(CONFIGURATION.read_text(encoding="utf-8"), None, "variable")
    assert difference([v.name for v in VARIABLES], documented) == NOTHING


def test_every_command_line_option_is_in_cli_md_with_its_help():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"),
                           "--check"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_a_missing_row_is_found(tmp_path):
    """The check itself: a page without one of the modes, and with one never registered."""
    text = EXTENDING.read_text(encoding="utf-8").replace(
        "| `plaba` |", "| `plaba-2` |", 1)
    documented = table_names(text, "Task modes", "mode")
    assert difference(MODES, documented) == {"undocumented": ["plaba"],
                                             "documented but not registered": ["plaba-2"]}


def test_an_option_without_help_fails_the_cli_check(tmp_path):
    """scripts/cli_reference.py --check, run over a CLI with one option lacking help."""
    package = tmp_path / "annotator"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "cli.py").write_text(
        "import click\n\n\n@click.group()\ndef main():\n    pass\n\n\n"
        "@main.command()\n@click.option('--fast', is_flag=True)\ndef run(fast):\n"
        "    '''Run.'''\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"),
                           "--check"], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1
    assert "options without help text: annotator run [--fast]" in done.stderr
