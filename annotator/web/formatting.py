"""Jinja filters for numbers people read."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone

from markupsafe import Markup, escape


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


def local_time(moment) -> Markup:
    """A stored time (datetime or ISO text, UTC; SQLite keeps no offset) as
    ``<time datetime="ISO UTC">ISO UTC</time>``: ``static/js/local_time.js`` shows it in the
    reader's time zone and locale, the ISO stays in the attribute (issue 43)."""
    if not moment:
        return Markup("")
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return Markup("<time>{}</time>").format(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    iso = moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    return Markup('<time datetime="{0}">{0}</time>').format(escape(iso))


# An ISO time inside a sentence the server words (static/js/prehighlight_progress.js has
# the same pattern).
ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")


def times_local(sentence) -> Markup:
    """A sentence (escaped) whose ISO times become ``<time>`` elements, shown in the
    reader's time zone like :func:`local_time`."""
    text = str(sentence or "")
    parts, at = [], 0
    for match in ISO_TIME.finditer(text):
        parts += [escape(text[at:match.start()]), local_time(match.group(0))]
        at = match.end()
    parts.append(escape(text[at:]))
    return Markup("").join(parts)


def register(app) -> None:
    app.jinja_env.filters["duration"] = duration
    app.jinja_env.filters["local_time"] = local_time
    app.jinja_env.filters["times_local"] = times_local
