"""`annotator schema show FILE`: what a schema file says, as this tool understood it."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import fail

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.group()
def schema():
    """Read schema files (this tool's YAML, Thresh typologies, Label Studio configs)."""


@schema.command("show")
@click.argument("file", metavar="FILE")
@click.option("--yaml", "as_yaml", is_flag=True,
              help="Print the schema as this tool's YAML (what a project made from FILE "
                   "stores).")
def show(file, as_yaml):
    """Print what FILE was understood to say: edit types and their sides, fields, options
    and conditions, ratings, so a lead can check before a study starts.

    FILE is a built-in schema name or a file; its kind is read from its content.
    """
    from annotator.schemas import SchemaError, resolve
    from annotator.schemas.files import dump_schema, load_schema_file, schema_kind
    from annotator.schemas.summary import describe

    try:
        path = resolve(file)
        loaded = load_schema_file(path)
    except SchemaError as exc:
        fail(str(exc))
    if as_yaml:
        click.echo(dump_schema(loaded), nl=False)
        return
    text = Path(path).read_text(encoding="utf-8")
    click.echo("\n".join(describe(loaded, schema_kind(text), text)))
