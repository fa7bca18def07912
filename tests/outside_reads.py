"""pytest plugin: no test reads outside the repository, and none writes into tests/data.

A fresh clone must stand alone (issue 47): every file a test needs lives in the repository,
so a clone on a machine with nothing beside it passes. An audit hook (PEP 578) sees every
file this process opens; an open under the repository's parent folder but outside the
repository (``../shared/data``, a sibling checkout, ...) raises :class:`OutsideRepository`
at the ``open`` call, so the test fails where it reads, and is also recorded, so a test that
swallows the error still fails at teardown. The interpreter's own folders (a virtual
environment kept beside the checkout) and the temporary folder are not the repository's
neighbours and stay allowed. Opening a file under tests/data for writing is refused the
same way: the study files are read-only (tests copy them into ``tmp_path``).

Commands the tests start in other processes are not watched by the hook; the paths they
are given come from the test modules, which tests/test_outside_reads.py scans for paths that
climb out of the repository.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
STUDY_DATA = REPOSITORY / "tests" / "data"

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class OutsideRepository(RuntimeError):
    """A test opened a file it must not: outside the repository, or tests/data for writing.
    Not an OSError, so code that handles missing files does not take it for one."""


def _folder(path) -> str:
    return os.path.join(os.path.abspath(path), "")


def _allowed_folders() -> tuple[str, ...]:
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, tempfile.gettempdir()}
    folders |= {os.path.realpath(folder) for folder in folders}
    return tuple(_folder(folder) for folder in folders)


REPOSITORY_FOLDER = _folder(REPOSITORY)
NEIGHBOURHOOD = _folder(REPOSITORY.parent)
STUDY_DATA_FOLDER = _folder(STUDY_DATA)
ALLOWED_FOLDERS = _allowed_folders()


def refusal(path, mode=None, flags: int = 0) -> str | None:
    """Why opening ``path`` (with ``open``'s ``mode`` or ``os.open``'s ``flags``) breaks the
    rule, or None when it may be opened."""
    if isinstance(path, int):  # an already open descriptor
        return None
    where = os.path.abspath(os.fsdecode(path))
    if where.startswith(REPOSITORY_FOLDER):
        writes = (any(c in (mode or "") for c in "wax+")
                  or bool((flags or 0) & _WRITE_FLAGS))
        if writes and where.startswith(STUDY_DATA_FOLDER):
            return f"{where}: opened for writing under tests/data (read-only in tests)"
        return None
    if where.startswith(NEIGHBOURHOOD) and not where.startswith(ALLOWED_FOLDERS):
        return (f"{where}: outside the repository {REPOSITORY} (a fresh clone has nothing "
                "beside it; keep test files in tests/data)")
    return None


VIOLATIONS: list[str] = []


def _audit(event: str, args) -> None:
    if event != "open":
        return
    reason = refusal(*args)
    if reason is not None:
        VIOLATIONS.append(reason)
        raise OutsideRepository(reason)


sys.addaudithook(_audit)  # for the life of the process: audit hooks cannot be removed


@pytest.fixture(autouse=True)
def _no_read_outside_repository():
    """Fails the test if it opened a forbidden file, even if it caught the error."""
    before = len(VIOLATIONS)
    yield
    if len(VIOLATIONS) > before:
        found = VIOLATIONS[before:]
        del VIOLATIONS[before:]
        pytest.fail("opened outside the rules:\n" + "\n".join(found), pytrace=False)
