"""Majority and tie rules for ratings and edit fields (pure; no database).

Devaraj et al. (2022) give each item the label a majority of annotators chose; an item on
which every annotator differs has no final label: {1, 1, 2} -> 1, {2, 1, 0} -> no label.
Ties ({1, 2} from two annotators, {1, 1, 2, 2}) have no majority either: the lead decides,
or a third annotator's label breaks the tie (PlainFact, Fang et al. 2024: two annotators, a
third resolves disagreements). Only categorical fields (choice, ordinal, multichoice) are
resolved by majority; free text never is.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from annotator.agreement.coefficients import majority_label

AUTO_FIELD_TYPES = ("choice", "ordinal", "multichoice")


def _key(value: Any) -> str:
    """A hashable, order-stable key for any JSON value (multichoice lists included)."""
    if isinstance(value, list):
        value = sorted(value, key=lambda v: json.dumps(v, sort_keys=True))
    return json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class LabelOutcome:
    """The verdict on one item: ``status`` is 'unanimous', 'majority', 'tie' (two or more
    values share the top count) or 'all_different' (every annotator differs); ``value`` is
    set for the first two. Two annotators who differ are a 'tie'."""

    status: str
    value: Any = None
    counts: tuple[tuple[str, int], ...] = ()

    @property
    def resolved(self) -> bool:
        return self.status in ("unanimous", "majority")


def resolve_labels(values: Sequence[Any]) -> LabelOutcome:
    """Apply the majority rule to the (non-missing) values given for one item."""
    present = [v for v in values if v not in (None, "")]
    if not present:
        return LabelOutcome("missing")
    keys = [_key(v) for v in present]
    original = {k: json.loads(k) for k in keys}  # canonical: multichoice sorted
    counts = Counter(keys)
    ranked = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    winner = majority_label(keys)
    if winner is not None:
        status = "unanimous" if len(counts) == 1 else "majority"
        return LabelOutcome(status, original[winner], ranked)
    if len(present) > 2 and len(counts) == len(present):
        return LabelOutcome("all_different", None, ranked)
    return LabelOutcome("tie", None, ranked)


def can_auto_resolve(field_type: str) -> bool:
    return field_type in AUTO_FIELD_TYPES


def disagreement(values: Sequence[Any]) -> float:
    """Share of annotator pairs that disagree on an item (0 = all agree)."""
    present = [_key(v) for v in values if v not in (None, "")]
    n = len(present)
    if n < 2:
        return 0.0
    agreeing = sum(c * (c - 1) for c in Counter(present).values())
    return 1.0 - agreeing / (n * (n - 1))


def merged_fields(field_values: Sequence[dict], field_types: dict[str, str]) -> dict[str, dict]:
    """For a unit of edits: per field, the majority value and the verdict.

    Categorical fields go through :func:`resolve_labels`; text fields are 'unanimous' only
    when every annotator wrote the same text (after trimming), else 'differs'.
    """
    result = {}
    for name, ftype in field_types.items():
        values = [f.get(name) for f in field_values]
        if can_auto_resolve(ftype):
            outcome = resolve_labels(values)
            result[name] = {"status": outcome.status, "value": outcome.value}
        else:
            texts = {str(v).strip() for v in values if v not in (None, "")}
            result[name] = ({"status": "unanimous", "value": texts.pop()} if len(texts) == 1
                            and all(v not in (None, "") for v in values)
                            else {"status": "differs" if texts else "missing", "value": None})
    return result
