"""The layering the project promises (docs/architecture.md): the pure stages (align/,
agreement/, meta_evaluation/) and the shared concepts (core/) import no web or database
library, directly or through anything they import; only a stage's store.py talks to the
database."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "annotator"
FORBIDDEN = {"flask", "flask_wtf", "werkzeug", "sqlalchemy", "alembic"}
PURE = ("align", "agreement", "core", "meta_evaluation")
# The input boundary's readers and rules outside those folders: every file reader checks a
# whole file with these before anything is stored, so they must not need the database.
PURE_READERS = ("annotator.interop.records", "annotator.annotate.modes",
                "annotator.schemas.answers", "annotator.schemas.files",
                "annotator.evaluation.plainfact")


def _is_store(path: Path) -> bool:
    """A stage's database side: its store.py, or the modules of its store/ package."""
    return path.name == "store.py" or "store" in path.relative_to(PACKAGE).parts[1:-1]


def _pure_files(folder: str) -> list[Path]:
    return [p for p in sorted((PACKAGE / folder).rglob("*.py")) if not _is_store(p)]


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return names


def test_pure_modules_import_no_web_or_database_library():
    offenders = []
    for folder in PURE:
        for path in _pure_files(folder):
            offenders += [(f"{folder}/{path.name}", name) for name in _imports(path)
                          if name.split(".")[0] in FORBIDDEN
                          or name in ("annotator.models", "annotator.db")]
    assert offenders == []


def test_pure_modules_stay_pure_through_what_they_import():
    """Importing every pure module in a fresh interpreter loads no forbidden library."""
    modules = [".".join(("annotator", *p.relative_to(PACKAGE).with_suffix("").parts))
               for folder in PURE for p in _pure_files(folder) if p.stem != "__init__"]
    modules += list(PURE_READERS)
    script = ("import importlib, json, sys\n"
              f"for m in {modules!r}: importlib.import_module(m)\n"
              "loaded = {m.split('.')[0] for m in sys.modules}\n"
              f"print(json.dumps(sorted(loaded & set({sorted(FORBIDDEN)!r}))))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert json.loads(result.stdout) == []


def test_only_store_modules_of_pure_stages_touch_the_database():
    touching = [p for folder in ("align", "agreement") for p in (PACKAGE / folder).rglob("*.py")
                if any(n.split(".")[0] == "sqlalchemy" or n in ("annotator.models", "annotator.db")
                       for n in _imports(p))]
    names = sorted(p.relative_to(PACKAGE).as_posix() for p in touching)
    assert "agreement/store.py" in names and "align/store/__init__.py" in names
    assert all(_is_store(p) for p in touching), names


def test_top_level_keeps_only_the_app_and_its_data_layer():
    """Every other module lives in the folder of its stage or in core/ (issue #15)."""
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__", "__main__", "app", "cli", "config", "db", "models", "wsgi"]
