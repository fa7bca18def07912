"""`annotator prehighlight`: store the alignment engine's suggestions for a project."""

from __future__ import annotations

import os

import click

from annotator.commands import open_database, progress_bar, project_or_exit


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes to use; default: every core.")
@click.option("--force", is_flag=True,
              help="Recompute documents that already have suggestions.")
def prehighlight(project_name, workers, force):
    """Pre-highlight candidate problems in every document of PROJECT.

    The schema decides which pre-highlighters run (deletions, oversimplifications,
    trailing content, leaked instructions, repetition, semantic outliers). Each suggestion
    carries a score and a one-line reason shown to annotators, who accept or dismiss it.

    Resumable: documents done in an earlier run are skipped unless --force is given.
    """
    workers = workers or os.cpu_count() or 1
    database = open_database()
    from annotator.align.store import prehighlight_project

    with database.sessions() as session:
        project = project_or_exit(session, project_name)
        with progress_bar("pre-highlighting") as progress:
            summary = prehighlight_project(session, project, workers=workers, force=force,
                                           progress=progress)
    click.echo(f"pre-highlighted {summary.documents} documents ({summary.suggestions} "
               f"suggestions); {summary.skipped} already done")
