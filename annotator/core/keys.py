"""The key of a rating item, ``level|item|field`` (e.g. ``sentence|3|SIM``), built and parsed
here only.

Ratings are unique per assignment on (level, item, field); adjudication decisions store the
key in ``item_key``, the evaluation tie-break form uses it as input name, and the JSON
payloads carry it on every rating (``key``) so that the pages never build it themselves.
"""

from __future__ import annotations

SEPARATOR = "|"


class BadKey(ValueError):
    """Not a ``level|item|field`` key."""


def rating_key(level: str, item: str, field: str) -> str:
    return SEPARATOR.join((level, str(item), field))


def parse_rating_key(key: str) -> tuple[str, str, str]:
    parts = key.split(SEPARATOR) if isinstance(key, str) else []
    if len(parts) != 3 or not parts[0] or not parts[2]:
        raise BadKey(f"not a rating item key (level|item|field): {key!r}")
    return parts[0], parts[1], parts[2]
