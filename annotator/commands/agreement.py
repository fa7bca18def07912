"""`annotator agreement`: the agreement report of a project."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.agreement.composites import CONVENTIONS, ConventionError
from annotator.commands import SEED, open_database, project_or_exit

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as one JSON object.")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write a self-contained HTML report (plots inline) to this file.")
@click.option("--bootstrap", default=None, type=click.IntRange(0, 100_000),
              help="Bootstrap resamples of documents for 95% confidence intervals (0: none; "
                   "default: the project's setting, 1000 unless saved otherwise).")
@click.option("--seed", default=None, type=SEED,
              help="Seed of the bootstrap (default: the project's setting, 0).")
@click.option("--constituents", type=click.Choice(CONVENTIONS), default=None,
              help="How constituents of composite edits (SALSA's structure, split) count: "
                   "own_type (under their own types too) or composite (only under their "
                   "composite, SALSA's convention). Default: the project's setting, "
                   "own_type unless saved otherwise.")
@click.option("--save-settings", is_flag=True,
              help="Store --bootstrap, --seed and --constituents as the project's own: "
                   "releases cut on the web page or with `annotator release` use them too.")
@click.option("--first-span-only", is_flag=True,
              help="Use only the first span of each edit per side, as the published "
                   "InfoLossQA figures did (default: every span counts).")
@click.option("--iou", default=0.5, show_default=True, type=click.FloatRange(0, 1),
              help="Token IoU needed for a partial span match.")
@click.option("--sentences", type=click.Choice(["stored", "punkt"]), default="stored",
              show_default=True,
              help="Sentence boundaries for sentence-level alpha: the documents' own (stored at "
                   "import) or NLTK's Punkt with default parameters, the convention of the "
                   "InfoLossQA reference figures.")
@click.option("--no-embeddings", is_flag=True,
              help="Skip question similarity (it loads the sentence-embedding model).")
def agreement(project_name, as_json, html_path, bootstrap, seed, constituents, save_settings,
              first_span_only, iou, sentences, no_embeddings):
    """Inter-annotator agreement of PROJECT, on the annotators' own (pre-adjudication) work.

    Counts documents marked done by two or more annotators. Prints a summary, or with
    --json one JSON object whose keys are listed in the README.
    """
    from annotator.operations import work

    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        from annotator.agreement.store import bootstrap_settings, save_agreement_settings

        if save_settings:
            save_agreement_settings(project, bootstrap=bootstrap, seed=seed,
                                    constituents=constituents)
            session.commit()
        configured = bootstrap_settings(project)
        bootstrap = configured["bootstrap"] if bootstrap is None else bootstrap
        seed = configured["seed"] if seed is None else seed
        from annotator.operations.agreement_report import project_report

        try:
            report = project_report(session, project, bootstrap=bootstrap, seed=seed,
                                    first_span_only=first_span_only, iou=iou,
                                    embeddings=not no_embeddings, sentences=sentences,
                                    constituents=constituents)
        except ConventionError as error:  # a value stored before settings were checked
            raise click.UsageError(f"project {project.name}: settings {error}") from error
    if html_path:
        from annotator.agreement.html_report import render_html

        html_path.write_text(render_html(report), encoding="utf-8")
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, sort_keys=True))
        return
    click.echo(summary_text(report))
    if html_path:
        click.echo(f"HTML report written to {html_path}")


def _shown(metric: dict | None) -> str:
    """Value, 95% CI and band of a metric; when undefined, "n/a" and the reason."""
    if not metric or metric.get("value") is None:
        reason = (metric or {}).get("explanation") or "not computed"
        return f"n/a ({reason})"
    text = f"{metric['value']:.3f}"
    ci = metric.get("ci") or {}
    if ci.get("low") is not None:
        text += f"  [{ci['low']:.3f}, {ci['high']:.3f}]"
    band = metric.get("band") or (metric.get("interpretation") or {}).get("band")
    return f"{text}  {band}" if band else text


def summary_text(report: dict) -> str:
    """The report in a few readable lines: each headline coefficient by name (the raw JSON
    key in brackets), the span F1s, the Devaraj majority statistics, the pre-highlighters."""
    from annotator.agreement.names import describe

    counts = report["counts"]
    lines = [(f"{report['project']}: {counts['documents']} documents, {counts['annotators']} "
              f"annotators, {counts['edits']} edits, {counts['ratings']} ratings "
              f"({counts['documents_with_2plus_annotators']} documents with 2+ annotators)")]
    composites = report.get("composites")
    if composites:
        lines.append(f"  composite edits: {composites['explanation']}; "
                     f"{len(composites['excluded'])} edit(s) left out"
                     + ("" if not composites["excluded"] else " (listed in the warnings)"))
    for row in report.get("interpretation", []):
        title = row.get("title") or row["metric"]
        lines.append(f"  {title}: {_shown(row)}  <{row['metric']}>")
    for side, entry in report.get("spans", {}).items():
        for kind in ("exact", "partial"):
            macro = (entry.get(kind) or {}).get("macro")
            if macro is not None:
                key = f"spans.{side}.{kind}_f1.macro"
                lines.append(f"  {describe(key)['title']}: {_shown(macro)}  <{key}>")
    for group in ("fields", "edit_fields"):
        for key, entry in report.get(group, {}).items():
            majority = (entry.get("metrics") or {}).get("majority")
            if not majority:
                continue
            name = entry.get("label") or key
            if majority.get("explanation"):
                lines.append(f"  {name}: majority statistics n/a ({majority['explanation']})")
                continue
            specific = majority["specific_majority_among_nonzero"]
            lines.append(
                f"  {name}: majority label on {majority['with_majority']:.3f} of "
                f"{majority['items']} items; {majority['nonzero_items']} with a "
                f"non-{majority['zero_label']} majority, of which "
                + ("none" if specific is None else f"{specific:.3f}")
                + " agree on one label (Devaraj et al. 2022)")
    for kind, entry in report.get("prehighlighters", {}).items():
        if entry["precision"] is not None:
            lines.append(f"  pre-highlighter {kind}: precision {entry['precision']:.3f} "
                         f"({entry['accepted']} accepted, {entry['dismissed']} dismissed, "
                         f"{entry['open']} not acted on: {entry['reviews']} reviews of "
                         f"{entry['suggestions']} suggestions)")
    as_annotator = report.get("prehighlights_as_annotator", {})
    overall = as_annotator.get("overall", {}).get("all")
    if overall and overall["annotators"]["f1"] is not None:
        machine = overall["pre-highlights"]["f1"]
        interval = as_annotator.get("ratio_interval")
        spread = f", 95% interval {interval[0]:.2f}-{interval[1]:.2f}" if interval else ""
        lines.append(f"  pre-highlights as an annotator: F1 {machine or 0:.3f} with annotators, "
                     f"annotators with each other {overall['annotators']['f1']:.3f} "
                     f"(ratio {overall['ratio'] or 0:.2f}{spread})")
    for warning in report.get("warnings", []):
        lines.append(f"  warning: {warning}")
    return "\n".join(lines)
