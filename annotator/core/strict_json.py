"""Strict JSON, in and out: the one parser for files and request bodies.

Python's ``json`` accepts ``NaN``/``Infinity`` (not JSON: browsers refuse to parse a page
that carries them), raises ``RecursionError`` on deep nesting and lets lone surrogates
(``"\\ud800"``) through to the database, where they fail. Here each of these is a
:class:`StrictJSONError` with a message, and :func:`value_problem` names the field of a
parsed value that holds a NUL character, a lone surrogate, a non-finite number or nesting
deeper than :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64  # deeper than any record the tool reads or writes
# Integers are stored in 64-bit columns (PostgreSQL BIGINT, SQLite INTEGER): a larger one
# cannot be an id, an offset or a count, and a 5,000-digit literal would otherwise reach
# Python's int-conversion digit limit (a ValueError, i.e. a 500) before any check.
MAX_INTEGER = 2**63 - 1
_MAX_INTEGER_DIGITS = len(str(MAX_INTEGER))
# Time spent on one document: a year is far beyond any real session, and 1e308 seconds
# overflows date arithmetic where durations are shown.
MAX_SECONDS = 366 * 24 * 3600


class StrictJSONError(ValueError):
    pass


def _refuse_constant(name: str):
    raise StrictJSONError(f"{name} is not JSON (no NaN or Infinity): use null or a number")


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_INTEGER_DIGITS:
        raise StrictJSONError(f"integer {literal[:20]}... has {len(literal.lstrip('-'))} "
                              f"digits: at most {MAX_INTEGER} is accepted")
    return int(literal)


DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_bounded_int)


def loads(text: str) -> Any:
    try:
        return DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"not valid JSON ({exc.msg} at line {exc.lineno} column "
                              f"{exc.colno})") from None
    except RecursionError:
        raise StrictJSONError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def decode_bytes(data: bytes) -> str:
    """Bytes as UTF-8 text, refusing invalid bytes: decoding with replacement would store
    U+FFFD in place of what the client sent."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StrictJSONError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                              f"{exc.start})") from None


def raw_decode(text: str, position: int) -> tuple[Any, int]:
    """``json.JSONDecoder.raw_decode`` with the strict rules (for JSON arrays of records)."""
    try:
        return DECODER.raw_decode(text, position)
    except RecursionError:
        raise StrictJSONError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def seconds_problem(value: Any) -> str | None:
    """Why ``value`` is not a time spent in seconds (a number from 0 to :data:`MAX_SECONDS`),
    or None. One rule for the timer API and every importer."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and 0 <= value <= MAX_SECONDS):
        return f"time spent must be a non-negative number of seconds, at most {MAX_SECONDS}"
    return None


def dumps(value: Any, **options) -> str:
    return json.dumps(value, allow_nan=False, **options)


def _string_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate {text[exc.start]!r} at position {exc.start} "
                "(not valid Unicode)")
    return None


def value_problem(value: Any, root: str = "") -> tuple[str, str] | None:
    """(field path, message) of the first unacceptable part of ``value``, or None.

    Walks iteratively, so hostile nesting cannot exhaust the stack."""
    stack: list[tuple[Any, str, int]] = [(value, root, 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path or "(record)", f"nested too deeply (more than {MAX_DEPTH} levels)"
        if isinstance(item, str):
            problem = _string_problem(item)
            if problem:
                return path or "(record)", problem
        elif isinstance(item, float) and not math.isfinite(item):
            return path or "(record)", f"{item} is not a JSON number"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_INTEGER:
            return path or "(record)", f"integer {item} is out of range (at most {MAX_INTEGER})"
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = _string_problem(str(key))
                name = str(key).encode("utf-8", "backslashreplace").decode("utf-8")
                child_path = f"{path}.{name}" if path else name
                if problem:
                    return child_path, f"key {problem}"
                stack.append((child, child_path, depth + 1))
        elif isinstance(item, (list, tuple)):
            for i, child in enumerate(item):
                stack.append((child, f"{path}[{i}]", depth + 1))
    return None
