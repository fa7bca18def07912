"""`annotator labelstudio push|pull`: work with a running Label Studio server."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from annotator.commands import fail, open_database, project_or_exit
from annotator.study.projects import project_schema

SERVER_OPTIONS = [
    click.option("--url", envvar="LABEL_STUDIO_URL", help="Label Studio address "
                 "(or LABEL_STUDIO_URL)."),
    click.option("--token", envvar="LABEL_STUDIO_API_KEY", help="API token "
                 "(or LABEL_STUDIO_API_KEY)."),
]


def server_options(command):
    for option in reversed(SERVER_OPTIONS):
        command = option(command)
    return command


def connect(url, token):
    from annotator.interop import labelstudio_server

    try:
        return labelstudio_server.client(url, token)
    except RuntimeError as exc:
        fail(str(exc))


@click.group()
def labelstudio():
    """Send a project to a Label Studio server, or fetch its annotations back."""


@labelstudio.command()
@click.argument("project_name", metavar="PROJECT")
@server_options
def push(project_name, url, token):
    """Create a Label Studio project from PROJECT: the labeling config generated from the
    schema, one task per document, the pre-highlights as predictions."""
    from annotator.interop import labelstudio_server
    from annotator.interop.exporting import export_project
    from annotator.interop.labelstudio_config import labeling_config

    ls = connect(url, token)
    database = open_database()
    with database.session() as session, tempfile.TemporaryDirectory() as tmp:
        project = project_or_exit(session, project_name)
        path = Path(tmp) / "tasks.json"
        export_project(session, project, "labelstudio", path)
        tasks = json.loads(path.read_text(encoding="utf-8"))
        config = labeling_config(project_schema(project))
    ls_id = labelstudio_server.push(ls, project_name, config, tasks)
    click.echo(f"pushed {len(tasks)} tasks to Label Studio project {ls_id}")


@labelstudio.command()
@click.argument("project_name", metavar="PROJECT")
@click.argument("ls_project", type=int, metavar="LABEL_STUDIO_PROJECT_ID")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False),
              help="Where to keep the downloaded export; default: a temporary file.")
@click.option("--import", "do_import", is_flag=True,
              help="Import the annotations into PROJECT (all or nothing).")
@server_options
def pull(project_name, ls_project, out, do_import, url, token):
    """Download the JSON export of a Label Studio project, and optionally import it."""
    from annotator.ingest import IngestError
    from annotator.interop import labelstudio_server
    from annotator.interop.importing import import_annotations

    ls = connect(url, token)
    with tempfile.TemporaryDirectory() as tmp:
        path = labelstudio_server.pull(ls, ls_project, out or Path(tmp) / "export.json")
        click.echo(f"downloaded the export of Label Studio project {ls_project}"
                   + (f" to {path}" if out else ""))
        if not do_import:
            return
        database = open_database()
        try:
            with database.session() as session:
                project = project_or_exit(session, project_name)
                report = import_annotations(session, project, path, "labelstudio")
        except IngestError as exc:
            fail(f"nothing was imported.\n{exc}", code=2)
        click.echo(f"imported {report.records} annotations ({report.edits} edits, "
                   f"{report.ratings} ratings) into {project_name}")
