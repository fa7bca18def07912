"""Reading releases back: the list for the release browser and safe file look-up.

A file is served only if it is listed in the release's MANIFEST.json (or is the manifest)
and resolves inside the release folder, so no path can reach anything else on disk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from annotator.core.safe_paths import UnsafePathError, child_path

VERSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def valid_version(version: str) -> bool:
    return bool(VERSION_PATTERN.match(version or "")) and ".." not in version


def project_folder(exports_path: Path, project_slug: str) -> Path:
    """``exports/<slug>``: keyed by the project's unique slug (``Project.slug``)."""
    return child_path(Path(exports_path), project_slug)


def release_folder(exports_path: Path, project_slug: str, version: str) -> Path:
    return child_path(Path(exports_path), project_slug, version)


def list_releases(exports_path: Path, project_slug: str) -> list[dict]:
    """Manifests of the project's releases, newest first."""
    folder = project_folder(exports_path, project_slug)
    if not folder.is_dir():
        return []
    result = []
    for child in folder.iterdir():
        manifest = child / "MANIFEST.json"
        if child.is_dir() and valid_version(child.name) and manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            data["folder"] = str(child)
            result.append(data)
    return sorted(result, key=lambda m: (m.get("created_at", ""), m.get("version", "")),
                  reverse=True)


def release_file(exports_path: Path, project_slug: str, version: str,
                 relative: str) -> Path | None:
    """The path of one listed file of a release, or None."""
    if not valid_version(version):
        return None
    try:
        root = release_folder(exports_path, project_slug, version).resolve()
    except UnsafePathError:
        return None
    manifest = root / "MANIFEST.json"
    if not manifest.is_file():
        return None
    if relative != "MANIFEST.json":
        try:
            listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
        except (OSError, ValueError):
            return None
        if relative not in listed:
            return None
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path
