"""The newest migration revision(s) this code knows, read from the ``revision`` /
``down_revision`` lines of ``annotator/migrations/versions/`` without importing Alembic or
SQLAlchemy: every command compares them with the database's ``alembic_version`` at
start-up, and ``annotator import``'s direct SQLite path (:mod:`annotator.ingest.sqlite_import`)
must not pay SQLAlchemy's import for it (issue 44). ``tests/test_migrations.py`` checks the
head against Alembic's own."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

VERSIONS = Path(__file__).resolve().parent.parent / "migrations" / "versions"


# A module-level ``revision = '0009_jobs'`` or ``down_revision: str | None = None`` line.
_REVISION_LINE = re.compile(r"^(revision|down_revision)\b[^=\n]*=(.*)$", re.MULTILINE)


def _declared_revisions(text: str) -> dict:
    """A version file's ``revision`` and ``down_revision`` values. Only those lines are
    read (parsing every file whole was ~10 ms of each command's start-up, issue 44); a
    value written over several lines sends the file to the full parse."""
    values = {}
    for match in _REVISION_LINE.finditer(text):
        try:
            values[match.group(1)] = ast.literal_eval(match.group(2).strip())
        except (ValueError, SyntaxError):
            return _parsed_revisions(text)
    return values


def _parsed_revisions(text: str) -> dict:
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    values[target.id] = ast.literal_eval(node.value) if target.id in (
                        "revision", "down_revision") else None
    return values


@lru_cache(maxsize=1)
def _revision_graph() -> tuple[frozenset[str], frozenset[str]]:
    """(every revision of ``versions/``, every revision some other names as its
    ``down_revision``), read from the files once per process."""
    revisions, parents = set(), set()
    for path in VERSIONS.glob("*.py"):
        values = _declared_revisions(path.read_text(encoding="utf-8"))
        if "revision" not in values:
            continue
        revisions.add(values["revision"])
        down = values.get("down_revision")
        parents.update([down] if isinstance(down, str) else down or ())
    return frozenset(revisions), frozenset(parents)


def head_revisions() -> set[str]:
    """The newest revision(s) of ``versions/``: those no other revision names as its
    ``down_revision``."""
    revisions, parents = _revision_graph()
    return set(revisions - parents)


def code_heads() -> tuple[str, ...]:
    """The newest revision(s) this code knows, sorted (for /healthz)."""
    return tuple(sorted(head_revisions()))


def code_revisions() -> frozenset[str]:
    """Every revision this code knows."""
    return _revision_graph()[0]
