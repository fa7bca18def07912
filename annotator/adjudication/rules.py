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
- ``span_merge``: ``"majority_tokens"`` (default: per side, the whitespace tokens that more
  than half of the agreeing edits cover, each run of such tokens one span, clipped to the
  annotators' own span ends) or ``"base"`` (the base edit's spans).

The base edit is the agreeing edit with the lowest id. Every verdict says why, so a dry run
can show what each rule would decide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from annotator.adjudication.grouping import EditView
from annotator.adjudication.labels import resolve_labels
from annotator.agreement.spans import token_range, whitespace_tokens
from annotator.agreement.units import answer_value

EDIT_RULES = ("identical", "majority")
FIELD_MODES = ("compare", "majority", "median", "ignore")
SPAN_MERGES = ("majority_tokens", "base")
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
                                    ("minority", self.minority, MINORITY),
                                    ("span_merge", self.span_merge, SPAN_MERGES)):
            if value not in allowed:
                raise RulesError(f"adjudication.{key}: {value!r} is not one of "
                                 f"{', '.join(allowed)}")
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
                source: str, target: str, field_conditions: dict | None = None) -> Verdict:
    """The verdict of ``rules`` on one unit (``members``: its edits, one per annotator).
    ``field_conditions``: per edit type, field name -> (parent field, allowed values) for
    the schema's conditional questions (see :func:`merged_fields`)."""
    n = len(everyone)
    # A unit's constituents follow their composite: the verdict is on the top-level edits,
    # and an accepted composite brings its constituents (``agreeing`` lists them all).
    inside = {m.id for m in members}
    everything = [m.id for m in members]
    members = [m for m in members if m.parent_id not in inside]
    if rules.edit_rule == "identical":
        if len(members) > 1 and {m.annotator for m in members} == everyone \
                and identical(members):
            return Verdict("accept", "identical edits of every annotator",
                           everything, members[0].id)
        return Verdict("leave", "not every annotator marked the very same edit")
    k = rules.needed(n)
    by_type: dict[str, list[EditView]] = {}
    for m in members:
        by_type.setdefault(m.edit_type, []).append(m)
    edit_type, agreeing = max(by_type.items(), key=lambda kv: (len(kv[1]), -min(
        e.id for e in kv[1])))
    if len(agreeing) < k:
        absent = n - len({m.annotator for m in members})
        if absent >= k and rules.minority == "reject":
            return Verdict("reject", f"{absent} of {n} annotators marked no edit here "
                           f"(majority rule: {k} of {n})", everything)
        return Verdict("leave", f"{len(agreeing)} of {n} annotators agree on "
                       f"{edit_type}; the majority rule needs {k}")
    agreeing = sorted(agreeing, key=lambda e: e.id)
    base = agreeing[0]
    if any(e.constituents for e in agreeing):
        if not identical(agreeing):
            return Verdict("leave", f"{len(agreeing)} of {n} annotators marked {edit_type} "
                           "here but their composites differ (constituents' types or spans, "
                           "or answers); the lead decides", [e.id for e in agreeing], base.id)
        return Verdict("accept", f"{len(agreeing)} of {n} annotators marked the same "
                       f"{edit_type} with the same constituents (majority rule: {k} of {n})",
                       everything, base.id)
    fields, problems = merged_fields(agreeing, base, rules, field_types.get(edit_type, {}),
                                     field_options.get(edit_type, {}),
                                     (field_conditions or {}).get(edit_type, {}))
    if problems:
        return Verdict("leave", "; ".join(problems), [e.id for e in agreeing], base.id)
    spans = (merged_spans(agreeing, source, target) if rules.span_merge == "majority_tokens"
             else _spans_of(base))
    if not spans:
        return Verdict("leave", "no token is covered by a majority of the agreeing edits",
                       [e.id for e in agreeing], base.id)
    return Verdict("merge", f"{len(agreeing)} of {n} annotators marked {edit_type} here "
                   f"(majority rule: {k} of {n})", [e.id for e in agreeing], base.id,
                   edit_type, fields, spans)


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


def merged_spans(agreeing: Sequence[EditView], source: str, target: str) -> list[dict]:
    """Per side, the runs of whitespace tokens more than half of ``agreeing`` cover, each
    clipped to the earliest start and latest end of the annotators' spans over it."""
    out = []
    for side, text in (("source", source), ("target", target)):
        tokens = whitespace_tokens(text)
        votes = [0] * len(tokens)
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        for e in agreeing:
            covered = set()
            for s, start, end in e.spans:
                if s != side:
                    continue
                lo, hi = token_range(tokens, start, end)
                for t in range(lo, hi):
                    covered.add(t)
                    starts[t] = min(starts.get(t, start), start)
                    ends[t] = max(ends.get(t, end), end)
            for t in covered:
                votes[t] += 1
        chosen = [t for t, v in enumerate(votes) if 2 * v > len(agreeing)]
        for run in _runs(chosen):
            first, last = run[0], run[-1]
            start = max(int(tokens[first][0]), starts[first])
            end = min(int(tokens[last][1]), ends[last])
            out.append({"side": side, "start": start, "end": end})
    return out


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _spans_of(edit: EditView) -> list[dict]:
    return [{"side": s, "start": a, "end": b} for s, a, b in sorted(edit.spans)]
