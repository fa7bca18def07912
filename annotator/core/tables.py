"""Tables written as CSV (results, gold release CSV, annotation exports): built as a pandas
DataFrame of text cells and written with ``to_csv``.

Every cell is turned into text first, exactly as Python's ``csv`` module would write it
(``None`` -> empty, numbers by ``str``, which for floats is the shortest round-tripping
``repr``), so pandas never re-formats a value (no ``1.0`` for ``1``, no ``NaN``) and the
bytes stay what release and export files have always been: header row, minimal quoting,
"\\n" line ends, UTF-8 text. pandas is imported here, on use, so the CLI starts fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def cell_text(value: Any) -> str:
    """A cell as the ``csv`` module writes it: ``None`` is empty, anything else ``str``."""
    return "" if value is None else str(value)


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text of ``rows`` under the header ``columns`` (every row as long as the header)."""
    # pandas (half a second to import) only for the commands that write CSV
    import pandas as pd

    cells = [[cell_text(v) for v in row] for row in rows]
    for number, row in enumerate(cells, start=1):
        if len(row) != len(columns):
            # A programming error, never bad input: say which row, do not pad or cut it.
            raise ValueError(f"CSV row {number} has {len(row)} cells, the header {len(columns)}")
    frame = pd.DataFrame(cells, columns=list(columns), dtype=object)
    return frame.to_csv(index=False, lineterminator="\n")
