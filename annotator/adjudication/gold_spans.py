"""The gold span of a unit whose annotators marked the change at different granularity
(pure; no database). The project chooses the rule (``settings["adjudication"]["span_merge"]``,
``annotator adjudicate rules --span-merge``); the release manifest states it.

Each agreeing annotator votes once per whitespace token (the tokens of the agreement
engine's partial span F1): a token is covered by an annotator when any of their agreeing
edits covers it, so the two halves of a split count as one annotator's extent.

- ``majority_tokens`` (default): per side, the tokens more than half of the agreeing
  annotators cover;
- ``union``: the tokens any of them covers; ``intersection``: the tokens all of them cover;
- ``annotator:NAME``: that annotator's own spans when NAME is among the agreeing annotators,
  else the majority tokens (the reason says so);
- ``base``: the spans of the base edit (the agreeing edit with the lowest id).

Chosen tokens form one span per run of consecutive tokens, clipped to the earliest start and
latest end of the annotators' own spans over it (a span that stops before a token's final
full stop keeps stopping there). An edit type with one span per side (Thresh's
``single_span``) gets one span per side from the first chosen token to the last.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotator.adjudication.grouping import EditView
from annotator.core.overlap import token_range, whitespace_tokens

SPAN_MERGES = ("majority_tokens", "union", "intersection", "base")
ANNOTATOR_RULE = "annotator:"


def valid_span_rule(rule: object) -> bool:
    return rule in SPAN_MERGES or (isinstance(rule, str) and rule.startswith(ANNOTATOR_RULE)
                                   and bool(rule[len(ANNOTATOR_RULE):].strip()))


def gold_spans(rule: str, by_annotator: dict[str, Sequence[EditView]], base: EditView,
               source: str, target: str, *, single_span: bool = False
               ) -> tuple[list[dict], str]:
    """(spans, how they were chosen, in words) under ``rule``."""
    if rule == "base":
        return spans_of([base]), f"the spans of {base.annotator}'s edit {base.id} (base rule)"
    if rule.startswith(ANNOTATOR_RULE):
        name = rule[len(ANNOTATOR_RULE):].strip()
        if name in by_annotator:
            return spans_of(by_annotator[name]), f"{name}'s spans (the project's span rule)"
        spans = merged_spans(list(by_annotator.values()), source, target, "majority_tokens",
                             single_span=single_span)
        return spans, (f"the tokens most agreeing annotators marked ({name}, whose spans the "
                       "project follows, is not among them)")
    spans = merged_spans(list(by_annotator.values()), source, target, rule,
                         single_span=single_span)
    words = {"majority_tokens": "the tokens most agreeing annotators marked",
             "union": "every token an agreeing annotator marked (union)",
             "intersection": "the tokens every agreeing annotator marked (intersection)"}
    return spans, words[rule]


def spans_of(edits: Sequence[EditView]) -> list[dict]:
    found = sorted({s for e in edits for s in e.spans})
    return [{"side": s, "start": a, "end": b} for s, a, b in found]


def merged_spans(extents: Sequence[Sequence[EditView] | EditView], source: str, target: str,
                 rule: str = "majority_tokens", *, single_span: bool = False) -> list[dict]:
    """Per side, the runs of tokens ``rule`` chooses among the annotators' ``extents``
    (each an edit, or one annotator's edits), clipped to the annotators' own span ends."""
    extents = [[x] if isinstance(x, EditView) else list(x) for x in extents]
    voters = len(extents)
    chosen_by = {"majority_tokens": lambda v: 2 * v > voters, "union": lambda v: v >= 1,
                 "intersection": lambda v: v == voters}[rule]
    out = []
    for side, text in (("source", source), ("target", target)):
        tokens = whitespace_tokens(text)
        votes = [0] * len(tokens)
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        for edits in extents:
            covered = set()
            for s, start, end in (span for e in edits for span in e.spans):
                if s != side:
                    continue
                lo, hi = token_range(tokens, start, end)
                for t in range(lo, hi):
                    covered.add(t)
                    starts[t] = min(starts.get(t, start), start)
                    ends[t] = max(ends.get(t, end), end)
            for t in covered:
                votes[t] += 1
        chosen = [t for t, v in enumerate(votes) if v and chosen_by(v)]
        runs = _runs(chosen)
        if single_span and runs:
            runs = [[runs[0][0], runs[-1][-1]]]
        for run in runs:
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
