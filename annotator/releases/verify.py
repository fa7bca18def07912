"""Tamper evidence: every file of a release compared with the sha256 and size its
MANIFEST.json recorded when the release was cut.

A release folder is read-only, but anyone with access to the disk can still change it; a
changed, missing or extra file is reported, and the web app refuses to serve a file that
no longer matches. (The manifest itself has no checksum to compare with: keep a copy of
its sha256, printed by ``annotator release verify``, where the release is cited.)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from annotator.releases.browse import release_folder, valid_version

CHUNK = 1 << 20


@dataclass
class Verification:
    folder: Path
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


def file_matches(path: Path, expected: dict) -> str | None:
    """None if ``path`` has the manifest's size and sha256, else what differs."""
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    if size != expected.get("bytes"):
        return f"{size} bytes, manifest says {expected.get('bytes')}"
    actual = file_sha256(path)
    if actual != expected.get("sha256"):
        return f"sha256 {actual[:16]}…, manifest says {str(expected.get('sha256'))[:16]}…"
    return None


def verify_release(exports_path: Path, project_slug: str, version: str) -> Verification:
    if not valid_version(version):
        return Verification(Path(exports_path), problems=[f"version {version!r}: not a "
                                                          "release version"])
    folder = release_folder(exports_path, project_slug, version)
    result = Verification(folder)
    manifest_path = folder / "MANIFEST.json"
    try:
        raw = manifest_path.read_bytes()
        listed = json.loads(raw)["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        result.problems.append(f"MANIFEST.json: unreadable ({exc.__class__.__name__}: {exc})")
        return result
    result.manifest_sha256 = hashlib.sha256(raw).hexdigest()
    for name, expected in sorted(listed.items()):
        path = folder / name
        if not path.resolve().is_relative_to(folder.resolve()):
            result.problems.append(f"{name}: listed outside the release folder")
            continue
        problem = file_matches(path, expected if isinstance(expected, dict) else {})
        result.checked += 1
        if problem:
            result.problems.append(f"{name}: {problem}")
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    for extra in sorted(on_disk - set(listed) - {"MANIFEST.json"}):
        result.problems.append(f"{extra}: not in the manifest")
    return result


def listed_file_problem(exports_path: Path, project_slug: str, version: str,
                        relative: str) -> str | None:
    """Checked before a download: None if the listed file matches the manifest."""
    if relative == "MANIFEST.json":
        return None
    folder = release_folder(exports_path, project_slug, version)
    try:
        expected = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
        return file_matches(folder / relative, expected[relative])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"manifest unreadable ({exc.__class__.__name__})"
