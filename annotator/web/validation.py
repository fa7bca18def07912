"""Explicit checks of JSON request bodies: each endpoint says which keys it reads and what
they must be, and a body that does not fit is answered 422 with one problem per key (the
annotation API's format), instead of a KeyError or TypeError deep in the domain code being
turned into an answer (which would hide real programming errors too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from flask import abort, request

from annotator.core import strict_json
from annotator.core.problems import ValidationFailed
from annotator.core.row_ids import is_row_id


@dataclass(frozen=True)
class Kind:
    """What a value must be: a test and the words for the error message."""

    test: Callable[[Any], bool]
    words: str


# Ids name rows: a number no row id can be is refused here, not by the database (issue 41).
INT = Kind(is_row_id, "an integer id")
TEXT = Kind(lambda v: isinstance(v, str), "text")
FLAG = Kind(lambda v: isinstance(v, bool), "true or false")
OBJECT = Kind(lambda v: isinstance(v, dict), "an object")
LIST = Kind(lambda v: isinstance(v, list), "a list")
ANY = Kind(lambda v: True, "any value")
IDS = Kind(lambda v: isinstance(v, list) and all(is_row_id(i) for i in v), "a list of integer ids")
TEXTS = Kind(lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
             "a list of texts")
ID_GROUPS = Kind(lambda v: isinstance(v, list) and all(IDS.test(g) for g in v),
                 "a list of lists of integer ids")


@dataclass(frozen=True)
class Key:
    name: str
    kind: Kind
    required: bool = True


def required(name: str, kind: Kind) -> Key:
    return Key(name, kind, True)


def optional(name: str, kind: Kind) -> Key:
    """May be absent or null."""
    return Key(name, kind, False)


def check_body(body: dict, keys: tuple[Key, ...]) -> dict[str, Any]:
    """The declared keys of ``body`` (absent optional keys as None), or ValidationFailed
    naming every key that is missing or of the wrong kind."""
    problems, values = [], {}
    for key in keys:
        value = body.get(key.name)
        if value is None:
            if key.required:
                problems.append({"field": key.name, "message": f"required: {key.kind.words}"})
        elif not key.kind.test(value):
            problems.append({"field": key.name, "message": f"expected {key.kind.words}"})
        values[key.name] = value
    if problems:
        raise ValidationFailed(problems)
    return values


def form_and_query_problem(values) -> str | None:
    """The first form or query-string value (or key) holding a NUL character, as a message.

    PostgreSQL refuses NUL in any text parameter (a DataError, i.e. a 500, wherever a
    form value reaches a query: the login name, a bulk action's user name) and SQLite
    would store it; no field of the tool accepts one. ``values``: a MultiDict."""
    for key, value in values.items(multi=True):
        if "\x00" in key or (isinstance(value, str) and "\x00" in value):
            shown_key = key.replace("\x00", "\\x00")
            return f"field {shown_key!r}: contains a NUL character"
    return None


def refuse_nul_characters() -> None:
    """Before every request: a NUL in a form or query value is a 422 that names the field,
    before any view or query runs."""
    problem = form_and_query_problem(request.args) or (
        form_and_query_problem(request.form) if request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data") else None)
    if problem:
        abort(422, description=problem)


def body() -> dict:
    """The request's JSON object, parsed strictly, for every JSON endpoint (the annotation
    API and the adjudication decisions alike): NaN/Infinity, deep nesting or a syntax error
    are a 400; a NUL character or lone surrogate a 422 naming the field."""
    try:
        data = strict_json.loads(strict_json.decode_bytes(request.get_data()))
    except strict_json.StrictJSONError as exc:
        abort(400, description=f"request body: {exc}")
    if not isinstance(data, dict):
        abort(400, description="expected a JSON object")
    found = strict_json.value_problem(data)
    if found:
        raise ValidationFailed([{"field": found[0], "message": found[1]}])
    return data
