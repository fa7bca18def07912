"""Getting document pairs into a project: read and validate (the input boundary,
``core.records``), then store (``store``), all or nothing.

The database side (``store``: SQLAlchemy and the models) loads on first use of its names:
``annotator import``'s direct SQLite path (``sqlite_import``) lives in this package and
imports no SQLAlchemy (issue 44)."""

from annotator.core.records import DocumentRecord, IngestError, Problem, read_documents
from annotator.ingest.rows import ImportResult

_STORE_NAMES = ("import_file", "import_uploads", "store_documents")

__all__ = [
    "DocumentRecord", "ImportResult", "IngestError", "Problem", "import_file", "import_uploads",
    "read_documents", "store_documents",
]


def __getattr__(name: str):
    if name in _STORE_NAMES:
        # Loaded on first use: SQLAlchemy costs ~0.2 s of start-up (module docstring).
        from annotator.ingest import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
