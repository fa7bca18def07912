"""`annotator prehighlight`: store the alignment engine's suggestions for a project."""

from __future__ import annotations

import os
import sys

import click

from annotator.commands import open_database, progress_bar, project_or_exit

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


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
              help="Switch on (or off) automatic learning for PROJECT: a refit before every "
                   "prehighlight run, and while annotators work a refit after every "
                   "--refit-every newly completed documents (in the background of the web "
                   "server; open documents re-ranked).")
@click.option("--refit-every", type=click.IntRange(1, None), default=None, metavar="N",
              help="With automatic learning: refit after every N newly completed documents "
                   "(default 5).")
def prehighlight(project_name, workers, force, learn, auto_learn, refit_every):
    """Pre-highlight candidate problems in every document of PROJECT.

    The schema decides which pre-highlighters run (deletions, oversimplifications,
    trailing content, leaked instructions, repetition, semantic outliers). Each suggestion
    carries a score and a one-line reason shown to annotators, who accept or dismiss it.

    Resumable: documents done in an earlier run are skipped unless --force is given.
    """
    workers = workers or os.cpu_count() or 1
    database = open_database()
    from annotator.align.store import prehighlight_project
    from annotator.align.store.learning import (
        auto_learn_enabled,
        learn_project,
        set_auto_learn,
    )
    from annotator.align.store.learning import refit_every as refit_every_of

    with database.sessions() as session:
        project = project_or_exit(session, project_name)
        if auto_learn is not None or refit_every is not None:
            set_auto_learn(session, project, auto_learn, refit_every)
            click.echo(f"automatic learning {'on' if auto_learn_enabled(project) else 'off'} "
                       f"for {project.name} (refit after every {refit_every_of(project)} "
                       "newly completed documents)")
        if learn or (auto_learn_enabled(project) and not force):
            try:
                with progress_bar("re-ranking open documents") as progress:
                    learned = learn_project(session, project, workers=workers, progress=progress,
                                            trigger="learn" if learn else "auto-learn")
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
               f"suggestions); {summary.skipped} already done"
               + (f"; {summary.by_another_run} of them stored by a worker's chunk meanwhile "
                  "(kept as it stored them)" if summary.by_another_run else ""))
