"""`annotator adjudicate`: the automatic adjudication rules in batch, and where things stand."""

from __future__ import annotations

import json

import click

from annotator.commands import open_database, project_or_exit


@click.group()
def adjudicate():
    """Adjudication of finished documents (the lead's queue is on the web page)."""


def _embed(no_embeddings: bool):
    if no_embeddings:
        return None
    from annotator.align.embeddings import default_embedder

    return default_embedder().encode


@adjudicate.command("auto")
@click.argument("project_name", metavar="PROJECT")
@click.option("--no-embeddings", is_flag=True,
              help="Group edits by span overlap only (skips loading the embedding model).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def auto(project_name, no_embeddings, as_json):
    """Apply the automatic rules to every ready document of PROJECT.

    Freezes the candidate units, accepts units in which every annotator marked the same
    edit, resolves ratings by majority (Devaraj et al. 2022; ties and all-different items
    are left) and by third-annotator labels, and marks documents with nothing left as
    adjudicated. Prints what is left for the lead.
    """
    from annotator.adjudication.overview import adjudication_queue, apply_automatic
    from annotator.adjudication.store import AdjudicationError

    embed = _embed(no_embeddings)
    database = open_database()
    summary = {"project": project_name, "documents": 0, "units_accepted": 0,
               "ratings_resolved": 0, "completed": 0, "left": []}
    with database.session() as session:
        project = project_or_exit(session, project_name)
        for entry in adjudication_queue(session, project):
            if entry.status == "complete":
                continue
            try:
                result = apply_automatic(session, entry.document, embed=embed)
            except AdjudicationError as exc:  # pragma: no cover - queue lists ready docs only
                summary["left"].append({"id": entry.document.external_id, "reason": str(exc)})
                continue
            summary["documents"] += 1
            summary["units_accepted"] += result["units_accepted"]
            summary["ratings_resolved"] += result["ratings_resolved"]
            summary["completed"] += result["completed"]
            if not result["completed"]:
                summary["left"].append({"id": entry.document.external_id, **result["open"]})
    if as_json:
        click.echo(json.dumps(summary, sort_keys=True))
        return
    click.echo(f"{project_name}: {summary['documents']} document(s) processed, "
               f"{summary['units_accepted']} unit(s) accepted, {summary['ratings_resolved']} "
               f"rating item(s) resolved, {summary['completed']} document(s) adjudicated")
    for left in summary["left"]:
        click.echo(f"  left for the lead: {left['id']}: {left.get('summary', left.get('reason'))}")
    if not summary["left"]:
        click.echo("  nothing left for the lead")


@adjudicate.command("status")
@click.argument("project_name", metavar="PROJECT")
def status(project_name):
    """The adjudication queue of PROJECT: ready documents, least agreement first."""
    from annotator.adjudication.overview import adjudication_queue

    database = open_database()
    with database.session() as session:
        project = project_or_exit(session, project_name)
        entries = adjudication_queue(session, project)
        for e in entries:
            click.echo(f"{e.document.external_id}\t{e.status}\tagreement {e.agreement:.2f}\t"
                       f"open: {e.open['summary']}")
        if not entries:
            click.echo("no document is ready: annotators mark documents done first")
