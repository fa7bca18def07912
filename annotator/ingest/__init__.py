"""Getting document pairs into a project: read and validate (the input boundary,
``core.records``), then store (``store``), all or nothing."""

from annotator.core.records import DocumentRecord, IngestError, Problem, read_documents
from annotator.ingest.store import ImportResult, import_file, import_uploads, store_documents

__all__ = [
    "DocumentRecord", "ImportResult", "IngestError", "Problem", "import_file", "import_uploads",
    "read_documents", "store_documents",
]
