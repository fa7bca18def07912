"""Group edits of different annotators into candidate units (pure; no database).

A unit is what an adjudicator sees as *one change*: the edits of different annotators that
cover it, whatever granularity each chose. Two annotators often mark the same lost
information with slightly different spans and differently worded questions (Trienes et al.
2024, InfoLossQA: partial span F1 0.34, exact 0.17), and in SALSA (Heineman et al. 2023) one
annotator marks "begins the largest" -> "launched the biggest" as one substitution where
another marks "largest" -> "biggest" alone and a third splits the change in two. Two edits
of different annotators are linked when, on the sides both have spans on (source and
target: tokens of both sides count),

- their evidence overlaps with token IoU >= ``iou_threshold`` (0.5, the partial-match
  threshold of the agreement engine), whatever their types (a type disagreement is then a
  field disagreement inside the unit, not two units), or
- they have the same edit type and one covers most of the other: overlap coefficient
  ``|a & b| / min(|a|, |b|) >= cover_threshold`` (0.5): nested edits, one edit split in two
  by another annotator, partial overlaps of most of the shorter edit. When both edits carry
  a question and the questions were embedded, the questions must not be dissimilar
  (cosine >= ``overlap_similarity``): two different questions about nested evidence are two
  findings (InfoLossQA), or
- they overlap at all and their questions are similar (cosine >= ``overlap_similarity``).

Units are the connected components of these links, so a unit may hold several edits of one
annotator (the two halves of a split). Edits whose questions are near-identical
(cosine >= ``question_similarity``) but whose evidence does not overlap are joined last,
strongest first, and only when the two units share no annotator (a question asked twice
is not one finding). Edits left alone form single-edit units ("unmatched"), so none is lost.

Composite edits (SALSA's split and structure) are units with their constituents: a
composite's evidence is its own spans and its constituents' spans, it links only with a
composite of the same type, and only by IoU or question (one annotator's composites often
share a token, so nesting would join them), and its constituents join whatever unit it is
in (they are never grouped, nor decided, on their own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

from annotator.core.overlap import token_range, token_set_overlap, whitespace_tokens

IOU_THRESHOLD = 0.5
COVER_THRESHOLD = 0.5
OVERLAP_SIMILARITY = 0.6
QUESTION_SIMILARITY = 0.85
TEXT_FIELDS = ("question", "answer")  # answers are not compared


@dataclass(frozen=True)
class EditView:
    """What grouping needs of one edit: spans as (side, start, end) and the text fields."""

    id: int
    annotator: str
    edit_type: str
    spans: tuple[tuple[str, int, int], ...]
    fields: dict = field(default_factory=dict, hash=False, compare=False)
    parent_id: int | None = None  # the composite this edit is a constituent of
    # A composite's constituents as (edit type, sorted spans), sorted: how composites match.
    constituents: tuple = ()

    @property
    def evidence_spans(self) -> tuple[tuple[str, int, int], ...]:
        return self.spans + tuple(s for _, spans in self.constituents for s in spans)

    @property
    def question(self) -> str:
        """The text compared between annotators: the question, else the other text
        fields (e.g. a comment)."""
        question = str(self.fields.get("question") or "").strip()
        if question:
            return question
        return " ".join(str(v) for k, v in sorted(self.fields.items())
                        if isinstance(v, str) and k not in TEXT_FIELDS).strip()


@dataclass
class Unit:
    """A candidate unit: edit ids (sorted), their annotators (sorted, each once) and how
    strongly they match."""

    edit_ids: list[int]
    annotators: list[str]
    # Lowest token IoU between two annotators' extents (each annotator's edits of the unit
    # taken together) on the sides both marked; None for a unit of one annotator.
    iou: float | None = None
    similarity: float | None = None  # lowest pairwise question similarity
    # True when the annotators marked the change at different granularity: one of them
    # with several edits, or extents that differ.
    granularity: bool = False

    @property
    def key(self) -> str:
        return unit_key(self.edit_ids)

    @property
    def matched(self) -> bool:
        return len(self.annotators) > 1


def unit_key(edit_ids: Sequence[int]) -> str:
    return "edits:" + ",".join(str(i) for i in sorted(edit_ids))


Evidence = dict  # side -> frozenset of whitespace-token indices


def document_tokens(source: str, target: str) -> dict[str, np.ndarray]:
    return {"source": whitespace_tokens(source), "target": whitespace_tokens(target)}


def evidence_tokens(edit: EditView, tokens: dict[str, np.ndarray]) -> Evidence:
    """Per side, the token indices of the edit's evidence (its spans and, for a composite,
    its constituents' spans); sides without spans are left out."""
    out: dict[str, set] = {}
    for side, start, end in edit.evidence_spans:
        lo, hi = token_range(tokens[side], start, end)
        out.setdefault(side, set()).update(range(lo, hi))
    return {side: frozenset(ix) for side, ix in out.items() if ix}


def union_evidence(evidences: Sequence[Evidence]) -> Evidence:
    out: dict[str, frozenset] = {}
    for ev in evidences:
        for side, ix in ev.items():
            out[side] = out.get(side, frozenset()) | ix
    return out


def pair_scores(edits: Sequence[EditView], source: str, target: str,
                embed: Callable[[list[str]], np.ndarray] | None = None):
    """IoU, overlap-coefficient and question-similarity matrices (similarity None without
    ``embed`` or when an edit has no question), and each edit's evidence."""
    tokens = document_tokens(source, target)
    evidence = [evidence_tokens(e, tokens) for e in edits]
    n = len(edits)
    iou, cover = np.zeros((n, n)), np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        iou[i, j], cover[i, j] = token_set_overlap(evidence[i], evidence[j])
        iou[j, i], cover[j, i] = iou[i, j], cover[i, j]
    similarity = None
    questions = [e.question for e in edits]
    if embed is not None and n > 1 and all(questions):
        vectors = np.asarray(embed(questions), dtype=np.float64)
        similarity = np.clip(vectors @ vectors.T, -1.0, 1.0)
    return iou, cover, similarity, evidence


def link_strength(iou: float, similarity: float | None, *, cover: float = 0.0,
                  same_type: bool = False, iou_threshold=IOU_THRESHOLD,
                  cover_threshold=COVER_THRESHOLD, overlap_similarity=OVERLAP_SIMILARITY,
                  question_similarity=QUESTION_SIMILARITY) -> float | None:
    """How strongly two edits belong together (None: not linked). See the module rules."""
    sim = similarity if similarity is not None else 0.0
    if iou >= iou_threshold or (iou > 0 and sim >= overlap_similarity):
        return iou + sim
    if same_type and cover >= cover_threshold and (similarity is None
                                                   or sim >= overlap_similarity):
        return iou + sim
    if similarity is not None and sim >= question_similarity:
        return sim
    return None


def group_edits(edits: Sequence[EditView], source: str, target: str,
                embed: Callable[[list[str]], np.ndarray] | None = None,
                **thresholds) -> list[Unit]:
    """Candidate units of ``edits`` (of one document), ordered by their first edit id."""
    ids = {e.id for e in edits}
    parts: dict[int, list[int]] = {}
    for e in edits:
        if e.parent_id in ids:
            parts.setdefault(e.parent_id, []).append(e.id)
    edits = sorted((e for e in edits if e.parent_id not in ids), key=lambda e: e.id)
    iou, cover, similarity, evidence = pair_scores(edits, source, target, embed)
    spatial, by_question = [], []
    for i, j in combinations(range(len(edits)), 2):
        a, b = edits[i], edits[j]
        if a.annotator == b.annotator:
            continue
        if (a.constituents or b.constituents) and a.edit_type != b.edit_type:
            continue  # a composite matches a composite of its own type only
        sim = None if similarity is None else float(similarity[i, j])
        # Composites match on their constituents as a whole (IoU), never by nesting: one
        # annotator's composites often share a token (SALSA's structure edits).
        nesting = a.edit_type == b.edit_type and not (a.constituents or b.constituents)
        strength = link_strength(float(iou[i, j]), sim, cover=float(cover[i, j]),
                                 same_type=nesting, **thresholds)
        if strength is None:
            continue
        (spatial if iou[i, j] > 0 else by_question).append((-strength, a.id, b.id, i, j))
    parent = list(range(len(edits)))
    members = {i: {i} for i in range(len(edits))}

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    def join(i, j, exclusive):
        ri, rj = root(i), root(j)
        if ri == rj:
            return
        if exclusive and ({edits[k].annotator for k in members[ri]}
                          & {edits[k].annotator for k in members[rj]}):
            return
        parent[rj] = ri
        members[ri] |= members.pop(rj)

    for _, _, _, i, j in spatial:  # one change, at whatever granularity
        join(i, j, exclusive=False)
    for _, _, _, i, j in sorted(by_question):  # the same question asked about other words
        join(i, j, exclusive=True)
    units = [_unit([edits[k] for k in sorted(group)], [evidence[k] for k in sorted(group)],
                   similarity, sorted(group))
             for group in members.values()]
    for unit in units:
        unit.edit_ids = sorted(unit.edit_ids + [c for i in unit.edit_ids
                                                for c in parts.get(i, [])])
    return sorted(units, key=lambda u: u.edit_ids[0])


def annotator_extents(group: Sequence[EditView], evidence: Sequence[Evidence]
                      ) -> dict[str, Evidence]:
    """Each annotator's extent in a unit: the union of the evidence of their edits."""
    by_annotator: dict[str, list[Evidence]] = {}
    for e, ev in zip(group, evidence):
        by_annotator.setdefault(e.annotator, []).append(ev)
    return {name: union_evidence(evs) for name, evs in by_annotator.items()}


def _unit(group: list[EditView], evidence: list[Evidence], similarity,
          indices: list[int]) -> Unit:
    extents = annotator_extents(group, evidence)
    names = sorted(extents)
    pairs = list(combinations(names, 2))
    same_annotator = len(names) < len(group)
    ious = [token_set_overlap(extents[a], extents[b])[0] for a, b in pairs]
    sims = [float(similarity[i, j]) for i, j in combinations(indices, 2)
            if group[indices.index(i)].annotator != group[indices.index(j)].annotator] \
        if similarity is not None else []
    return Unit(
        edit_ids=[e.id for e in group],
        annotators=names,
        iou=min(ious) if ious else None,
        similarity=min(sims) if sims else None,
        granularity=bool(pairs) and (same_annotator or any(x < 1.0 for x in ious)),
    )


def units_from_groups(edits: Sequence[EditView], groups: Sequence[Sequence[int]], source: str,
                      target: str) -> list[Unit]:
    """Units as a lead regrouped them by hand (lists of edit ids), with their IoU. The
    constituents of a composite are listed in its group but measured with it."""
    by_id = {e.id: e for e in edits}
    tokens = document_tokens(source, target)
    units = []
    for g in groups:
        if not g:
            continue
        inside = set(g)
        top = [by_id[i] for i in sorted(g) if by_id[i].parent_id not in inside]
        unit = _unit(top, [evidence_tokens(e, tokens) for e in top], None, [])
        unit.edit_ids = sorted(g)
        units.append(unit)
    return sorted(units, key=lambda u: u.edit_ids[0])
