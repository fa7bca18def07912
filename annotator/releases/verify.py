"""Tamper evidence: every file of a release compared with the sha256 and size its
MANIFEST.json recorded when the release was cut.

The same check runs on a release in the database (:func:`verify_release`) and on a folder
exported from it (:func:`verify_folder`): a changed, missing or extra file is reported, and
the web app refuses to serve a file that no longer matches. In the database the manifest's
own bytes are also checked against the key they were stored under. (Keep a copy of the
manifest's sha256, printed by ``annotator release verify``, where the release is cited.)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sqlalchemy.orm import Session

from annotator.models import Project
from annotator.releases.browse import parsed_manifest, valid_version
from annotator.releases.store import (
    MANIFEST,
    blob_data,
    file_digests,
    find_release,
    manifest_bytes,
    sha256_hex,
)

CHUNK = 1 << 20


@dataclass
class Verification:
    where: str
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    manifest_sha256: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def content_problem(size: int, digest: str, expected: dict) -> str | None:
    """None if ``size`` and ``digest`` are the manifest's, else what differs."""
    if size != expected.get("bytes"):
        return f"{size} bytes, manifest says {expected.get('bytes')}"
    if digest != expected.get("sha256"):
        return f"sha256 {digest[:16]}…, manifest says {str(expected.get('sha256'))[:16]}…"
    return None


def bytes_problem(data: bytes | None, expected: dict) -> str | None:
    if data is None:
        return "missing"
    return content_problem(len(data), sha256_hex(data), expected)


def file_matches(path: Path, expected: dict) -> str | None:
    """None if ``path`` has the manifest's size and sha256, else what differs."""
    if not path.is_file():
        return "missing"
    return content_problem(path.stat().st_size, file_sha256(path), expected)


def _compare(result: Verification, raw: bytes, present: set[str],
             problem_of: Callable[[str, dict], str | None]) -> Verification:
    """Check every file the manifest ``raw`` lists (``problem_of(name, expected)``) and
    report files ``present`` that it does not list."""
    manifest = parsed_manifest(raw)
    listed = manifest.get("files") if manifest else None
    if not isinstance(listed, dict):
        result.problems.append(f"{MANIFEST}: unreadable (no 'files' object)")
        return result
    result.manifest_sha256 = sha256_hex(raw)
    for name, expected in sorted(listed.items()):
        problem = problem_of(name, expected if isinstance(expected, dict) else {})
        result.checked += 1
        if problem:
            result.problems.append(f"{name}: {problem}")
    for extra in sorted(present - set(listed)):
        result.problems.append(f"{extra}: not in the manifest")
    return result


def verify_release(session: Session, project: Project, version: str) -> Verification:
    """Verify a release stored in the database."""
    result = Verification(f"release {version} of {project.name}")
    release = find_release(session, project, version) if valid_version(version) else None
    if release is None:
        result.problems.append(f"release {version!r} of {project.name}: no such release")
        return result
    raw = manifest_bytes(session, release)
    if sha256_hex(raw) != release.manifest_sha256:
        result.problems.append(f"{MANIFEST}: changed since the release was stored (sha256 "
                               f"{sha256_hex(raw)[:16]}…, stored as "
                               f"{release.manifest_sha256[:16]}…)")
    stored = file_digests(release)

    def problem_of(name: str, expected: dict) -> str | None:
        digest = stored.get(name)
        return bytes_problem(None if digest is None else blob_data(session, digest), expected)

    return _compare(result, raw, set(stored), problem_of)


def verify_folder(folder: Path) -> Verification:
    """Verify a release folder on disk (an export, or a folder cut before releases moved
    into the database)."""
    folder = Path(folder)
    result = Verification(str(folder))
    try:
        raw = (folder / MANIFEST).read_bytes()
    except OSError as exc:
        result.problems.append(f"{MANIFEST}: unreadable ({exc.__class__.__name__}: {exc})")
        return result
    root = folder.resolve()

    def problem_of(name: str, expected: dict) -> str | None:
        path = folder / name
        if not path.resolve().is_relative_to(root):
            return "listed outside the release folder"
        return file_matches(path, expected)

    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    return _compare(result, raw, present - {MANIFEST}, problem_of)


def listed_file_problem(session: Session, project: Project, version: str, relative: str,
                        data: bytes) -> str | None:
    """Checked before a download of ``data`` (read by ``browse.release_file``): None if it
    matches the manifest's entry (the manifest itself has none)."""
    if relative == MANIFEST:
        return None
    release = find_release(session, project, version)
    manifest = parsed_manifest(manifest_bytes(session, release)) if release else None
    try:
        return bytes_problem(data, manifest["files"][relative])
    except (KeyError, TypeError) as exc:
        return f"manifest unreadable ({exc.__class__.__name__})"
