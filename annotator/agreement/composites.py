"""Composite edits in agreement (pure): SALSA's ``split`` and ``structure`` edits (Heineman
et al. 2023) have no spans of their own; their constituents carry them.

Before this step a composite had no token-level figure and no matched pair, so it was left
out without a word. Here a composite's evidence is its own spans plus its constituents'
spans (so composites match one another by type and by their constituents' spans, and get
token-level agreement per composite type and field agreement on their answers), and the
project chooses how constituents count (``settings["agreement"]["constituents"]``):

- ``"own_type"`` (default): each constituent also counts under its own type (a
  substitution inside a split is a substitution), pooled with the top-level edits;
- ``"composite"``: constituents count only under their composite (SALSA's convention: the
  paper reports an edit type's figures over top-level edits only).

The report states the convention and lists every edit left out, with the reason.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from .data import AgreementInput

CONVENTIONS = ("own_type", "composite")
EXPLAINED = {
    "own_type": "constituents of composite edits count under their own types, pooled with "
                "top-level edits; composites count under their type with their "
                "constituents' spans",
    "composite": "constituents of composite edits count only under their composite "
                 "(SALSA's convention); composites count with their constituents' spans",
}


class ConventionError(ValueError):
    """The project's constituent convention is not one of :data:`CONVENTIONS`."""


def convention_of(settings: dict | None) -> str:
    value = ((settings or {}).get("agreement") or {}).get("constituents", "own_type")
    if value not in CONVENTIONS:
        raise ConventionError(f"agreement.constituents: {value!r} is not one of "
                              f"{', '.join(CONVENTIONS)}")
    return value


def with_composites(inp: AgreementInput, convention: str) -> tuple[AgreementInput, dict]:
    """``inp`` with composites given their constituents' spans (and constituents dropped
    under the ``composite`` convention), and what the report says about it."""
    composite_types = {et.name for et in inp.schema.edit_types if et.composite}
    if not composite_types:
        return inp, {}
    children = defaultdict(list)
    ids = {e.id for e in inp.edits}
    for e in inp.edits:
        if e.parent_id is not None and e.parent_id in ids:
            children[e.parent_id].append(e)
    edits, excluded = [], []
    counted = {"composites": 0, "constituents": 0}
    for e in inp.edits:
        if e.parent_id is not None and e.parent_id in ids:
            counted["constituents"] += 1
            if convention == "composite":
                continue  # counted in its composite's spans
            edits.append(e)
            continue
        if e.edit_type in composite_types:
            spans = list(e.spans) + [s for c in children.get(e.id, []) for s in c.spans]
            if not spans:
                excluded.append({"edit": e.id, "document": e.document_id,
                                 "annotator": e.annotator, "edit_type": e.edit_type,
                                 "reason": "a composite without spans or constituents "
                                           "has no evidence to compare"})
                continue
            counted["composites"] += 1
            e = dataclasses.replace(e, spans=spans)
        edits.append(e)
    # A composite type spans the sides its constituents may span.
    sides = tuple(s for s in ("source", "target")
                  if any(s in et.sides for et in inp.schema.edit_types if not et.composite))
    schema = dataclasses.replace(inp.schema, edit_types=tuple(
        dataclasses.replace(et, sides=sides) if et.composite and not et.sides else et
        for et in inp.schema.edit_types))
    info = {"convention": convention, "explanation": EXPLAINED[convention], **counted,
            "excluded": excluded}
    return dataclasses.replace(inp, schema=schema, edits=edits), info
