"""Group edits of different annotators into candidate units (pure; no database).

Two annotators often mark the same lost information with slightly different spans and
differently worded questions (Trienes et al. 2024, InfoLossQA: partial span F1 0.34, exact
0.17). A candidate unit gathers the edits that are probably "the same finding", so the lead
decides once per unit. Two edits of different annotators are linked when

- their evidence spans overlap with token IoU >= ``iou_threshold`` (0.5, the partial-match
  threshold of the agreement engine), or
- they overlap at all and their questions are similar (cosine >= ``overlap_similarity``), or
- they do not overlap but their questions are near-identical (cosine >= ``question_similarity``).

Evidence is the source (original) side when an edit has source spans, else the target side;
tokens are whitespace tokens, as in the agreement engine's partial span F1. Links are taken
greedily, strongest first; a unit never holds two edits of the same annotator. Edits left
alone form single-edit units ("unmatched"), so none is lost.

Composite edits (SALSA's split and structure, Heineman et al. 2023) are units with their
constituents: a composite's evidence is its own spans and its constituents' spans, it links
only with a composite of the same type, and its constituents join whatever unit it is in
(they are never grouped, nor decided, on their own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

from annotator.agreement.spans import token_range, whitespace_tokens

IOU_THRESHOLD = 0.5
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
    """A candidate unit: edit ids (sorted), their annotators and how strongly they match."""

    edit_ids: list[int]
    annotators: list[str]
    iou: float | None = None  # lowest pairwise evidence IoU inside the unit
    similarity: float | None = None  # lowest pairwise question similarity

    @property
    def key(self) -> str:
        return unit_key(self.edit_ids)

    @property
    def matched(self) -> bool:
        return len(self.edit_ids) > 1


def unit_key(edit_ids: Sequence[int]) -> str:
    return "edits:" + ",".join(str(i) for i in sorted(edit_ids))


def evidence_tokens(edit: EditView, tokens: dict[str, np.ndarray]) -> tuple[str, frozenset]:
    """(side, token indices) of the edit's evidence: source spans if any, else target."""
    spans = edit.evidence_spans
    sides = {s for s, _, _ in spans}
    side = "source" if "source" in sides or not sides else "target"
    indices = set()
    for s, start, end in spans:
        if s == side:
            lo, hi = token_range(tokens[side], start, end)
            indices.update(range(lo, hi))
    return side, frozenset(indices)


def set_iou(a: frozenset, b: frozenset) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def pair_scores(edits: Sequence[EditView], source: str, target: str,
                embed: Callable[[list[str]], np.ndarray] | None = None):
    """IoU and question-similarity matrices (similarity None without ``embed``)."""
    tokens = {"source": whitespace_tokens(source), "target": whitespace_tokens(target)}
    evidence = [evidence_tokens(e, tokens) for e in edits]
    n = len(edits)
    iou = np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        (side_a, a), (side_b, b) = evidence[i], evidence[j]
        iou[i, j] = iou[j, i] = set_iou(a, b) if side_a == side_b else 0.0
    similarity = None
    questions = [e.question for e in edits]
    if embed is not None and n > 1 and all(questions):
        vectors = np.asarray(embed(questions), dtype=np.float64)
        similarity = np.clip(vectors @ vectors.T, -1.0, 1.0)
    return iou, similarity


def link_strength(iou: float, similarity: float | None, *, iou_threshold=IOU_THRESHOLD,
                  overlap_similarity=OVERLAP_SIMILARITY,
                  question_similarity=QUESTION_SIMILARITY) -> float | None:
    """How strongly two edits belong together (None: not linked). See the module rules."""
    sim = similarity if similarity is not None else 0.0
    if iou >= iou_threshold or (iou > 0 and sim >= overlap_similarity):
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
    iou, similarity = pair_scores(edits, source, target, embed)
    links = []
    for i, j in combinations(range(len(edits)), 2):
        if edits[i].annotator == edits[j].annotator:
            continue
        if (edits[i].constituents or edits[j].constituents) \
                and edits[i].edit_type != edits[j].edit_type:
            continue  # a composite matches a composite of its own type only
        sim = None if similarity is None else float(similarity[i, j])
        strength = link_strength(float(iou[i, j]), sim, **thresholds)
        if strength is not None:
            links.append((-strength, edits[i].id, edits[j].id, i, j))
    parent = list(range(len(edits)))
    members = {i: {i} for i in range(len(edits))}

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for _, _, _, i, j in sorted(links):
        ri, rj = root(i), root(j)
        if ri == rj:
            continue
        if {edits[k].annotator for k in members[ri]} & {edits[k].annotator for k in members[rj]}:
            continue
        parent[rj] = ri
        members[ri] |= members.pop(rj)
    units = [_unit([edits[k] for k in sorted(group)], iou, similarity, sorted(group))
             for group in members.values()]
    for unit in units:
        unit.edit_ids = sorted(unit.edit_ids + [c for i in unit.edit_ids
                                                for c in parts.get(i, [])])
    return sorted(units, key=lambda u: u.edit_ids[0])


def _unit(group: list[EditView], iou, similarity, indices: list[int]) -> Unit:
    pairs = list(combinations(indices, 2))
    return Unit(
        edit_ids=[e.id for e in group],
        annotators=[e.annotator for e in group],
        iou=min(float(iou[i, j]) for i, j in pairs) if pairs else None,
        similarity=(min(float(similarity[i, j]) for i, j in pairs)
                    if pairs and similarity is not None else None),
    )


def units_from_groups(edits: Sequence[EditView], groups: Sequence[Sequence[int]], source: str,
                      target: str) -> list[Unit]:
    """Units as a lead regrouped them by hand (lists of edit ids), with their IoU."""
    by_id = {e.id: e for e in edits}
    ordered = sorted(by_id.values(), key=lambda e: e.id)
    index = {e.id: k for k, e in enumerate(ordered)}
    iou, _ = pair_scores(ordered, source, target)
    units = [_unit([by_id[i] for i in sorted(g)], iou, None, [index[i] for i in sorted(g)])
             for g in groups if g]
    return sorted(units, key=lambda u: u.edit_ids[0])
