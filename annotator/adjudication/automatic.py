"""The automatic rules over a whole project: every ready, open document in project order.

Run by ``annotator adjudicate auto`` and by the demo, which ships with the rules applied.

One document is :func:`annotator.adjudication.overview.apply_automatic`; this module only
walks the project 100 documents at a time (their work read in one go, their queue entries
recomputed at the end of each chunk) and adds up what the rules did.
"""

from __future__ import annotations

from typing import Callable

from sqlalchemy.orm import Session

from annotator.adjudication.overview import apply_automatic
from annotator.adjudication.queue import settle_documents
from annotator.adjudication.store import (
    AdjudicationError,
    batch_reads,
    open_ready_documents,
    preload_original_assignments,
)
from annotator.models import Project
from annotator.study.queue_marks import deferred_marks

CHUNK = 100


def adjudicate_project(session: Session, project: Project, *, embed=None,
                       progress: Callable[[int, int], None] | None = None) -> dict:
    """Apply the project's rules to every ready document not adjudicated yet, in the
    caller's transaction. Returns the run's summary: documents processed, units accepted
    (merged among them) and rejected, rating items resolved, documents completed, what each
    rule decided per document (``verdicts``) and what is ``left`` for the lead. Raises
    :class:`~annotator.adjudication.rules.RulesError` if the project's rules are invalid."""
    summary = {"project": project.name, "documents": 0, "units_accepted": 0,
               "units_merged": 0, "units_rejected": 0, "ratings_resolved": 0,
               "completed": 0, "left": [], "verdicts": {}}
    documents = open_ready_documents(session, project)
    done = 0
    with deferred_marks(session):
        for first in range(0, len(documents), CHUNK):
            chunk = documents[first:first + CHUNK]
            with batch_reads(session):  # the next 100 documents' work read in one go
                preload_original_assignments(session, [d.id for d in chunk])
                for document in chunk:
                    done += 1
                    if progress is not None:
                        progress(done, len(documents))
                    _decide(session, document, embed, summary)
                settle_documents(session, [d.id for d in chunk])  # their entries, now
    return summary


def _decide(session: Session, document, embed, summary: dict) -> None:
    """The rules on one document, added to the run's summary."""
    try:
        result = apply_automatic(session, document, embed=embed)
    except AdjudicationError as exc:  # pragma: no cover - only ready documents are listed
        summary["left"].append({"id": document.external_id, "reason": str(exc)})
        return
    summary["documents"] += 1
    for key in ("units_accepted", "units_merged", "units_rejected", "ratings_resolved"):
        summary[key] += result[key]
    summary["completed"] += result["completed"]
    summary["verdicts"][document.external_id] = result["verdicts"]
    if not result["completed"]:
        summary["left"].append({"id": document.external_id, **result["open"]})
