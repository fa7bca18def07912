"""How a rejected value is quoted in an error message: as it appeared (JSON), shortened
for one line with its length said, so nothing looks silently cut. Every importer and the
annotation API use it, so a lead reads the same "(got ...)" everywhere."""

from __future__ import annotations

import json
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
