"""The agreement summary on the lead's project page, cached per project.

Recomputed only when the project's annotations change (see
:func:`annotator.agreement_input.change_marker`); a short bootstrap and no embeddings keep
it fast enough to compute inside a page request. The full report is the `agreement`
command's job.
"""

from __future__ import annotations

import threading

from sqlalchemy.orm import Session

from annotator.agreement.report import build_report
from annotator.agreement_input import change_marker, load_agreement_input
from annotator.models import Project

LIVE_BOOTSTRAP = 200
_cache: dict[int, tuple[tuple, dict]] = {}
_lock = threading.Lock()


def live_summary(session: Session, project: Project) -> dict:
    marker = change_marker(session, project)
    with _lock:
        cached = _cache.get(project.id)
    if cached is not None and cached[0] == marker:
        return cached[1]
    report = build_report(load_agreement_input(session, project), bootstrap=LIVE_BOOTSTRAP)
    summary = {"counts": report["counts"], "rows": report["interpretation"],
               "warnings": report["warnings"],
               "spans": {side: {kind: entry[kind]["macro"] for kind in ("exact", "partial")
                                if kind in entry}
                         for side, entry in report["spans"].items()}}
    with _lock:
        _cache[project.id] = (marker, summary)
    return summary
