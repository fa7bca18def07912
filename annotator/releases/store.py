"""Releases in the database: content-addressed blobs (sha256 -> bytes), one row per release
version with its MANIFEST.json, and the release's files pointing at blobs (issue 31).

Every app server on one database sees the same releases, and a backup of the database
carries them. A version is stored once: the unique (project, version) constraint refuses a
second one, also when two servers cut the same version at the same moment, and the
migration's triggers refuse any UPDATE or DELETE of the three tables.
"""

from __future__ import annotations

import hashlib
import json

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from annotator.models import Project, Release, ReleaseBlob, ReleaseFile

MANIFEST = "MANIFEST.json"


class VersionTaken(Exception):
    """The project has this version already (possibly stored a moment ago elsewhere)."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put_blob(session: Session, data: bytes) -> str:
    """Store ``data`` under its sha256 unless it is there already; the key. An INSERT that
    does nothing on conflict: two servers storing the same file at once both succeed."""
    digest = sha256_hex(data)
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(insert(ReleaseBlob).values(sha256=digest, size=len(data), data=data)
                    .on_conflict_do_nothing(index_elements=["sha256"]))
    return digest


def blob_data(session: Session, digest: str) -> bytes | None:
    """The stored bytes of one blob (read past the session's identity map, so verifying a
    large release does not keep every file in memory)."""
    data = session.execute(select(ReleaseBlob.data).where(ReleaseBlob.sha256 == digest)
                           ).scalar_one_or_none()
    # psycopg2 hands bytea over as a memoryview; everything downstream wants bytes.
    return None if data is None else bytes(data)


def store_release(session: Session, project: Project, version: str, files: dict[str, bytes],
                  manifest: bytes, *, origin: str = "cut") -> Release:
    """Store a release: every file as a blob, the manifest byte for byte. Raises
    :class:`VersionTaken` (and stores nothing) if the project has ``version`` already."""
    created_at = str(json.loads(manifest).get("created_at", ""))
    with session.begin_nested():
        # Inside the savepoint: a refused version leaves no blob of this attempt behind.
        try:
            release = Release(project_id=project.id, version=version, origin=origin,
                              manifest_sha256=put_blob(session, manifest), created_at=created_at)
            session.add(release)
            session.flush()
        except IntegrityError as exc:
            raise VersionTaken(version) from exc
        session.add_all(ReleaseFile(release_id=release.id, name=name,
                                    sha256=put_blob(session, data))
                        for name, data in sorted(files.items()))
        session.flush()
    return release


def find_release(session: Session, project: Project, version: str) -> Release | None:
    return session.scalars(select(Release).where(Release.project_id == project.id,
                                                 Release.version == version)).one_or_none()


def project_releases(session: Session, project: Project) -> list[Release]:
    """The project's releases, newest first."""
    return list(session.scalars(select(Release).where(Release.project_id == project.id)
                                .order_by(Release.created_at.desc(), Release.version.desc())))


def stored_versions(session: Session, project: Project) -> set[str]:
    return set(session.scalars(select(Release.version)
                               .where(Release.project_id == project.id)))


def manifest_bytes(session: Session, release: Release) -> bytes:
    return blob_data(session, release.manifest_sha256) or b""


def file_digests(release: Release) -> dict[str, str]:
    """Name -> blob sha256 of every stored file of the release (the manifest excluded)."""
    return {f.name: f.sha256 for f in release.files}
