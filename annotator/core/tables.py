"""Tables written as CSV (results, gold release CSV, annotation exports): built as a pandas
DataFrame of text cells and written with ``to_csv``.

Every cell is turned into text first, exactly as Python's ``csv`` module would write it
(``None`` -> empty, numbers by ``str``, which for floats is the shortest round-tripping
``repr``), so pandas never re-formats a value (no ``1.0`` for ``1``, no ``NaN``) and the
bytes stay what release and export files have always been: header row, minimal quoting,
"\\n" line ends, UTF-8 text. pandas is imported here, on use, so the CLI starts fast.

Every cell is also made safe to open in a spreadsheet (issue 41, finding 4; OWASP, "CSV
Injection"): a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is what Excel, LibreOffice and Google Sheets run as a formula (``=HYPERLINK(...)``,
``=cmd|' /C calc'!A0``), so it is written with a leading ``'``, which spreadsheets show as
text. A plain number (``-1``, Devaraj's severity; ``+0.5``; ``-2e-3``) is no formula and
is written as it is, so numeric columns stay numeric. A cell that starts with ``'`` before
such a formula lead gets one more ``'``, so :func:`cell_value` can undo exactly what
:func:`spreadsheet_safe` did: the tool's CSV import reads back the original value. JSON
files (gold.jsonl, results.json, the JSONL export) keep the raw values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def cell_text(value: Any) -> str:
    """A cell as the ``csv`` module writes it (``None`` is empty, anything else ``str``),
    made spreadsheet-safe."""
    return spreadsheet_safe("" if value is None else str(value))


def _quoted_formula(text: str) -> bool:
    """Whether ``text``, without its leading quotes, is a formula lead (not a number)."""
    bare = text.lstrip("'")
    return bare.startswith(FORMULA_LEADS) and not PLAIN_NUMBER.fullmatch(bare)


def spreadsheet_safe(text: str) -> str:
    """``text`` with a leading ``'`` when a spreadsheet would read it as a formula (or it
    already starts with quotes before one, so the quote can be told apart on reading)."""
    return f"'{text}" if _quoted_formula(text) else text


def cell_value(cell: str) -> str:
    """The value behind a cell :func:`spreadsheet_safe` wrote: its added quote removed."""
    return cell[1:] if cell.startswith("'") and _quoted_formula(cell) else cell


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text of ``rows`` under the header ``columns`` (every row as long as the header)."""
    # pandas (half a second to import) only for the commands that write CSV
    import pandas as pd

    cells = [[cell_text(v) for v in row] for row in rows]
    for number, row in enumerate(cells, start=1):
        if len(row) != len(columns):
            # A programming error, never bad input: say which row, do not pad or cut it.
            raise ValueError(f"CSV row {number} has {len(row)} cells, the header {len(columns)}")
    # The csv writer quotes a cell holding a character of its line terminator ("\n") but
    # not one holding a lone "\r", which spreadsheets and csv readers take as a row end:
    # "x\r=cmd|..." would begin a row with a formula. So a "\r" travels as "\n" and a
    # character no cell holds, which gets its cell quoted, and is put back after writing.
    marker = _absent_character(cells) if any("\r" in c for row in cells for c in row) else ""
    if marker:
        cells = [[c.replace("\r", "\n" + marker) for c in row] for row in cells]
    frame = pd.DataFrame(cells, columns=list(columns), dtype=object)
    text = frame.to_csv(index=False, lineterminator="\n")
    return text.replace("\n" + marker, "\r") if marker else text


def _absent_character(cells: list[list[str]]) -> str:
    """A private-use character that no cell holds (the first one tried, nearly always)."""
    return next(chr(code) for code in range(0xE000, 0xF900)
                if not any(chr(code) in c for row in cells for c in row))
