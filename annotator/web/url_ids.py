"""Numeric ids in URLs (``/projects/<int:project_id>``, ``/api/assignments/<int:...>``):
one converter for every route (issue 41, finding 5).

Werkzeug's ``int`` converter takes any run of digits, so ``/projects/99999999999999999999``
reached the database as a number beyond its 64-bit integers (OverflowError from the
SQLite driver: a 500), and 5,000 digits reached Python's own limit on converting digits.
:class:`DatabaseIdConverter` matches only what a row id can be, 0 to 2**63 - 1 (SQLite's
INTEGER, PostgreSQL's BIGINT): anything else matches no route at all, a 404 as for an id
that does not exist (a refusal after matching would let a rule of the same path with
another method answer 405). The app factory installs it as the ``int`` converter, so every
``<int:...>`` route, present and future, uses it.
"""

from __future__ import annotations

from werkzeug.routing import IntegerConverter

MAX_DATABASE_ID = 2**63 - 1


def digits_at_most(number: int) -> str:
    """A regular expression of the decimal numbers from 0 to ``number`` (no sign), e.g.
    for 255: ``\\d{1,2}|[0-1]\\d{2}|2[0-4]\\d{1}|25[0-4]\\d{0}|255``."""
    digits = str(number)
    shorter = [rf"\d{{1,{len(digits) - 1}}}"] if len(digits) > 1 else []
    same_length = [f"{digits[:i]}[0-{int(d) - 1}]" + rf"\d{{{len(digits) - i - 1}}}"
                   for i, d in enumerate(digits) if d != "0"]
    return "(?:" + "|".join(shorter + same_length + [digits]) + ")"


class DatabaseIdConverter(IntegerConverter):
    regex = digits_at_most(MAX_DATABASE_ID)

    def __init__(self, url_map, *args, **kwargs):
        super().__init__(url_map, *args, **kwargs)
        self.max = MAX_DATABASE_ID if self.max is None else min(self.max, MAX_DATABASE_ID)


def install(app) -> None:
    """Make ``<int:...>`` mean a database id: before any blueprint adds a rule."""
    app.url_map.converters["int"] = DatabaseIdConverter


def database_id(value: str) -> int:
    """A query or form value (``?project=7``, ``project_id=7``) as a row id, for werkzeug's
    ``request.args.get(..., type=database_id)``: a value that no row id can be raises
    ValueError, so werkzeug gives the default (None) instead of an OverflowError later."""
    number = int(value)
    if not 0 <= number <= MAX_DATABASE_ID:
        raise ValueError(f"{value[:40]!r}: not a row id")
    return number
