"""`annotator schema show FILE`: what a schema file says, as this tool understood it."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import fail
from annotator.core.vocabulary import SIDE_LABELS

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


KINDS = {"yaml": "schema YAML", "thresh": "Thresh typology",
         "labelstudio": "Label Studio labeling config"}


def describe(schema, kind: str, text: str) -> list[str]:
    lines = [f"{KINDS[kind]}: {schema.name} ({schema.title}); one record = one "
             f"{schema.unit} pair"]
    lines.append(f"{len(schema.edit_types)} edit types:")
    for e in schema.edit_types:
        if e.document_level:
            where = "document-level (no spans)"
        else:
            where = " + ".join(SIDE_LABELS[s] for s in e.sides)
            where += ", several spans per side" if e.multi_span else ", one span per side"
        if e.composite:
            where += ", composite (made of constituent edits)"
        lines.append(f"  {e.name} ({e.label}): {where}")
        for f in e.fields:
            lines.append("    " + _field_line(f))
    if schema.ratings:
        lines.append(f"{len(schema.ratings)} rating fields:")
        for r in schema.ratings:
            lines.append(f"  [{r.level}] " + _field_line(r))
    if schema.prehighlighters:
        lines.append("pre-highlighters: " + ", ".join(schema.prehighlighters))
    if kind == "thresh":
        from annotator.schemas.thresh_typology import unused_keys

        unused = unused_keys(text)
        if unused:
            lines.append("not used (Thresh page layout only): " + ", ".join(unused))
    return lines


def _field_line(f) -> str:
    line = f"{f.name}: {f.type}" + (", required" if f.required else "")
    if f.options:
        line += " [" + ", ".join(_option(o) for o in f.options) + "]"
    if f.when is not None:
        parent, values = f.when
        line += f"  (asked when {parent} is " + " or ".join(repr(v) for v in values) + ")"
    return line


def _option(o) -> str:
    shown = repr(o.value)
    if o.agreement_value is not None:
        shown += f"={o.agreement_value}"
    return shown
