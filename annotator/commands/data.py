"""Getting data in: importing document pairs and assigning them to annotators."""

from __future__ import annotations

from pathlib import Path

import click
from tqdm import tqdm

from annotator.assignment import AssignmentError, assign_documents
from annotator.commands import fail, open_database
from annotator.ingest import IngestError, import_file
from annotator.ingest.readers import FORMATS
from annotator.projects import ProjectError, get_project


@click.command("import")
@click.argument("project_name", metavar="PROJECT")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              help="Input format; by default taken from the file name ending.")
@click.option("--update", is_flag=True,
              help="Replace documents whose ids exist already, if nobody annotated them yet.")
def import_command(project_name, file, fmt, update):
    """Import original/simplified pairs from FILE into PROJECT.

    \b
    JSONL (one record per line), a JSON array, or CSV with a header row:
      {"id": "d1", "source": "original text", "target": "simplified text",
       "meta": {"system": "gpt-4o", "section": "Methods"}}
    Sentence-aligned input gives a list of pairs instead of source/target:
      {"id": "d2", "sentences": [{"source": "...", "target": "..."}]}

    All or nothing: if any record is wrong, nothing is imported and every problem is
    listed as FILE:LINE: field 'NAME': what is wrong.
    """
    if not file.exists():
        fail(f"{file}: no such file")
    database = open_database()
    try:
        with database.session() as session:
            project = get_project(session, project_name)
            with tqdm(desc="importing", unit="doc", leave=False) as bar:
                result = import_file(session, project, file, fmt, update=update,
                                     progress=bar.update)
    except ProjectError as exc:
        fail(str(exc))
    except IngestError as exc:
        fail(f"nothing was imported.\n{exc}", code=2)
    click.echo(f"imported {result.created} new and {result.updated} updated documents "
               f"into {project_name}")


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--annotators", help="Comma-separated user names; default: the project's "
              "annotators, or every annotator if the project has none yet.")
@click.option("--per-document", type=click.IntRange(1, 20),
              help="Annotators per document; default: the project's setting.")
def assign(project_name, annotators, per_document):
    """Give every document of PROJECT to N different annotators, balanced.

    Running it again only tops up documents that have fewer than N annotators (for
    example after a new import); existing assignments are never moved.
    """
    database = open_database()
    names = [n.strip() for n in annotators.split(",") if n.strip()] if annotators else None
    try:
        with database.session() as session:
            project = get_project(session, project_name)
            summary = assign_documents(session, project, names, per_document=per_document)
    except (ProjectError, AssignmentError) as exc:
        fail(str(exc))
    click.echo(f"created {summary.created} assignments in {project_name}")
    width = max((len(n) for n in summary.load), default=0)
    for username, count in summary.load.items():
        click.echo(f"  {username:<{width}}  {count} documents")
