"""Results as files: JSON (byte-stable, as release files are) and a two-column CSV of
dotted keys and values (e.g. ``results.by_model.gpt-4o.givenness.good,0.75``)."""

from __future__ import annotations

import json

from annotator.core.stable_json import json_text
from annotator.core.tables import csv_text
from annotator.evaluation.results import csv_rows


def results_json(data: dict) -> str:
    return json_text(data)


def results_csv(data: dict) -> str:
    return csv_text(["key", "value"], csv_rows(json.loads(json_text(data))))
