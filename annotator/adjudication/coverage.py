"""Coverage of the automatic rules, per edit type: how many units were accepted, merged,
rejected and left for the lead, and why each left unit could not be decided (issue 42:
a lead with a three-annotator study should see at once what is really disputed).

``accepted`` counts units taken as one annotator's edit (identical or composite), ``merged``
units written as one gold edit from several annotators' edits, ``rejected`` units with no
gold edit; ``left`` units nobody decided, each with the rules' category (``tie``,
``type split``, ``field conflict``, ...; see :mod:`rules`) and reason. A unit counts under
the edit type its verdict chose, else the type most of its annotators marked.

:func:`tally` sums the verdicts of one ``adjudicate auto`` run; :func:`project_coverage`
reads a project as it stands (decisions in force, and the rules' verdict on every unit still
open), for the queue page.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.overview import pending_verdicts, unit_type
from annotator.adjudication.store import (
    batch_reads,
    current_units,
    decided_units,
    edit_view,
    is_ready,
    original_assignments,
    source_edits,
)
from annotator.models import AdjudicationState, Document

ACTIONS = {"accept": "accepted", "merge": "merged", "reject": "rejected",
           "keep_both": "kept", "leave": "left"}


def tally(rows: Iterable[dict]) -> dict:
    """``rows``: {document, unit, action, unit_type, category, reason}. Returns
    {"by_type": {type: {accepted, merged, rejected, kept, left, why_left: {category: n}}},
    "left_units": [...]} sorted by type, then document and unit."""
    by_type: dict[str, dict] = {}
    left = []
    for row in rows:
        counts = by_type.setdefault(row["unit_type"], {**{v: 0 for v in ACTIONS.values()},
                                                       "why_left": {}})
        counts[ACTIONS[row["action"]]] += 1
        if row["action"] == "leave":
            why = counts["why_left"]
            why[row["category"]] = why.get(row["category"], 0) + 1
            left.append({k: row[k] for k in ("document", "unit", "unit_type", "category",
                                             "reason")})
    for counts in by_type.values():
        counts["why_left"] = dict(sorted(counts["why_left"].items()))
    left.sort(key=lambda r: (r["unit_type"], r["document"], r["unit"]))
    return {"by_type": dict(sorted(by_type.items())), "left_units": left}


def project_coverage(session: Session, project) -> dict:
    """The coverage of a project's ready documents as they stand: decided units by the
    decision in force, open units by what the rules say of them now (a unit the rules would
    decide is left with the category ``rules not applied``). Reads only."""
    complete = set(session.scalars(select(AdjudicationState.document_id).join(Document).where(
        Document.project_id == project.id, AdjudicationState.status == "complete")))
    rows = []
    with batch_reads(session):
        for document in session.scalars(select(Document).where(
                Document.project_id == project.id).order_by(Document.position, Document.id)):
            assignments = original_assignments(session, document)
            if not is_ready(assignments):
                continue
            views = {e.id: edit_view(e) for e in source_edits(assignments)}
            decided = decided_units(session, document)
            for unit in current_units(session, document, freeze=False):
                decision = decided.get(unit.key)
                if decision is None:
                    continue
                outcomes = decision.after if isinstance(decision.after, list) else []
                rows.append({"document": document.external_id, "unit": unit.key,
                             "action": decision.kind, "category": None, "reason": decision.note,
                             "unit_type": unit_type(outcomes[0]["edit_type"] if outcomes
                                                    else None, [views[i] for i in unit.edit_ids
                                                                if i in views])})
            if document.id in complete:
                continue
            for unit, members, verdict in pending_verdicts(session, document, freeze=False):
                category, reason = verdict.category, verdict.reason
                if verdict.action != "leave":
                    category = "rules not applied"
                    reason = f"the rules would {verdict.action} it: {verdict.reason}"
                rows.append({"document": document.external_id, "unit": unit.key,
                             "action": "leave", "category": category, "reason": reason,
                             "unit_type": unit_type(verdict.edit_type, members)})
    return tally(rows)
