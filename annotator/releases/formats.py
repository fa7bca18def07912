"""Byte-stable serialisations of release files.

Determinism rules: keys sorted, records in a fixed order, floats rounded to 6 decimals
(so summation order in the statistics cannot change a digit), no timestamps (the only one
of a release is ``created_at`` in MANIFEST.json), "\\n" line ends, UTF-8.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

FLOAT_DIGITS = 6
CSV_COLUMNS = ("document_id", "record", "type", "level", "item", "value", "source_spans",
               "target_spans", "source_text", "target_text", "fields", "method",
               "decision_id", "source_edit_ids", "source_annotators")


def stable(value: Any) -> Any:
    """``value`` with floats rounded and NaN/inf turned into None (JSON has neither)."""
    if isinstance(value, float):
        return None if not math.isfinite(value) else round(value, FLOAT_DIGITS) + 0.0
    if isinstance(value, dict):
        return {str(k): stable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [stable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return stable(value.item())
    return value


def json_text(value: Any, *, indent: int | None = 2) -> str:
    return json.dumps(stable(value), ensure_ascii=False, sort_keys=True, indent=indent,
                      allow_nan=False) + "\n"


def jsonl_text(records: list[dict]) -> str:
    return "".join(json.dumps(stable(r), ensure_ascii=False, sort_keys=True,
                              separators=(",", ":"), allow_nan=False) + "\n" for r in records)


def _spans(pairs: list[list[int]]) -> str:
    return ";".join(f"{s}-{e}" for s, e in pairs)


def gold_csv_text(records: list[dict]) -> str:
    """One row per gold edit and per gold rating of every released document."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rec in records:
        for e in rec["edits"]:
            p = e["provenance"]
            writer.writerow([
                rec["id"], "edit", e["edit_type"], "", "", "",
                _spans(e["spans"]["source"]), _spans(e["spans"]["target"]),
                " | ".join(e["span_texts"]["source"]), " | ".join(e["span_texts"]["target"]),
                json.dumps(e["fields"], ensure_ascii=False, sort_keys=True), p["decision"],
                p["decision_id"], ";".join(str(s["id"]) for s in p["source_edits"]),
                ";".join(sorted({s["annotator"] or "" for s in p["source_edits"]}))])
        for r in rec["ratings"]:
            p = r["provenance"]
            writer.writerow([
                rec["id"], "rating", r["field"], r["level"], r["item"],
                json.dumps(stable(r["value"]), ensure_ascii=False), "", "", "", "", "",
                r["method"], p["decision_id"], "",
                ";".join(sorted(set(p["values"]) | set(p["tiebreak"])))])
    return out.getvalue()
