"""`annotator prehighlight`: store the alignment engine's suggestions for a project."""

from __future__ import annotations

import os
import sys

import click

from annotator.commands import open_database, progress_bar, project_or_exit


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes to use; default: every core.")
@click.option("--force", is_flag=True,
              help="Recompute documents that already have suggestions.")
@click.option("--learn", is_flag=True,
              help="First refit the deletion/oversimplification ranker on the project's "
                   "completed documents (annotators' edits, accepted and dismissed "
                   "suggestions), then recompute the suggestions of open documents nobody "
                   "has acted on.")
@click.option("--auto-learn/--no-auto-learn", default=None,
              help="Switch on (or off) learning before every prehighlight run of PROJECT.")
def prehighlight(project_name, workers, force, learn, auto_learn):
    """Pre-highlight candidate problems in every document of PROJECT.

    The schema decides which pre-highlighters run (deletions, oversimplifications,
    trailing content, leaked instructions, repetition, semantic outliers). Each suggestion
    carries a score and a one-line reason shown to annotators, who accept or dismiss it.

    Resumable: documents done in an earlier run are skipped unless --force is given.
    """
    workers = workers or os.cpu_count() or 1
    database = open_database()
    from annotator.align.store import (
        auto_learn_enabled,
        learn_project,
        prehighlight_project,
        set_auto_learn,
    )

    with database.sessions() as session:
        project = project_or_exit(session, project_name)
        if auto_learn is not None:
            set_auto_learn(session, project, auto_learn)
            click.echo(f"automatic learning {'on' if auto_learn else 'off'} for {project.name}")
        if learn or (auto_learn_enabled(project) and not force):
            try:
                with progress_bar("re-ranking open documents") as progress:
                    learned = learn_project(session, project, workers=workers, progress=progress)
            except ValueError as exc:
                if learn:
                    click.echo(f"error: {exc}", err=True)
                    sys.exit(1)
                click.echo(f"automatic learning skipped: {exc}")
            else:
                click.echo(f"learnt from {learned.documents} completed documents "
                           f"({learned.annotations} edits, {learned.actions} accept/dismiss "
                           f"actions); thresholds deletion {learned.thresholds['deletion']:.3f}, "
                           f"oversimplification {learned.thresholds['oversimplification']:.3f}; "
                           f"{learned.refreshed} open documents re-ranked")
        with progress_bar("pre-highlighting") as progress:
            summary = prehighlight_project(session, project, workers=workers, force=force,
                                           progress=progress)
    click.echo(f"pre-highlighted {summary.documents} documents ({summary.suggestions} "
               f"suggestions); {summary.skipped} already done")
