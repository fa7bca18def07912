"""Automatic adjudication rules for candidate units of edits (pure; no database).

A project chooses its rules in ``settings["adjudication"]`` (all keys optional):

- ``edit_rule``: ``"identical"`` (default; a unit is accepted only when every annotator of
  the document marked the very same edit) or ``"majority"``: a unit is decided when at least
  ``min_agree`` annotators (default: more than half of the document's annotators) have an
  edit of the same type in it. Units are the groups of :mod:`grouping`, so those edits'
  evidence spans overlap (token IoU) or their questions match.
- ``minority``: under the majority rule, what happens to a unit whose edits too few
  annotators made, when enough annotators marked nothing there to be a majority themselves
  (n - annotators in the unit >= min_agree): ``"reject"`` (default) or ``"leave"`` (to the
  lead). A unit nobody outvotes is always left to the lead.
- ``fields``: per field name, ``"compare"`` (the agreeing edits must have a majority value,
  else the unit goes to the lead), ``"majority"`` (the same), ``"median"`` (ordinal: the
  median of the agreeing edits' values, the lower one of the two middle values on an even
  count) or ``"ignore"`` (not compared; the gold edit takes the base edit's value). Defaults:
  free text ignored (a rationale, question or comment is worded differently by everyone),
  ordinal fields by median, choice and multichoice fields compared.
- ``span_merge``: how the gold span is chosen when the agreeing annotators marked the
  change with different extents: ``"majority_tokens"`` (default), ``"union"``,
  ``"intersection"``, ``"annotator:NAME"`` or ``"base"`` (see :mod:`gold_spans`).

Units are changes, not single edits (:mod:`grouping`): one annotator may have several edits
in a unit, and annotators may disagree on the type. Under the majority rule each annotator
votes once: for every edit type they marked in the unit. The type at least ``min_agree``
annotators chose wins (two types that both reach it, or none that does, is a *type split*
left to the lead); its annotators' fields are merged per annotator (an annotator's two
halves vote once, with the values they share), along the whole answer path. Every verdict
carries a reason built from :mod:`unit_evidence` (who marked what, which majority, who
marked nothing overlapping the unit, which field disagreed) and, for a unit left to the
lead, a ``category``: ``tie``, ``type split``, ``field conflict``, ``composites differ``,
``overlaps another unit``, ``minority``, ``no majority span``, ``invalid merge`` or
``not identical``.

The base edit is the agreeing edit with the lowest id. Every verdict says why, so a dry run
can show what each rule would decide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from annotator.adjudication.gold_spans import SPAN_MERGES, gold_spans, valid_span_rule
from annotator.adjudication.grouping import EditView
from annotator.adjudication.labels import resolve_labels
from annotator.adjudication.unit_evidence import UnitEvidence, names, unit_evidence
from annotator.agreement.units import answer_value

EDIT_RULES = ("identical", "majority")
FIELD_MODES = ("compare", "majority", "median", "ignore")
MINORITY = ("reject", "leave")


class RulesError(ValueError):
    """The project's adjudication settings are not valid (message names the key)."""


@dataclass(frozen=True)
class AutoRules:
    edit_rule: str = "identical"
    min_agree: int | None = None
    minority: str = "reject"
    fields: dict = field(default_factory=dict)
    span_merge: str = "majority_tokens"

    @classmethod
    def from_settings(cls, settings: dict | None) -> AutoRules:
        raw = dict((settings or {}).get("adjudication") or {})
        rules = cls(edit_rule=raw.get("edit_rule", "identical"),
                    min_agree=raw.get("min_agree"), minority=raw.get("minority", "reject"),
                    fields=dict(raw.get("fields") or {}),
                    span_merge=raw.get("span_merge", "majority_tokens"))
        rules.check()
        return rules

    def check(self) -> None:
        for key, value, allowed in (("edit_rule", self.edit_rule, EDIT_RULES),
                                    ("minority", self.minority, MINORITY)):
            if value not in allowed:
                raise RulesError(f"adjudication.{key}: {value!r} is not one of "
                                 f"{', '.join(allowed)}")
        if not valid_span_rule(self.span_merge):
            raise RulesError(f"adjudication.span_merge: {self.span_merge!r} is not one of "
                             f"{', '.join(SPAN_MERGES)} or annotator:NAME")
        if self.min_agree is not None and (not isinstance(self.min_agree, int)
                                           or self.min_agree < 1):
            raise RulesError(f"adjudication.min_agree: {self.min_agree!r} is not a whole "
                             "number of at least 1")
        for name, mode in self.fields.items():
            if mode not in FIELD_MODES:
                raise RulesError(f"adjudication.fields.{name}: {mode!r} is not one of "
                                 f"{', '.join(FIELD_MODES)}")

    def as_settings(self) -> dict:
        out = {"edit_rule": self.edit_rule, "minority": self.minority,
               "span_merge": self.span_merge, "fields": dict(sorted(self.fields.items()))}
        if self.min_agree is not None:
            out["min_agree"] = self.min_agree
        return out

    def needed(self, n_annotators: int) -> int:
        """k: the annotators who must agree (default: more than half)."""
        return self.min_agree if self.min_agree is not None else n_annotators // 2 + 1

    def field_mode(self, name: str, field_type: str) -> str:
        if name in self.fields:
            return self.fields[name]
        if field_type == "ordinal":
            return "median"
        return "compare" if field_type in ("choice", "multichoice") else "ignore"


@dataclass
class Verdict:
    """What a rule decides for one unit: ``action`` accept | merge | reject | leave."""

    action: str
    reason: str
    agreeing: list[int] = field(default_factory=list)
    base_id: int | None = None
    edit_type: str | None = None
    fields: dict | None = None
    spans: list[dict] | None = None
    category: str | None = None  # why a unit is left to the lead (see the module doc)
    # A merge: one gold edit per part {base_id, edit_type, fields, spans, source_ids, how}
    # (several when the same annotators marked several changes over the same words).
    parts: list[dict] | None = None
    evidence: dict | None = None  # who marked what, as the reason states it


def identical(edits: Sequence[EditView]) -> bool:
    """Same type, same spans, the same constituents (type and spans, for a composite) and
    the same field values (text trimmed, case-folded; the comment left out)."""
    first = edits[0]
    return all(e.edit_type == first.edit_type and sorted(e.spans) == sorted(first.spans)
               and e.constituents == first.constituents
               and _norm(e.fields) == _norm(first.fields) for e in edits[1:])


def _norm(fields: dict) -> dict:
    return {k: v.strip().casefold() if isinstance(v, str) else v for k, v in fields.items()
            if v not in (None, "") and k != "comment"}


def decide_unit(members: Sequence[EditView], everyone: set[str], rules: AutoRules,
                field_types: dict[str, dict[str, str]], field_options: dict,
                source: str, target: str, field_conditions: dict | None = None, *,
                document_edits: Sequence[EditView] | None = None,
                single_span: frozenset | set = frozenset()) -> Verdict:
    """The verdict of ``rules`` on one unit (``members``: its edits, constituents
    included). ``field_conditions``: per edit type, field name -> (parent field, allowed
    values) for the schema's conditional questions (see :func:`merged_fields`).
    ``document_edits``: every edit of the document, so that a reason never calls an
    annotator silent whose edit touches the unit from another unit. ``single_span``: the
    edit types with one span per side."""
    ev = unit_evidence(members, everyone, document_edits, source, target)
    everything = [m.id for m in members]
    if rules.edit_rule == "identical":
        top = [e for edits in ev.marked.values() for e in edits]
        if len(top) > 1 and set(ev.marked) == set(everyone) and len(top) == len(ev.marked) \
                and identical(top):
            return _verdict(ev, "accept", "identical edits of every annotator", everything,
                            min(e.id for e in top))
        return _verdict(ev, "leave", "not every annotator marked the very same edit",
                        category="not identical")
    n, k = ev.n, rules.needed(ev.n)
    rule = f"majority rule: {k} of {n}"
    composite = any(e.constituents for edits in ev.marked.values() for e in edits)
    if len(ev.marked) < k and composite:
        return _lone_composite(ev, rules, k, everything)
    if len(ev.marked) < k:
        return _too_few(ev, rules, k, everything)
    voters = ev.voters()
    tables = (field_types, field_options, field_conditions or {}, single_span)
    majority_types = sorted(t for t, v in voters.items() if len(v) >= k)
    if len(majority_types) > 1 and not composite and _nested(voters, majority_types):
        # Each of these types has its majority and no annotator marked one of them where
        # another marked only the other (their annotators are nested sets): several changes
        # over the same words, e.g. an insertion and a reorder, one gold edit per type.
        return _several_changes(ev, majority_types, voters, rules, tables, source, target)
    top = max(len(v) for v in voters.values())
    winners = sorted(t for t, v in voters.items() if len(v) == top)
    if top < k or len(winners) > 1:
        why = (f"no edit type has the {k} annotators the majority rule needs" if top < k
               else f"{' and '.join(winners)} each have {top}")
        return _verdict(ev, "leave", f"{len(ev.marked)} of {n} annotators marked this change "
                        f"with different types: {ev.describe()}; {why}", category="type split")
    edit_type = winners[0]
    chosen = voters[edit_type]
    context = _context(ev, chosen, [edit_type])
    if composite:
        by_annotator = {name: [e for e in ev.marked[name] if e.edit_type == edit_type]
                        for name in chosen}
        return _composites(ev, edit_type, by_annotator, k, everything, context)
    verdict = _merge_type(ev, edit_type, chosen, rules, tables, source, target)
    if verdict.action == "merge":
        verdict.reason += f"{context}; {verdict.parts[0]['how']} ({rule})"
    return verdict


def _merge_type(ev: UnitEvidence, edit_type: str, chosen: list[str], rules: AutoRules,
                tables: tuple, source: str, target: str) -> Verdict:
    """The merge of the ``chosen`` annotators' edits of ``edit_type`` in the unit (their
    fields per annotator, along the answer path; the span by the project's span rule), or
    why it cannot be made."""
    field_types, field_options, field_conditions, single_span = tables
    n = ev.n
    by_annotator = {name: [e for e in ev.marked[name] if e.edit_type == edit_type]
                    for name in chosen}
    agreeing = sorted((e for edits in by_annotator.values() for e in edits), key=lambda e: e.id)
    base = agreeing[0]
    fields, problems = merged_fields([_annotator_view(edits) for edits in by_annotator.values()],
                                     base, rules, field_types.get(edit_type, {}),
                                     field_options.get(edit_type, {}),
                                     field_conditions.get(edit_type, {}))
    ids = [e.id for e in agreeing]
    if problems:
        return _verdict(ev, "leave", f"{len(chosen)} of {n} annotators marked {edit_type} here "
                        f"({names(chosen)}) but their answers differ: " + "; ".join(problems),
                        ids, base.id, category="field conflict")
    spans, how = gold_spans(rules.span_merge, by_annotator, base, source, target,
                            single_span=edit_type in single_span)
    if not spans:
        return _verdict(ev, "leave", f"{len(chosen)} of {n} annotators marked {edit_type} here "
                        f"({names(chosen)}) but no span is left by the span rule: {how}", ids,
                        base.id, category="no majority span")
    part = {"base_id": base.id, "edit_type": edit_type, "fields": fields, "spans": spans,
            "source_ids": ids, "how": f"gold span: {how}"}
    return _verdict(ev, "merge", f"{len(chosen)} of {n} annotators marked {edit_type} here "
                    f"({ev.describe(chosen)})", ids, base.id, edit_type=edit_type,
                    fields=fields, spans=spans, parts=[part])


def _nested(voters: dict, types: list[str]) -> bool:
    sets = [set(voters[t]) for t in types]
    return all(a <= b or b <= a for a in sets for b in sets)


def _several_changes(ev: UnitEvidence, types: list[str], voters: dict, rules: AutoRules,
                     tables: tuple, source: str, target: str) -> Verdict:
    k, n = rules.needed(ev.n), ev.n
    merged = []
    for edit_type in types:
        verdict = _merge_type(ev, edit_type, voters[edit_type], rules, tables, source, target)
        if verdict.action != "merge":
            return verdict
        merged.append(verdict)
    chosen = sorted({name for t in types for name in voters[t]})
    reason = "; ".join(f"{len(voters[v.edit_type])} of {n} annotators marked {v.edit_type} "
                       f"here ({names(voters[v.edit_type])})" for v in merged)
    first = merged[0]
    return _verdict(ev, "merge", f"{reason}: one gold edit per type"
                    f"{_context(ev, chosen, types)}; {first.parts[0]['how']} (majority rule: "
                    f"{k} of {n})", sorted(i for v in merged for i in v.agreeing), first.base_id,
                    edit_type=first.edit_type, fields=first.fields, spans=first.spans,
                    parts=[v.parts[0] for v in merged])


def _verdict(ev: UnitEvidence, action: str, reason: str, agreeing=(), base_id=None,
             **more) -> Verdict:
    evidence = {"marked": {name: [[e.id, e.edit_type] for e in edits]
                           for name, edits in sorted(ev.marked.items())},
                "silent": ev.silent, "elsewhere": ev.elsewhere}
    return Verdict(action, reason, list(agreeing), base_id, evidence=evidence, **more)


def _context(ev: UnitEvidence, chosen: list[str], types: list[str]) -> str:
    """What the other annotators did: outvoted types, silence, or an edit elsewhere."""
    parts = []
    outvoted = [n for n in sorted(ev.marked) if n not in chosen]
    if outvoted:
        parts.append(f"outvoted: {ev.describe(outvoted)}")
    also = [n for n in chosen if any(e.edit_type not in types for e in ev.marked[n])]
    if also:
        parts.append(f"also marked as another type by {names(also)}")
    if ev.silent:
        parts.append(f"{names(ev.silent)} marked no edit overlapping it")
    if ev.elsewhere:
        parts.append(f"overlapping edits in another unit: {ev.elsewhere_text()}")
    return "".join(f"; {p}" for p in parts)


def _too_few(ev: UnitEvidence, rules: AutoRules, k: int, everything: list[int]) -> Verdict:
    """Fewer than k annotators marked the change: outvoted by those who marked nothing
    overlapping it, or left (a tie, an overlap with another unit, the minority setting)."""
    n, silent = ev.n, ev.silent
    rule = f"majority rule: {k} of {n}"
    who = f"only {ev.describe()} marked it"
    if len(silent) >= k and rules.minority == "reject":
        return _verdict(ev, "reject", f"{len(silent)} of {n} annotators marked no edit "
                        f"overlapping it ({names(silent)}); {who} ({rule})", everything)
    types = {e.edit_type for edits in ev.marked.values() for e in edits}
    other_types = ev.silent_on(types)
    if ev.elsewhere and len(other_types) >= k and rules.minority == "reject":
        kind = " or ".join(sorted(types))
        return _verdict(ev, "reject", f"{len(other_types)} of {n} annotators marked no {kind} "
                        f"overlapping it ({names(other_types)}); {ev.elsewhere_text()} overlap "
                        f"it as another type, in another unit; {who} ({rule})", everything)
    if ev.elsewhere:
        return _verdict(ev, "leave", f"{who}; {ev.elsewhere_text()} overlap it from another "
                        f"unit ({rule}): the lead decides", category="overlaps another unit")
    if len(silent) >= k:
        return _verdict(ev, "leave", f"{who}; {names(silent)} marked no edit overlapping it; "
                        "the project leaves outvoted units to the lead", category="minority")
    return _verdict(ev, "leave", f"{len(ev.marked)} of {n} annotators marked it "
                    f"({ev.describe()}) and {len(silent)} marked no edit overlapping it; the "
                    f"majority rule needs {k}", category="tie")


def _lone_composite(ev: UnitEvidence, rules: AutoRules, k: int,
                    everything: list[int]) -> Verdict:
    """A composite fewer than k annotators marked. Composites match on their constituents
    as a whole (:mod:`grouping`), so the others' composites that merely share a token with
    it are other units: they marked no composite matching it."""
    n = ev.n
    (edit_type,) = {e.edit_type for edits in ev.marked.values() for e in edits}
    others = [name for name in ev.everyone if name not in ev.marked]
    if len(others) >= k and rules.minority == "reject":
        touching = f" ({ev.elsewhere_text()} overlap it)" if ev.elsewhere else ""
        return _verdict(ev, "reject", f"{len(others)} of {n} annotators did not mark this "
                        f"{edit_type}; {names(others)} marked no {edit_type} matching it"
                        f"{touching}; only {ev.describe()} marked it (majority rule: {k} of "
                        f"{n})", everything)
    return _too_few(ev, rules, k, everything)


def _composites(ev: UnitEvidence, edit_type: str, by_annotator: dict, k: int,
                everything: list[int], context: str) -> Verdict:
    """Composites (SALSA's split, structure) are accepted with their constituents when at
    least k annotators marked the very same one (type, constituents' types and spans,
    answers)."""
    n = ev.n
    several = sorted(name for name, edits in by_annotator.items() if len(edits) > 1)
    kinds: dict[tuple, list[EditView]] = {}
    for edits in by_annotator.values():
        if len(edits) == 1:
            kinds.setdefault(_composite_key(edits[0]), []).append(edits[0])
    same = max(kinds.values(), key=lambda group: (len(group), -min(e.id for e in group)),
               default=[])
    if len(same) >= k:
        same = sorted(same, key=lambda e: e.id)
        differ = sorted(n_ for n_ in by_annotator if n_ not in {e.annotator for e in same})
        note = f"; {names(differ)}'s {edit_type} differs" if differ else ""
        who = names([e.annotator for e in same])
        return _verdict(ev, "accept", f"{len(same)} of {n} annotators marked the same "
                        f"{edit_type} with the same constituents ({who}){note}{context} "
                        f"(majority rule: {k} of {n})", everything, same[0].id)
    split = f"; {names(several)} marked it as several {edit_type} edits" if several else ""
    agreeing = sorted(e.id for edits in by_annotator.values() for e in edits)
    return _verdict(ev, "leave", f"{len(by_annotator)} of {n} annotators marked {edit_type} "
                    f"here ({names(sorted(by_annotator))}) but fewer than {k} marked the same "
                    f"composite (constituents' types or spans, or answers){split}; the lead "
                    "decides", agreeing, agreeing[0], category="composites differ")


def _composite_key(edit: EditView) -> tuple:
    return (tuple(sorted(edit.spans)), edit.constituents,
            tuple(sorted((k, json.dumps(v, sort_keys=True))
                         for k, v in _norm(edit.fields).items())))


def _annotator_view(edits: Sequence[EditView]) -> EditView:
    """One annotator's vote on the fields: the values all their edits of the unit share (a
    field on which their two halves differ is no vote)."""
    first = edits[0]
    shared = {k: v for k, v in first.fields.items()
              if all(json.dumps(e.fields.get(k), sort_keys=True)
                     == json.dumps(v, sort_keys=True) for e in edits[1:])}
    return EditView(first.id, first.annotator, first.edit_type, first.spans, shared,
                    first.parent_id, first.constituents)


def merged_fields(agreeing: Sequence[EditView], base: EditView, rules: AutoRules,
                  types: dict[str, str], options: dict[str, list],
                  conditions: dict[str, tuple] | None = None) -> tuple[dict, list[str]]:
    """The gold edit's fields under the per-field modes, and why a field blocks the unit.

    A conditional question (``conditions``: name -> (parent, allowed values), parents
    listed before their sub-questions as in the schema) is decided over the whole answer
    path: it is only merged when the merged parent answer asks it, and only from the edits
    that gave that same parent answer. So two annotators' 'less' never combine with a third
    one's sub-answer of 'same' into an edit the schema refuses (SALSA's nested questions)."""
    conditions = conditions or {}
    fields, problems = {}, []
    voters = {name: list(agreeing) for name in types}
    for name, ftype in types.items():
        condition = conditions.get(name)
        if condition is not None:
            parent, allowed = condition
            if parent not in fields or answer_value(fields[parent]) not in allowed:
                continue  # not asked given the merged answers (or the parent is undecided)
            voters[name] = [e for e in voters.get(parent, agreeing)
                            if _same(answer_value(e.fields.get(parent)),
                                     answer_value(fields[parent]))]
        mode = rules.field_mode(name, ftype)
        values = [e.fields.get(name) for e in voters[name]]
        present = [v for v in values if answer_value(v) not in (None, "")]
        if mode == "ignore":
            if base.fields.get(name) not in (None, ""):
                fields[name] = base.fields[name]
            continue
        if not present:
            continue
        if mode == "median" and ftype == "ordinal":
            order = {json.dumps(v): i for i, v in enumerate(options.get(name, []))}
            ranked = sorted(present, key=lambda v: order.get(json.dumps(answer_value(v)), -1))
            fields[name] = ranked[(len(ranked) - 1) // 2]
            continue
        outcome = resolve_labels([answer_value(v) for v in values])
        if not outcome.resolved:
            given = ", ".join(f"{json.loads(k)!r} x{c}" for k, c in outcome.counts)
            problems.append(f"{name}: no majority value ({outcome.status}): {given}")
            continue
        fields[name] = next(v for v in present if _same(answer_value(v), outcome.value))
    return fields, problems


def _same(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(json.dumps, a)) == sorted(map(json.dumps, b))
    return a == b
