"""Byte-stable JSON, used wherever two runs on the same data must give the same bytes
(release files, evaluation results).

Rules: keys sorted, floats rounded to 6 decimals (so summation order in the statistics
cannot change a digit), NaN and infinities written as null, UTF-8 text, "\\n" line ends.
"""

from __future__ import annotations

import json
import math
from typing import Any

FLOAT_DIGITS = 6


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
