"""The ``annotator`` command: one entry point for leads and scripts.

Each area keeps its commands in ``annotator/commands/``; this module only assembles them.
Commands are imported lazily so that ``annotator --help`` does not load the embedding model.
"""

from __future__ import annotations

import importlib

import click

from annotator.config import Config, SettingError, use

# The task modes' hooks (annotator.annotate.modes), registered for every command; cheap:
# each loads its evaluation module on first call.
from annotator.evaluation import modes as _task_mode_hooks  # noqa: F401

# command name -> (module, attribute, summary). The summary is what `annotator --help`
# lists, so that the listing imports no command module (they pull in SQLAlchemy, NumPy,
# the embedding stack); tests/test_cli_startup.py checks each summary opens its command's
# own help text.
COMMANDS = {
    "init": ("annotator.commands.setup", "init",
             "Create the database, or bring it up to date with the newest migrations."),
    "user": ("annotator.commands.setup", "user",
             "Manage user accounts (admins, leads, annotators)."),
    "project": ("annotator.commands.setup", "project", "Create and inspect projects."),
    "schema": ("annotator.commands.schema", "schema",
               "Read schema files (this tool's YAML, Thresh typologies, Label Studio configs)."),
    "import": ("annotator.commands.data", "import_command",
               "Import original/simplified pairs, or annotations made elsewhere, into PROJECT."),
    "assign": ("annotator.commands.data", "assign",
               "Give every document of PROJECT to N different annotators, balanced."),
    "demo": ("annotator.commands.serve", "demo",
             "Create the demo projects, two with a study under way, and serve them."),
    "serve": ("annotator.commands.serve", "serve",
              "Serve the web app (login, annotation, project pages) under gunicorn."),
    "worker": ("annotator.commands.worker", "worker",
               "Run background jobs: pre-highlighting, refits, queue refreshes, releases."),
    "prehighlight": ("annotator.commands.prehighlight", "prehighlight",
                     "Pre-highlight candidate problems in every document of PROJECT."),
    "align": ("annotator.commands.align", "align",
              "Print pre-highlighting suggestions for each pair in FILE.jsonl"),
    "agreement": ("annotator.commands.agreement", "agreement",
                  "Inter-annotator agreement of PROJECT, on the annotators' own"),
    "iaa": ("annotator.commands.iaa", "iaa", "Agreement of a ratings table FILE.csv"),
    "labelstudio": ("annotator.commands.labelstudio", "labelstudio",
                    "Send a project to a Label Studio server, or fetch its annotations back."),
    "export": ("annotator.commands.interop", "export",
               "Write the annotators' own work in PROJECT for another tool."),
    "adjudicate": ("annotator.commands.adjudicate", "adjudicate",
                   "Adjudication of finished documents"),
    "release": ("annotator.commands.release", "release", "Cut a gold release"),
    "backup": ("annotator.commands.backup", "backup",
               "Back up the database, releases included, to the new file PATH."),
    "restore": ("annotator.commands.backup", "restore",
                "Restore a backup written by `annotator backup` into an EMPTY database."),
    "eval": ("annotator.commands.evaluation", "eval_group",
             "Evaluation modes: QA quality, QA recall, PLABA, PlainFact."),
    "results": ("annotator.commands.evaluation", "results",
                "Results of an evaluation project (agreement and result tables) as JSON or CSV."),
}


class LazyGroup(click.Group):
    """Imports a command's module only when that command runs (or shows its own help)."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx, formatter):
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="annotator")
def main():
    """Annotate and adjudicate simplified biomedical text.

    \b
    A typical study:
      annotator init                                  create the database
      annotator user add ana --role annotator         add people (repeat)
      annotator project create trial --schema infolossqa --lead lee
      annotator import trial pairs.jsonl              load original/simplified pairs
      annotator assign trial                          give each document to 2 annotators
      annotator serve                                 open the web app

    The database is the SQLite file instance/annotator.sqlite3 unless
    ANNOTATOR_DATABASE_URL names another (e.g. postgresql://user@host/db).
    Try `annotator demo` for ready-made projects, two with a study under way.
    """
    # The settings object, read once from the environment for the whole command (its
    # commands, the app it serves, the worker it runs: docs/configuration.md).
    try:
        use(Config.from_env())
    except SettingError as exc:
        raise click.UsageError(str(exc)) from None
