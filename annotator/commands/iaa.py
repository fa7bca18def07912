"""``annotator iaa FILE.csv``: one agreement coefficient of a plain ratings table.

The CSV has a header row of rater names; every further row is one unit (item), every
column one rater; an empty cell is a missing rating. Prints the number on stdout. A file
that cannot be read exits with status 2 and names the file, line and column.
"""

from __future__ import annotations

import csv
import math
import sys

import click

from annotator.agreement.alpha import ALPHA_LEVELS, krippendorff_alpha
from annotator.agreement.coefficients import (
    category_counts,
    cohen_kappa,
    fleiss_kappa,
    percent_agreement,
    randolph_kappa,
)
from annotator.agreement.errors import UndefinedAgreement

METRICS = ("alpha", "randolph", "fleiss", "cohen", "percent")


class TableError(ValueError):
    pass


def read_table(path: str, numeric: bool) -> tuple[list[str], list[list[object]]]:
    """(rater names, rows of values) from the CSV; numbers are parsed when ``numeric``."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            lines = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TableError(f"{path}: cannot read the file: {exc}") from None
    if not lines or not any(c.strip() for c in lines[0]):
        raise TableError(f"{path}: line 1: expected a header row of rater names")
    header = [c.strip() for c in lines[0]]
    for col, name in enumerate(header, 1):
        if not name:
            raise TableError(f"{path}: line 1, column {col}: empty rater name")
    rows = []
    for lineno, cells in enumerate(lines[1:], 2):
        if not cells or not any(c.strip() for c in cells):
            continue  # blank line
        if len(cells) != len(header):
            raise TableError(f"{path}: line {lineno}, column {min(len(cells), len(header)) + 1}: "
                             f"expected {len(header)} columns, found {len(cells)}")
        row = []
        for col, cell in enumerate(cells, 1):
            cell = cell.strip()
            if cell == "":
                row.append(None)
            elif numeric:
                try:
                    value = float(cell)
                except ValueError:
                    raise TableError(f"{path}: line {lineno}, column {col} ({header[col - 1]}): "
                                     f"expected a number, found {cell!r}") from None
                if not math.isfinite(value):
                    raise TableError(f"{path}: line {lineno}, column {col}: not a finite number")
                row.append(int(value) if value.is_integer() else value)
            else:
                row.append(cell)
        rows.append(row)
    if not rows:
        raise TableError(f"{path}: line 2: no rows of ratings after the header")
    return header, rows


def compute(metric: str, header, rows, level: str, categories: int | None) -> float:
    columns = [list(c) for c in zip(*rows)]
    observed = sorted({v for r in rows for v in r if v is not None}, key=str)
    if metric == "alpha":
        return krippendorff_alpha(columns, level)
    if metric == "cohen":
        if len(header) != 2:
            raise click.UsageError(
                f"Cohen's kappa needs exactly 2 rater columns, found {len(header)}"
            )
        return cohen_kappa(columns[0], columns[1])
    counts = category_counts(rows, observed)
    if metric == "randolph":
        if categories is None:
            click.echo(f"warning: k = {len(observed)} (categories seen in the file); pass "
                       "--categories with the number of categories the schema offers", err=True)
            categories = len(observed)
        if categories < len(observed):
            raise click.UsageError(f"--categories {categories} is less than the "
                                   f"{len(observed)} distinct values in the file")
        return randolph_kappa(counts, categories)
    if metric == "fleiss":
        return fleiss_kappa(counts)
    return percent_agreement(counts)


@click.command("iaa")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--metric", type=click.Choice(METRICS), default="alpha", show_default=True,
              help="Coefficient to compute.")
@click.option("--level", type=click.Choice(ALPHA_LEVELS), default="nominal", show_default=True,
              help="Level of measurement (alpha only).")
@click.option("--categories", type=click.IntRange(min=2), default=None,
              help="k for Randolph's kappa: the number of categories offered.")
def iaa(file, metric, level, categories):
    """Agreement of a ratings table FILE.csv (rows = units, columns = raters, header = rater
    names, empty cell = missing). Prints the coefficient."""
    numeric = metric == "alpha" and level != "nominal"
    try:
        header, rows = read_table(file, numeric)
        value = compute(metric, header, rows, level, categories)
    except TableError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.UsageError as exc:
        click.echo(f"error: {file}: {exc.message}", err=True)
        sys.exit(2)
    except UndefinedAgreement as exc:
        click.echo(f"error: {file}: {metric} is undefined: {exc}", err=True)
        sys.exit(1)
    click.echo(f"{value:.6f}")
