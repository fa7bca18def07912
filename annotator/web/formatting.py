"""Jinja filters for numbers people read."""

from __future__ import annotations

import math


def duration(seconds) -> str:
    """Active time as people say it: "12 min 5 s", "1 h 3 min", "45 s", "0 s".

    Whole seconds are kept below an hour: "0 min" for 40 s of work read as nothing done.
    A sum that overflowed (times stored before imports bounded them) reads "unknown"
    instead of failing the page.
    """
    value = float(seconds or 0)
    if not math.isfinite(value):
        return "unknown"
    total = int(round(value))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def register(app) -> None:
    app.jinja_env.filters["duration"] = duration
