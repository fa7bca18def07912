"""A stored release written out: as a read-only folder (``annotator release export``) or as
one zip streamed to the browser, file by file, with its MANIFEST.json.

Both refuse a release that no longer matches its manifest (:mod:`verify`): what leaves the
database is what was cut. The zip is byte-stable: entries in the manifest's order, each
dated with the release's ``created_at``, so the same release always zips the same.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Iterator

from sqlalchemy.orm import Session

from annotator.models import Project, Release
from annotator.releases.store import MANIFEST, blob_data, file_digests, manifest_bytes


class ExportError(Exception):
    """The export was refused (message says why); nothing was written."""


def release_files(session: Session, release: Release) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the manifest, then of every stored file in name order, one at a
    time (a large release is never held in memory whole)."""
    yield MANIFEST, manifest_bytes(session, release)
    for name, digest in sorted(file_digests(release).items()):
        yield name, blob_data(session, digest) or b""


def write_folder(final: Path, files: Iterator[tuple[str, bytes]]) -> None:
    """Write ``files`` into the new folder ``final``: under a temporary name beside it,
    read-only, then renamed into place, so a half-written folder never appears."""
    if final.exists():
        raise ExportError(f"{final} exists already: choose a new folder")
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        for name, data in files:
            path = staging / name
            if not path.resolve().is_relative_to(staging.resolve()):
                raise ExportError(f"release file name {name!r} leaves the release folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(0o444)
        for sub in sorted({p.parent for p in staging.rglob("*")}, reverse=True):
            sub.chmod(0o555)
        if final.exists():
            raise ExportError(f"{final} appeared meanwhile; refused")
        os.rename(staging, final)
    except BaseException:
        _remove(staging)
        raise


def _remove(path: Path) -> None:
    if path.exists():
        for p in [path, *path.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        shutil.rmtree(path)


def export_folder(session: Session, release: Release, target: Path) -> None:
    write_folder(Path(target), release_files(session, release))


def zip_name(project: Project, version: str) -> str:
    return f"{project.slug}-{version}"


class _Sink:
    """A write-only stream that hands its bytes over in chunks (zipfile writes a
    non-seekable stream with data descriptors, so nothing needs to seek back)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def _zip_time(created_at: str) -> tuple[int, int, int, int, int, int]:
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return (1980, 1, 1, 0, 0, 0)  # the zip format's earliest date
    return (max(moment.year, 1980), moment.month, moment.day, moment.hour, moment.minute,
            moment.second)


def zip_chunks(session: Session, project: Project, release: Release) -> Iterator[bytes]:
    """The release as one zip: ``<slug>-<version>/MANIFEST.json`` and every file under
    that folder, yielded a file at a time."""
    sink = _Sink()
    folder = zip_name(project, release.version)
    when = _zip_time(release.created_at)
    with zipfile.ZipFile(sink, mode="w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in release_files(session, release):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=when)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100444 << 16  # a read-only regular file
            archive.writestr(info, data)
            yield sink.take()
    yield sink.take()
