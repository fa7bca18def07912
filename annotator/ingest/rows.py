"""A new document's row and an import's result, as plain data: the ORM path
(:mod:`annotator.ingest.store`) and the direct SQLite path
(:mod:`annotator.ingest.sqlite_import`) write the same values
(``tests/test_import_bulk_rows.py``, ``tests/test_import_direct_sqlite.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.core.records import DocumentRecord
from annotator.core.sentences import split_sentences

# Documents per transaction when importing in batches: small enough that a save waiting
# for the write lock waits a fraction of a second, large enough to keep imports fast.
BATCH_SIZE = 1000


@dataclass
class ImportResult:
    created: int
    updated: int
    # The first pre-highlighting chunk queued for the new or replaced documents, and how
    # many chunks (workers run them: study.prehighlight_queue).
    prehighlight_job: int | None = None
    prehighlight_chunks: int = 0


def document_texts(record: DocumentRecord) -> dict:
    """A document's texts, metadata and sentence offsets (computed when not given)."""
    source_sents = record.source_sentences or split_sentences(record.source)
    target_sents = record.target_sentences or split_sentences(record.target)
    return dict(
        source=record.source,
        target=record.target,
        meta=record.meta,
        source_sentences=[list(s) for s in source_sents],
        target_sentences=[list(s) for s in target_sents],
        sentence_pairs=[list(p) for p in record.sentence_pairs]
        if record.sentence_pairs else None,
    )


def document_row(project_id: int, record: DocumentRecord, position: int) -> dict:
    """The values a new document is inserted with (the table's defaults fill the rest)."""
    return dict(project_id=project_id, external_id=record.external_id, position=position,
                **document_texts(record))
