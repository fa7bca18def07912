"""Versioned gold releases: an immutable folder ``<exports>/<project>/<version>/`` holding
the gold set, every annotator's raw work, the agreement report, the schema and guideline
as used, and a MANIFEST.json with a sha256 per file (see :mod:`writer`)."""

from annotator.releases.browse import list_releases, release_file
from annotator.releases.verify import verify_release
from annotator.releases.writer import ReleaseError, cut_release

__all__ = ["ReleaseError", "cut_release", "list_releases", "release_file", "verify_release"]
