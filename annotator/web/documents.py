"""The annotator's side: the list of assigned documents and the document view."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import contains_eager

from annotator.models import Assignment, Document, TieBreakRequest
from annotator.study.guideline_text import GuidelineNotFound, guideline_html
from annotator.study.projects import project_schema
from annotator.web.access import assignment_for_viewer, db, load_user, login_required

bp = Blueprint("documents", __name__)


@bp.route("/")
@login_required
def home():
    if load_user().is_lead:
        return redirect(url_for("dashboard.projects"))
    return redirect(url_for("documents.my_documents"))


PAGE_SIZE = 50


@bp.route("/my")
@login_required
def my_documents():
    """The annotator's assignments, unfinished first, a page at a time (a study can give
    one person thousands of documents)."""
    user = load_user()
    page = max(1, request.args.get("page", 1, type=int))
    counts = dict(db().execute(
        select(Assignment.status, func.count(Assignment.id))
        .where(Assignment.user_id == user.id).group_by(Assignment.status)).all())
    total = sum(counts.values())
    assignments = db().scalars(
        select(Assignment)
        .where(Assignment.user_id == user.id)
        .join(Document)
        .options(contains_eager(Assignment.document).load_only(
                     Document.external_id, Document.position, Document.project_id),
                 contains_eager(Assignment.document).joinedload(Document.project))
        .order_by((Assignment.status == "done"), Document.project_id, Document.position,
                  Assignment.id)
        .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)
    ).all()
    # A third annotator asked to break ties rates only the disputed items, on its own page.
    tiebreaks = set(db().scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.assignment_id.in_([a.id for a in assignments])))) if assignments else set()
    return render_template("my_documents.html", assignments=assignments, counts=counts,
                           total=total, page=page, pages=max(1, -(-total // PAGE_SIZE)),
                           tiebreaks=tiebreaks)


@bp.route("/assignments/<int:assignment_id>")
@login_required
def view_assignment(assignment_id: int):
    """The annotation page. Both texts are rendered server-side (autoescaped) for a fast
    first paint; the page's script loads the rest from the JSON API."""
    assignment = assignment_for_viewer(assignment_id)
    document = assignment.document
    return render_template(
        "annotate.html",
        assignment=assignment,
        document=document,
        read_only=assignment.user_id != load_user().id,
        schema=project_schema(document.project),
        source_sentences=sentence_texts(document.source, document.source_sentences),
        target_sentences=sentence_texts(document.target, document.target_sentences),
    )


@bp.route("/guidelines/<int:assignment_id>")
@login_required
def guideline(assignment_id: int):
    """The guideline of the assignment's schema as an HTML fragment (for the side panel)."""
    assignment = assignment_for_viewer(assignment_id)
    schema = project_schema(assignment.document.project)
    try:
        return guideline_html(schema.guideline or f"{schema.name}.md")
    except GuidelineNotFound:
        return "<p>This schema has no guideline file.</p>"


def sentence_texts(text: str, offsets: list) -> list[dict]:
    """Sentences with their numbers and offsets; text between sentences is kept so the
    rendered text is exactly the stored one."""
    result, position = [], 0
    for number, (start, end) in enumerate(offsets, start=1):
        result.append({"number": number, "start": start, "end": end,
                       "before": text[position:start], "text": text[start:end]})
        position = end
    if position < len(text) or not offsets:
        result.append({"number": None, "start": position, "end": len(text),
                       "before": "", "text": text[position:]})
    return result
