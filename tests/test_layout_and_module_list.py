"""Issue 30: the layout tells the data flow. ``study/`` is the foundation and imports no
stage; work spanning stages lives in ``operations/`` above them; docs/architecture.md
lists every module of the tree, each with its own docstring's first sentence."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("ingest", "align", "annotate", "agreement", "adjudication", "evaluation", "interop",
          "releases", "operations", "web", "commands", "app", "cli")


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_foundation_imports_no_stage_anywhere_in_its_code():
    found = {
        (path.name, name)
        for path in (ROOT / "annotator" / "study").glob("*.py")
        for name in imported(path)
        if name.startswith("annotator.") and name.split(".")[1] in STAGES
    }
    assert found == set()


def test_the_architecture_documents_module_list_is_the_tree():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "module_list.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in (ROOT / "annotator").rglob("*.py"):
        relative = path.relative_to(ROOT / "annotator").as_posix()
        if "/versions/" not in relative and path.name != "__init__.py":
            assert f"| `{relative}` |" in doc, relative


def test_test_files_are_named_by_what_they_test():
    """Not by the issue or review round that asked for them (issue 45): a newcomer looks
    for the tests of a subject by its name."""
    import re

    tests = Path(__file__).resolve().parent
    named = [p.name for p in tests.glob("test_*.py")
             if re.search(r"issue\d|round_?(two|three|\d)|hardening_round", p.stem)]
    assert named == []
