"""Versioned gold releases, stored in the database (issue 31): the gold set, every
annotator's raw work, the agreement report, the schema and guideline as used, and a
MANIFEST.json with a sha256 per file (see :mod:`writer`), kept as content-addressed blobs
(:mod:`store`); a folder or a zip is an export of them (:mod:`export`)."""

from annotator.releases.browse import list_releases, release_file
from annotator.releases.verify import verify_folder, verify_release
from annotator.releases.writer import ReleaseError, cut_release

__all__ = ["ReleaseError", "cut_release", "list_releases", "release_file", "verify_folder",
           "verify_release"]
