"""Release files beyond JSON: the flat gold CSV. JSON and JSON Lines come from
:mod:`annotator.core.stable_json` (byte-stable: keys sorted, floats rounded, records in a
fixed order, no timestamps except ``created_at`` in MANIFEST.json, "\\n" line ends, UTF-8).
"""

from __future__ import annotations

import json

from annotator.core.stable_json import stable
from annotator.core.tables import csv_text

CSV_COLUMNS = ("document_id", "record", "type", "level", "item", "value", "source_spans",
               "target_spans", "source_text", "target_text", "fields", "method",
               "decision_id", "source_edit_ids", "source_annotators")


def _spans(pairs: list[list[int]]) -> str:
    return ";".join(f"{s}-{e}" for s, e in pairs)


def gold_csv_text(records: list[dict]) -> str:
    """One row per gold edit and per gold rating of every released document."""
    rows = []
    for rec in records:
        for e in rec["edits"]:
            p = e["provenance"]
            rows.append([
                rec["id"], "edit", e["edit_type"], "", "", "",
                _spans(e["spans"]["source"]), _spans(e["spans"]["target"]),
                " | ".join(e["span_texts"]["source"]), " | ".join(e["span_texts"]["target"]),
                json.dumps(e["fields"], ensure_ascii=False, sort_keys=True), p["decision"],
                p["decision_id"], ";".join(str(s["id"]) for s in p["source_edits"]),
                ";".join(sorted({s["annotator"] or "" for s in p["source_edits"]}))])
        for r in rec["ratings"]:
            p = r["provenance"]
            rows.append([
                rec["id"], "rating", r["field"], r["level"], r["item"],
                json.dumps(stable(r["value"]), ensure_ascii=False), "", "", "", "", "",
                r["method"], p["decision_id"], "",
                ";".join(sorted(set(p["values"]) | set(p["tiebreak"])))])
    return csv_text(CSV_COLUMNS, rows)
