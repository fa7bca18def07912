"""How a rejected value is quoted in an error message: as it appeared (JSON), shortened
for one line with its length said, so nothing looks silently cut. Every importer and the
annotation API use it, so a lead reads the same "(got ...)" everywhere."""

from __future__ import annotations

import json
import reprlib
from typing import Any


def shown(value: Any, limit: int = 120) -> str:
    """``value`` as JSON text (repr when it is not JSON), at most ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text)} characters)"
    return text


def got(value: Any) -> str:
    """The " (got VALUE)" tail of an error message."""
    return f" (got {shown(value)})"


def _bounded_repr(limit: int) -> reprlib.Repr:
    """reprlib's formatter cut at 6 items per list or mapping and 3 levels: a rejected
    value may be a huge or deep structure, formatted only this far."""
    bounded = reprlib.Repr()
    bounded.maxlevel = 3
    for name in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque",
                 "maxarray"):
        setattr(bounded, name, 6)
    bounded.maxstring = bounded.maxother = limit
    return bounded


def shown_repr(value: Any, limit: int = 120) -> str:
    """``value`` as Python writes it (``'yes'``, ``[1, 2]``), at most ``limit`` characters:
    for messages that quote a value as Python does (schema files). Only a bounded prefix
    is ever formatted (issue 41: a schema error once formatted a whole alias bomb)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    text = _bounded_repr(limit).repr(value)
    return text if len(text) <= limit else f"{text[:limit]}..."
