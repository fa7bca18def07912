"""Release folders written on disk before releases moved into the database
(``<ANNOTATOR_EXPORTS_PATH>/<slug>/<version>/`` with a MANIFEST.json) are stored in the
database on first use: at start-up of the web app, by ``annotator init`` and by every
``annotator release`` command.

A folder is stored byte for byte as it is found, with origin 'folder': a file changed,
missing or added since the cut stays visible to ``release verify`` exactly as it was on disk.
A version the project has in the database already (cut there, or adopted before, or an
export written back into the exports folder) is left alone. The folders are not removed:
they stay a copy, but the database is what every server reads.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.safe_paths import UnsafePathError
from annotator.models import Project
from annotator.releases.browse import parsed_manifest, project_folder, valid_version
from annotator.releases.store import MANIFEST, VersionTaken, store_release, stored_versions
from annotator.study import audit


def adoptable_folders(exports_path: Path, project: Project, have: set[str]) -> list[Path]:
    try:
        folder = project_folder(exports_path, project.slug)
    except UnsafePathError:
        return []
    if not folder.is_dir():
        return []
    return [child for child in sorted(folder.iterdir())
            if child.is_dir() and valid_version(child.name) and child.name not in have
            and (child / MANIFEST).is_file()]


def adopt_release_folders(session: Session, exports_path: Path) -> list[str]:
    """Store every release folder not in the database yet; ``["<project> <version>", ...]``
    of those stored. A folder whose manifest is not JSON is skipped (and named by
    ``release verify --folder``)."""
    if not Path(exports_path).is_dir():
        return []
    adopted = []
    for project in session.scalars(select(Project).order_by(Project.id)):
        for child in adoptable_folders(exports_path, project,
                                       stored_versions(session, project)):
            manifest = (child / MANIFEST).read_bytes()
            if parsed_manifest(manifest) is None:
                continue
            files = {p.relative_to(child).as_posix(): p.read_bytes()
                     for p in sorted(child.rglob("*")) if p.is_file()}
            files.pop(MANIFEST)
            try:
                store_release(session, project, child.name, files, manifest, origin="folder")
            except VersionTaken:
                continue  # adopted a moment ago by another server starting up
            audit.record(session, "release.adopted", project_id=project.id,
                         object_type="release", object_id=child.name, files=len(files))
            adopted.append(f"{project.name} {child.name}")
    return adopted
