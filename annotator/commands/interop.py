"""`annotator export`: a project's annotations in another tool's format."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import fail, open_database
from annotator.config import current
from annotator.core.safe_paths import child_path
from annotator.interop.exporting import EXPORT_FORMATS, EXPORTERS, export_project
from annotator.schemas.files import project_schema
from annotator.study.projects import ProjectError, get_project

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="jsonl",
              show_default=True, help="thresh: one JSON file per annotator (a folder); "
              "labelstudio: Label Studio tasks with annotations and pre-highlights; jsonl/csv: "
              "this tool's own files; infolossqa: documents.json + questions.json (a folder).")
@click.option("--out", type=click.Path(path_type=Path),
              help="File or folder to write; default: under the exports folder "
                   "(ANNOTATOR_EXPORTS_PATH).")
@click.option("--typology", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write a Thresh typology (YAML) generated from the project's schema.")
@click.option("--labelstudio-config", "ls_config",
              type=click.Path(path_type=Path, dir_okay=False),
              help="Also write the Label Studio labeling config (XML) for the project's schema.")
def export(project_name, fmt, out, typology, ls_config):
    """Write the annotators' own work in PROJECT for another tool.

    \b
    annotator export trial --format thresh --out thresh/     ana.json, ben.json, ...
    annotator export trial --format labelstudio --labelstudio-config config.xml
    annotator export trial --format infolossqa --out release/

    Every annotator's edits (spans on the original = source, on the simplification =
    target), their fields, ratings, status and seconds spent are written. What a format
    cannot hold is listed, never dropped silently. `annotator import PROJECT FILE --format
    thresh|labelstudio|infolossqa` reads the same files back.
    """
    from annotator.operations import work

    database = open_database()
    try:
        with work.session(database) as session:
            project = get_project(session, project_name)
            target = out or child_path(current().exports_path,
                                       EXPORTERS[fmt].default_name.format(p=project.slug))
            result = export_project(session, project, fmt, target)
            schema = project_schema(project)
    except ProjectError as exc:
        fail(str(exc))
    if typology:
        from annotator.interop.thresh_export import typology_yaml

        typology.write_text(typology_yaml(schema), encoding="utf-8")
        result.written.append(typology)
    if ls_config:
        from annotator.interop.labelstudio_config import labeling_config

        ls_config.write_text(labeling_config(schema), encoding="utf-8")
        result.written.append(ls_config)
    click.echo(f"exported {result.records} annotator-document records of {project_name} "
               f"as {fmt}")
    for path in result.written:
        click.echo(f"  wrote {path}")
    for note in result.notes:
        click.echo(f"  not representable in {fmt}: {note}")
