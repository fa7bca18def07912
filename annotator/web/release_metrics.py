"""A release's "Judge metrics" page: a lead uploads a table of metric scores and reads the
report of `annotator eval metrics` against a score derived from the release's gold.

Nothing is stored: the upload is read in memory, joined with the stored release's
gold.jsonl and answered with the report (a bad table is listed FILE:LINE: field, on the
same page).
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from annotator.core.problems import IngestError
from annotator.meta_evaluation import release_scores
from annotator.meta_evaluation.report import Options, evaluate, level_values
from annotator.meta_evaluation.tables import join, read_uploaded_table
from annotator.releases import release_file
from annotator.schemas.files import project_schema
from annotator.web.access import db, lead_required, project_for_lead

bp = Blueprint("release_metrics", __name__)

MAX_WEB_RESAMPLES = 5000  # a page answers in seconds; the command line takes more


@bp.route("/projects/<int:project_id>/releases/<version>/metrics", methods=["GET", "POST"])
@lead_required
def judge_metrics(project_id: int, version: str):
    from annotator.meta_evaluation.html_report import report_body  # matplotlib: this page only

    project = project_for_lead(project_id)
    gold = release_file(db(), project, version, "gold.jsonl")
    if gold is None:
        abort(404)
    form = {"human": request.form.get("human", "count:*").strip(),
            "on": request.form.get("on", "document_id").strip(),
            "unit": request.form.get("unit", "document"),
            "level": request.form.get("level", "item"),
            "system": request.form.get("system", "").strip(),
            "bootstrap": request.form.get("bootstrap", "1000").strip()}
    page = {"project": project, "version": version, "form": form,
            "choices": release_scores.score_choices(project_schema(project)),
            "problems": [], "report": None}
    if request.method == "GET":
        return render_template("release_metrics.html", **page)
    upload = request.files.get("metrics")
    problems = _form_problems(form, upload)
    if problems:
        page["problems"] = problems
        return render_template("release_metrics.html", **page), 422
    try:
        source = f"{version}/gold.jsonl"
        human = release_scores.derived_table(release_scores.stored_gold_records(gold, source),
                                             source, form["human"], form["unit"])
        joined = join(human, read_uploaded_table(upload.read(), upload.filename),
                      [c.strip() for c in form["on"].split(",") if c.strip()],
                      release_scores.SCORE_COLUMN, system=form["system"] or None)
    except (IngestError, ValueError) as exc:
        page["problems"] = [str(p) for p in exc.problems] if isinstance(
            exc, IngestError) else [str(exc)]
        return render_template("release_metrics.html", **page), 422
    if len(joined.keys) < 2:
        page["problems"] = [f"only {len(joined.keys)} item(s) are in both the release and the "
                            "table: nothing to correlate"]
        return render_template("release_metrics.html", **page), 422
    report = evaluate(joined, Options(level=form["level"], resamples=int(form["bootstrap"])))
    report["notes"] = human.notes
    _, human_values, metric_values = level_values(joined, form["level"])
    page["report"] = report_body(report, human_values, metric_values)
    return render_template("release_metrics.html", **page)


def _form_problems(form: dict, upload) -> list[str]:
    problems = []
    if upload is None or not upload.filename:
        problems.append("choose a table of metric scores (.csv, .tsv or .jsonl)")
    try:
        release_scores.parse_expression(form["human"])
    except ValueError as exc:
        problems.append(str(exc))
    if form["unit"] not in ("document", "sentence"):
        problems.append(f"unit must be document or sentence (got {form['unit'][:40]!r})")
    if form["level"] not in ("item", "system"):
        problems.append(f"level must be item or system (got {form['level'][:40]!r})")
    if form["level"] == "system" and not form["system"]:
        problems.append("system level needs the metadata key that names the system")
    if not form["bootstrap"].isdigit() or not 0 <= int(form["bootstrap"]) <= MAX_WEB_RESAMPLES:
        problems.append(f"bootstrap resamples: a whole number from 0 to {MAX_WEB_RESAMPLES} "
                        f"(got {form['bootstrap'][:40]!r})")
    if not [c for c in form["on"].split(",") if c.strip()]:
        problems.append("give the key column(s) that join the table to the release")
    return problems
