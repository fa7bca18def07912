"""`annotator agreement`: the agreement report of a project."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.commands import open_database, project_or_exit


def project_report(session, project, *, bootstrap: int, seed: int, first_span_only: bool,
                   iou: float, embeddings: bool) -> dict:
    from annotator.agreement.report import build_report
    from annotator.agreement.store import load_agreement_input, prehighlighter_precision

    embed = None
    if embeddings:
        from annotator.align.embeddings import default_embedder

        embed = default_embedder().encode
    data = load_agreement_input(session, project, embed=embed)
    report = build_report(data, bootstrap=bootstrap, seed=seed, iou_threshold=iou,
                          first_span_only=first_span_only)
    report["project"] = project.name
    report["prehighlighters"] = prehighlighter_precision(session, project)
    report["prehighlights_as_annotator"] = _prehighlights_as_annotator(session, project, data)
    return report


def _prehighlights_as_annotator(session, project, data) -> dict:
    from annotator.agreement.prehighlight_agreement import annotations_from_edits, report_section
    from annotator.align.store import loss_suggestion_marks

    done = {(w.document_id, w.annotator) for w in data.work if w.status == "done"}
    edits = [e for e in data.edits if (e.document_id, e.annotator) in done]
    return report_section(annotations_from_edits(edits), loss_suggestion_marks(session, project))


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as one JSON object.")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write a self-contained HTML report (plots inline) to this file.")
@click.option("--bootstrap", default=1000, show_default=True, type=click.IntRange(0, 100_000),
              help="Bootstrap resamples of documents for 95% confidence intervals (0: none).")
@click.option("--seed", default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--first-span-only", is_flag=True,
              help="Use only the first span of each edit per side, as the published "
                   "InfoLossQA figures did (default: every span counts).")
@click.option("--iou", default=0.5, show_default=True, type=click.FloatRange(0, 1),
              help="Token IoU needed for a partial span match.")
@click.option("--no-embeddings", is_flag=True,
              help="Skip question similarity (it loads the sentence-embedding model).")
def agreement(project_name, as_json, html_path, bootstrap, seed, first_span_only, iou,
              no_embeddings):
    """Inter-annotator agreement of PROJECT, on the annotators' own (pre-adjudication) work.

    Counts documents marked done by two or more annotators. Prints a summary, or with
    --json one JSON object whose keys are listed in the README.
    """
    database = open_database()
    with database.session() as session:
        project = project_or_exit(session, project_name)
        report = project_report(session, project, bootstrap=bootstrap, seed=seed,
                                first_span_only=first_span_only, iou=iou,
                                embeddings=not no_embeddings)
    if html_path:
        from annotator.agreement.html_report import render_html

        html_path.write_text(render_html(report), encoding="utf-8")
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, sort_keys=True))
        return
    click.echo(summary_text(report))
    if html_path:
        click.echo(f"HTML report written to {html_path}")


def summary_text(report: dict) -> str:
    counts = report["counts"]
    lines = [f"{report['project']}: {counts['documents']} documents, {counts['annotators']} "
             f"annotators, {counts['edits']} edits, {counts['ratings']} ratings "
             f"({counts['documents_with_2plus_annotators']} documents with 2+ annotators)"]
    for row in report.get("interpretation", []):
        value = row.get("value")
        shown = "n/a" if value is None else f"{value:.3f}"
        lines.append(f"  {row['metric']:<48} {shown:>7}  {row.get('band', '')}")
    for side, entry in report.get("spans", {}).items():
        for kind in ("exact", "partial"):
            macro = (entry.get(kind) or {}).get("macro")
            if macro is not None:
                value = macro.get("value")
                shown = "n/a" if value is None else f"{value:.3f}"
                name = f"spans.{side}.{kind}_f1.macro"
                lines.append(f"  {name:<48} {shown:>7}")
    for kind, entry in report.get("prehighlighters", {}).items():
        if entry["precision"] is not None:
            lines.append(f"  pre-highlighter {kind:<31} precision {entry['precision']:.3f}  "
                         f"({entry['accepted']} accepted, {entry['dismissed']} dismissed)")
    overall = report.get("prehighlights_as_annotator", {}).get("overall", {}).get("all")
    if overall and overall["annotators"]["f1"] is not None:
        machine = overall["pre-highlights"]["f1"]
        lines.append(f"  pre-highlights as an annotator: F1 {machine or 0:.3f} with annotators, "
                     f"annotators with each other {overall['annotators']['f1']:.3f} "
                     f"(ratio {overall['ratio'] or 0:.2f})")
    for warning in report.get("warnings", []):
        lines.append(f"  warning: {warning}")
    return "\n".join(lines)
