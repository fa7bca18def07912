"""Row ids as every database of the tool can hold them (issue 41, finding 5).

Ids are SQLAlchemy ``Integer`` columns: 64 bits in SQLite, 32 in PostgreSQL, where a
larger number in a query is an error ("integer out of range"), not "no such row". A value
that is no row id on either database (beyond 2**31 - 1, negative, not an integer) is
treated as one that names no row, the same on both: the URL converter
(:mod:`annotator.web.url_ids`), the JSON bodies' id checks (:mod:`annotator.web.validation`)
and the annotation store's lookups use it.
"""

from __future__ import annotations

from typing import Any

# The largest value of PostgreSQL's INTEGER, the narrowest id column of the databases.
MAX_ROW_ID = 2**31 - 1


def is_row_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ROW_ID
