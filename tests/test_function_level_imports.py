"""Issue 30: no import hides inside a function without saying why. A function-level import
is allowed where a comment on its line or just above it gives the reason (start-up time, an
optional or dialect-specific dependency, a named cycle), or where the module states once,
in a comment starting ``# Imports inside functions:``, why its functions import late (the
command modules: each command loads only what it runs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "annotator"
MODULE_REASON = "# Imports inside functions:"


def unexplained(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if any(line.startswith(MODULE_REASON) for line in text.splitlines()):
        return []
    lines = text.splitlines()
    found = []
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            above = [lines[i].strip() for i in range(max(0, node.lineno - 4), node.lineno - 1)]
            # the comment block right above (other imports of the same block between)
            explained = "#" in lines[node.lineno - 1] or "#" in above[-1] or any(
                line.startswith("#") for line in above[-3:])
            if not explained:
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    return found


def test_every_function_level_import_says_why():
    found = [where for path in sorted(ROOT.rglob("*.py"))
             if "versions" not in path.parts for where in unexplained(path)]
    assert found == []
