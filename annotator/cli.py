"""The ``annotator`` command: one entry point for leads and scripts.

Each area keeps its commands in ``annotator/commands/``; this module only assembles them.
Commands are imported lazily so that ``annotator --help`` does not load the embedding model.
"""

from __future__ import annotations

import importlib

import click

# command name -> (module, attribute)
COMMANDS = {
    "init": ("annotator.commands.setup", "init"),
    "user": ("annotator.commands.setup", "user"),
    "project": ("annotator.commands.setup", "project"),
    "schema": ("annotator.commands.schema", "schema"),
    "import": ("annotator.commands.data", "import_command"),
    "assign": ("annotator.commands.data", "assign"),
    "demo": ("annotator.commands.serve", "demo"),
    "serve": ("annotator.commands.serve", "serve"),
    "prehighlight": ("annotator.commands.prehighlight", "prehighlight"),
    "align": ("annotator.commands.align", "align"),
    "agreement": ("annotator.commands.agreement", "agreement"),
    "iaa": ("annotator.commands.iaa", "iaa"),
    "labelstudio": ("annotator.commands.labelstudio", "labelstudio"),
    "export": ("annotator.commands.interop", "export"),
    "adjudicate": ("annotator.commands.adjudicate", "adjudicate"),
    "release": ("annotator.commands.release", "release"),
    "eval": ("annotator.commands.evaluation", "eval_group"),
    "results": ("annotator.commands.evaluation", "results"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name]
        return getattr(importlib.import_module(module), attribute)


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
    Try `annotator demo` for a ready-made project with three users.
    """
