"""Reading releases back: the list for the release browser and safe file look-up.

Releases are read from the database (:mod:`annotator.releases.store`). A file is served only
if the release's MANIFEST.json lists it (or it is the manifest), so no name reaches anything
else. The folder helpers name where a release is exported on disk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sqlalchemy.orm import Session

from annotator.core.safe_paths import child_path
from annotator.models import Project
from annotator.releases.store import (
    MANIFEST,
    blob_data,
    file_digests,
    find_release,
    manifest_bytes,
    project_releases,
)

VERSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def valid_version(version: str) -> bool:
    return bool(VERSION_PATTERN.match(version or "")) and ".." not in version


FIRST_VERSION = "v1.0"


def next_free_version(newest_first: list[str], taken: set[str]) -> str:
    """The version the releases page suggests: the newest version with its last number
    raised by one (``v1.0`` -> ``v1.1``, ``v2`` -> ``v3``, ``2026-05`` -> ``2026-06``;
    ``.1`` appended when it has none), raised again while taken (stored or being built);
    ``v1.0`` for a project without one (issue 43: the page kept suggesting ``v1.0``).
    Versions that are not valid (a job row changed by hand) are passed over; "" when no
    valid version follows (the field is then left empty)."""
    newest = next((v for v in newest_first if valid_version(v)), None)
    base = newest or FIRST_VERSION
    match = re.search(r"(\d+)(?!.*\d)", base)
    if match is None:
        base, match = f"{base}.0", re.search(r"(\d+)$", f"{base}.0")
    head, digits, tail = base[:match.start()], match.group(1), base[match.end():]
    number = int(digits) if newest else int(digits) - 1
    # Bounded: a version near the length limit can only grow past it (v999... -> v1000...),
    # and taken versions are finitely many; with no valid candidate the page suggests none.
    for _ in range(len(taken) + 100):
        number += 1
        candidate = f"{head}{str(number).zfill(len(digits))}{tail}"
        if candidate not in taken and valid_version(candidate):
            return candidate
    return ""


def project_folder(exports_path: Path, project_slug: str) -> Path:
    """``exports/<slug>``: keyed by the project's unique slug (``Project.slug``)."""
    return child_path(Path(exports_path), project_slug)


def release_folder(exports_path: Path, project_slug: str, version: str) -> Path:
    return child_path(Path(exports_path), project_slug, version)


def parsed_manifest(raw: bytes) -> dict | None:
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def list_releases(session: Session, project: Project) -> list[dict]:
    """Manifests of the project's releases, newest first (each with ``version`` set to
    the stored version)."""
    result = []
    for release in project_releases(session, project):
        data = parsed_manifest(manifest_bytes(session, release)) or {}
        data["version"] = release.version
        data.setdefault("files", {})
        result.append(data)
    return result


def release_file(session: Session, project: Project, version: str,
                 relative: str) -> bytes | None:
    """The stored bytes of one listed file of a release (or of its manifest), or None."""
    if not valid_version(version):
        return None
    release = find_release(session, project, version)
    if release is None:
        return None
    raw = manifest_bytes(session, release)
    if relative == MANIFEST:
        return raw
    listed = (parsed_manifest(raw) or {}).get("files")
    if not isinstance(listed, dict) or relative not in listed:
        return None
    digest = file_digests(release).get(relative)
    return None if digest is None else blob_data(session, digest)
