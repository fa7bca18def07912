"""Numeric ids in URLs (``/projects/<int:project_id>``, ``/api/assignments/<int:...>``):
one converter for every route (issue 41, finding 5).

Werkzeug's ``int`` converter takes any run of digits, so ``/projects/99999999999999999999``
reached the database as a number beyond its integers (OverflowError from the SQLite
driver, "integer out of range" from PostgreSQL: a 500), and 5,000 digits reached Python's
own limit on converting digits. :class:`DatabaseIdConverter` matches only what a row id
can be on every database (0 to 2**31 - 1, :mod:`annotator.core.row_ids`): anything else
matches no route at all, a 404 as for an id that does not exist (a refusal after matching
would let a rule of the same path with another method answer 405). The app factory
installs it as the ``int`` converter, so every ``<int:...>`` route, present and future,
uses it; :func:`database_id` reads ids sent in query strings and forms the same way.
"""

from __future__ import annotations

from werkzeug.routing import IntegerConverter

from annotator.core.row_ids import MAX_ROW_ID, is_row_id


def digits_at_most(number: int) -> str:
    """A regular expression of the decimal numbers from 0 to ``number`` (no sign), e.g.
    for 255: ``\\d{1,2}|[0-1]\\d{2}|2[0-4]\\d{1}|25[0-4]\\d{0}|255``."""
    digits = str(number)
    shorter = [rf"\d{{1,{len(digits) - 1}}}"] if len(digits) > 1 else []
    same_length = [f"{digits[:i]}[0-{int(d) - 1}]" + rf"\d{{{len(digits) - i - 1}}}"
                   for i, d in enumerate(digits) if d != "0"]
    return "(?:" + "|".join(shorter + same_length + [digits]) + ")"


class DatabaseIdConverter(IntegerConverter):
    regex = digits_at_most(MAX_ROW_ID)

    def __init__(self, url_map, *args, **kwargs):
        super().__init__(url_map, *args, **kwargs)
        self.max = MAX_ROW_ID if self.max is None else min(self.max, MAX_ROW_ID)


def install(app) -> None:
    """Make ``<int:...>`` mean a database id: before any blueprint adds a rule."""
    app.url_map.converters["int"] = DatabaseIdConverter


def database_id(value: str) -> int:
    """A query or form value (``?project=7``, ``project_id=7``) as a row id, for werkzeug's
    ``request.args.get(..., type=database_id)``: a value that no row id can be raises
    ValueError, so werkzeug gives the default (None) instead of a database error later."""
    number = int(value)
    if not is_row_id(number):
        raise ValueError(f"{value[:40]!r}: not a row id")
    return number
