"""A project's full agreement report: the agreement engine on the annotators' own work,
the pre-highlighters' precision, and the stored pre-highlights scored as one more annotator.

``annotator agreement PROJECT`` prints it (``--html`` writes the readable page) and the
lead's page ``/projects/<id>/agreement`` shows the same HTML inside the app. It spans
stages (agreement reads the annotation; the pre-highlight comparison reads align's stored
suggestions), so it sits here, above both.
"""

from __future__ import annotations

import threading

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.agreement.prehighlight_agreement import annotations_from_edits, report_section
from annotator.agreement.report import build_report
from annotator.agreement.sentences import resplit
from annotator.agreement.store import (
    bootstrap_settings,
    change_marker,
    load_agreement_input,
    prehighlighter_precision,
)
from annotator.align.embeddings import default_embedder
from annotator.align.store import loss_suggestion_marks
from annotator.models import Document, Project, Suggestion, SuggestionAction


def project_report(session: Session, project: Project, *, bootstrap: int, seed: int,
                   first_span_only: bool = False, iou: float = 0.5, embeddings: bool = False,
                   sentences: str = "stored", constituents: str | None = None) -> dict:
    """The report dict (keys in docs/agreement.md). ``embeddings`` loads the sentence
    embedding model for question similarity (seconds); ``sentences="punkt"`` re-splits
    with NLTK's Punkt, the InfoLossQA convention."""
    embed = default_embedder().encode if embeddings else None
    data = load_agreement_input(session, project, embed=embed, constituents=constituents)
    if sentences != "stored":
        data.documents = resplit(data.documents, sentences)
    report = build_report(data, bootstrap=bootstrap, seed=seed, iou_threshold=iou,
                          first_span_only=first_span_only)
    report["project"] = project.name
    report["prehighlighters"] = prehighlighter_precision(session, project)
    report["prehighlights_as_annotator"] = _prehighlights_as_annotator(session, project, data)
    return report


def _prehighlights_as_annotator(session, project, data) -> dict:
    done = {(w.document_id, w.annotator) for w in data.work if w.status == "done"}
    edits = [e for e in data.edits if (e.document_id, e.annotator) in done]
    return report_section(annotations_from_edits(edits), loss_suggestion_marks(session, project))


# (database, project id) -> (what the report was computed from, the HTML): a page view
# recomputes (a bootstrap of 1000 resamples) only when the work, the settings or the
# suggestions moved.
_pages: dict[tuple[str, int], tuple[tuple, str]] = {}
_lock = threading.Lock()


def report_page(session: Session, project: Project) -> str:
    """The readable report of ``project`` as an HTML fragment for the app's page, with the
    project's bootstrap settings and without the embedding model (question similarity
    says so; the command's report computes it). A read: nothing is written."""
    settings = bootstrap_settings(project)
    marker = (change_marker(session, project), project.version, _suggestion_marker(session,
                                                                                    project))
    key = (str(session.get_bind().url), project.id)
    with _lock:
        cached = _pages.get(key)
    if cached is not None and cached[0] == marker:
        return cached[1]
    report = project_report(session, project, bootstrap=settings["bootstrap"],
                            seed=settings["seed"])
    # matplotlib (about half a second) is loaded by the first page that draws, not by
    # the web app's start-up, which imports this module.
    from annotator.agreement.html_report import render_fragment

    html = render_fragment(report)
    with _lock:
        _pages[key] = (marker, html)
    return html


def _suggestion_marker(session: Session, project: Project) -> tuple:
    """Suggestions and annotators' actions on them (the pre-highlighter sections)."""
    suggestions = session.execute(
        select(func.count(Suggestion.id), func.max(Suggestion.id)).join(Document)
        .where(Document.project_id == project.id)).one()
    actions = session.execute(
        select(func.count(SuggestionAction.id), func.max(SuggestionAction.id))
        .join(Suggestion, Suggestion.id == SuggestionAction.suggestion_id).join(Document)
        .where(Document.project_id == project.id)).one()
    return (*suggestions, *actions)
