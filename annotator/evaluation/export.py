"""Results as files: JSON (byte-stable, as release files are) and a two-column CSV of
dotted keys and values (e.g. ``results.by_model.gpt-4o.givenness.good,0.75``)."""

from __future__ import annotations

import csv
import io
import json

from annotator.core.stable_json import json_text
from annotator.evaluation.results import csv_rows


def results_json(data: dict) -> str:
    return json_text(data)


def results_csv(data: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["key", "value"])
    for key, value in csv_rows(json.loads(json_text(data))):
        writer.writerow([key, "" if value is None else value])
    return out.getvalue()
