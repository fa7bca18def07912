"""The annotator's side: the list of assigned documents and the document view."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from markupsafe import escape
from sqlalchemy import func, select
from sqlalchemy.orm import contains_eager

from annotator.align.headings import heading_ranges, trim_span
from annotator.annotate.next_up import TO_DO, next_to_do
from annotator.core.vocabulary import ASSIGNMENT_STATUSES
from annotator.models import Assignment, AssignmentCount, Document, Project, TieBreakRequest
from annotator.schemas.files import project_schema
from annotator.schemas.guideline_text import markdown_html, schema_guideline
from annotator.web.access import assignment_for_viewer, db, load_user, login_required
from annotator.web.url_ids import database_id

bp = Blueprint("documents", __name__)


@bp.route("/")
@login_required
def home():
    if load_user().is_lead:
        return redirect(url_for("dashboard.projects"))
    return redirect(url_for("documents.my_documents"))


PAGE_SIZE = 50
SHOW = {"all": None, "todo": TO_DO, "done": ("done",),
        "skipped": ("skipped",)}


@bp.route("/my")
@login_required
def my_documents():
    """The annotator's assignments in document order, a page at a time (a study can give
    one person thousands of documents), with per-project progress. Document order keeps a
    finished document where it was instead of moving it to a later page; "to do" lists
    only what is left and "Next to do" opens the first of it."""
    user = load_user()
    project_id = request.args.get("project", type=database_id)
    search = request.args.get("q", "").strip()
    show = request.args.get("show", "all")
    show = show if show in SHOW else "all"
    progress = _progress(user.id)
    query = (select(Assignment).where(Assignment.user_id == user.id).join(Document))
    if search:
        like = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = query.where(Document.external_id.ilike(like, escape="\\")
                            | Document.source.ilike(like, escape="\\")
                            | Document.target.ilike(like, escape="\\"))
    statuses = SHOW[show] or ASSIGNMENT_STATUSES
    query = query.where(Assignment.status.in_(statuses))
    # One segment per project, in project order: its size is the stored counts' (a search
    # counts what it matches), so a page reads only its own rows (issue 44).
    segments = [(entry["id"], None if search else sum(entry[s] for s in statuses))
                for entry in sorted(progress, key=lambda e: e["id"])
                if not project_id or entry["id"] == project_id]
    if search:
        segments = [(pid, db().scalar(select(func.count()).select_from(
            query.where(Document.project_id == pid).subquery()))) for pid, _ in segments]
    matching = sum(size for _, size in segments)
    pages = max(1, -(-matching // PAGE_SIZE))
    page = min(max(1, request.args.get("page", 1, type=int)), pages)
    assignments, offset = [], (page - 1) * PAGE_SIZE
    for pid, size in segments:
        if offset >= size:
            offset -= size
            continue
        assignments += db().scalars(
            query.where(Document.project_id == pid)
            .options(contains_eager(Assignment.document).load_only(
                         Document.external_id, Document.position, Document.project_id),
                     contains_eager(Assignment.document).joinedload(Document.project))
            .order_by(Document.position, Document.id, Assignment.id)
            .offset(offset).limit(PAGE_SIZE - len(assignments))).all()
        offset = 0
        if len(assignments) == PAGE_SIZE:
            break
    next_up = next_to_do(db(), user.id, project_id)
    # A third annotator asked to break ties rates only the disputed items, on its own page.
    tiebreaks = set(db().scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.assignment_id.in_([a.id for a in assignments])))) if assignments else set()
    return render_template("my_documents.html", assignments=assignments, progress=progress,
                           matching=matching, page=page, pages=pages, tiebreaks=tiebreaks,
                           args={"project": project_id or "", "q": search, "show": show},
                           next_up=next_up)


def _progress(user_id: int) -> list[dict]:
    """Per project: the user's documents by status and time spent, from the stored counts
    (kept by triggers on the assignments: models.AssignmentCount)."""
    rows = db().execute(
        select(Project.id, Project.name, AssignmentCount.status, AssignmentCount.assignments,
               AssignmentCount.seconds)
        .join(Project, Project.id == AssignmentCount.project_id)
        .where(AssignmentCount.user_id == user_id, AssignmentCount.assignments > 0)
        .order_by(Project.name))
    table: dict[int, dict] = {}
    for pid, name, status, count, seconds in rows:
        entry = table.setdefault(pid, {"id": pid, "name": name, "total": 0, "seconds": 0.0,
                                       **{s: 0 for s in ASSIGNMENT_STATUSES}})
        entry[status] += count
        entry["total"] += count
        entry["seconds"] += float(seconds)
    for entry in table.values():
        entry["percent_done"] = round(100 * entry["done"] / entry["total"])
    return list(table.values())


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
    guideline = schema_guideline(project_schema(assignment.document.project))
    if guideline.markdown is not None:
        return markdown_html(guideline.markdown)
    if guideline.missing_file:
        return (f"<p>This schema names the guideline file <code>"
                f"{escape(guideline.missing_file)}</code>, which is not among this "
                "installation's guidelines.</p>")
    return "<p>This schema has no guideline.</p>"


def sentence_texts(text: str, offsets: list) -> list[dict]:
    """Sentences with their numbers and offsets; text between sentences is kept so the
    rendered text is exactly the stored one. A sentence that is only a section heading
    ("BACKGROUND:" on a line of its own) gets no number, as on the page's script
    (``static/js/render.js``): both texts' headings are treated alike (issue 43)."""
    headings = heading_ranges(text)
    result, position, number = [], 0, 0
    for start, end in offsets:
        heading_only = not trim_span((start, end), headings, text)
        number = number if heading_only else number + 1
        result.append({"number": None if heading_only else number, "start": start, "end": end,
                       "before": text[position:start], "text": text[start:end]})
        position = end
    if position < len(text) or not offsets:
        result.append({"number": None, "start": position, "end": len(text),
                       "before": "", "text": text[position:]})
    return result
