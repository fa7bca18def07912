"""Turn ratings and edits into rated units.

Rating fields: a unit is (document, item) at the field's level; each rater's value is mapped
to the schema's statistics value (``Option.stat_value``). Values that are not options of the
field, empty values, and ratings on documents outside the input are ignored and counted.
If a rater rated the same unit twice, the last rating wins.

Edit fields (choice/ordinal fields of an edit type, e.g. severity): agreement is computed over
*matched edit pairs*. Rule: on each document, for each pair of annotators and each edit type,
two edits match when their evidence spans overlap, i.e. share at least one character; the
evidence is the source-side spans (the target-side spans for edit types that have no source
side). Pairs are taken greedily by decreasing overlap (characters), one-to-one. Each matched
pair is a unit rated by its two annotators; unmatched edits do not enter the field's
agreement (they are what span F1 measures).
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from annotator.core.overlap import shared_characters

from .data import Edit, Rating
from .fields import Units


def stat_map(field) -> dict:
    """Stored option value -> statistics value (also keyed by the value's string form)."""
    out = {}
    for o in field.options:
        out[o.value] = o.stat_value
        out[str(o.value)] = o.stat_value
    return out


def rating_units(ratings: Sequence[Rating], field, doc_index: dict[str, int]) -> tuple[Units, int]:
    """Units of a rating field and the number of ratings ignored."""
    mapping = stat_map(field)
    cells: dict[tuple[str, str], dict] = {}
    ignored = 0
    for r in ratings:
        if r.field != field.name or (field.level and r.level != field.level):
            continue
        if r.document_id not in doc_index:
            ignored += 1
            continue
        value = _convert(r.value, field, mapping)
        if value is None:
            ignored += 1
            continue
        cells.setdefault((r.document_id, str(r.item)), {})[r.annotator] = value
    keys = sorted(cells, key=lambda k: (doc_index[k[0]], _item_key(k[1])))
    return Units([doc_index[k[0]] for k in keys], [cells[k] for k in keys]), ignored


def answer_value(value):
    """A field's answer as compared: a Thresh nested answer ``{"val": x, x: {...}}`` (SALSA's
    conditional sub-questions) counts by its ``val``."""
    return value.get("val") if isinstance(value, dict) else value


def _convert(value, field, mapping):
    value = answer_value(value)
    if value is None or value == "":
        return None
    if field.type == "multichoice":
        if not isinstance(value, (list, tuple, set, frozenset)):
            return None
        mapped = [mapping.get(v, mapping.get(str(v))) for v in value]
        return None if any(m is None for m in mapped) else tuple(sorted(mapped, key=str))
    if isinstance(value, (list, dict)):  # not an option of a single-choice field
        return None
    if value in mapping:
        return mapping[value]
    return mapping.get(str(value))


def _item_key(item: str):
    return (0, int(item), "") if item.lstrip("-").isdigit() else (1, 0, item)


def _evidence(edit: Edit, edit_type) -> list[tuple[int, int]]:
    side = "source" if edit_type is None or "source" in edit_type.sides else "target"
    return [(s.start, s.end) for s in edit.spans if s.side == side]


def match_edits(edits: Sequence[Edit], schema, annotators: dict[str, list[str]]):
    """Matched edit pairs (edit of a, edit of b) following the module's rule."""
    by: dict[tuple[str, str, str], list[Edit]] = {}
    for e in edits:
        by.setdefault((e.document_id, e.annotator, e.edit_type), []).append(e)
    matched = []
    for doc_id, names in annotators.items():
        for a, b in combinations(names, 2):
            for et in schema.edit_types:
                ea = by.get((doc_id, a, et.name), [])
                eb = by.get((doc_id, b, et.name), [])
                cands = []
                for i, x in enumerate(ea):
                    for j, y in enumerate(eb):
                        ov = shared_characters(_evidence(x, et), _evidence(y, et))
                        if ov > 0:
                            cands.append((-ov, i, j))
                used_a, used_b = set(), set()
                for _ov, i, j in sorted(cands):
                    if i not in used_a and j not in used_b:
                        used_a.add(i)
                        used_b.add(j)
                        matched.append((ea[i], eb[j]))
    return matched


def edit_field_units(pairs, edit_type: str, field, doc_index: dict[str, int]) -> Units:
    """Units of an edit field over the matched pairs of ``edit_type``."""
    mapping = stat_map(field)
    docs, values = [], []
    for x, y in pairs:
        if x.edit_type != edit_type or x.document_id not in doc_index:
            continue
        cell = {}
        for e in (x, y):
            v = _convert(e.fields.get(field.name), field, mapping)
            if v is not None:
                cell[e.annotator] = v
        docs.append(doc_index[x.document_id])
        values.append(cell)
    return Units(docs, values)
