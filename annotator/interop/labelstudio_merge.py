"""Merge a Label Studio pull into the stored work instead of replacing it.

Label Studio holds regions, their answers, ratings, status and time; it cannot hold an
edit without a region (a document-level comment), an edit's stored metadata (a tool's edit
id, Thresh's extra keys) or our ids. A pull therefore:

- re-attaches every stored edit without spans (push reported it as not representable)
  where it stood among the others;
- gives each pulled edit the metadata of the stored edit it continues: the stored edit with
  the same label and spans, else (a label changed in the page) the one with the same spans,
  else (regions moved) one with the same label, else any stored edit left over;
- leaves work that did not change alone, so it keeps its version and ``completed_at``;
- lists the stored edits with regions the pull would delete (the page has fewer edits than
  were stored); without ``allow_deletions``
  those are refused (file, line, task id, annotator) and nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from annotator.ingest.readers import Problem
from annotator.interop.records import AnnotationRecord, EditIn


@dataclass
class MergeResult:
    records: list[AnnotationRecord]  # to store (changed or new work)
    unchanged: int = 0
    kept_without_region: int = 0
    deletions: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _spans(e: EditIn) -> frozenset:
    return frozenset((s.side, s.start, s.end) for s in e.spans)


def _canonical(r: AnnotationRecord) -> str:
    """What a pull can change of one annotator's work, in one comparable string."""
    def edit(e: EditIn):
        return [e.edit_type, e.fields, sorted(_spans(e)), e.meta or {},
                sorted((edit(c) for c in e.constituents), key=json.dumps)]
    return json.dumps([sorted((edit(e) for e in r.edits), key=json.dumps),
                       sorted([g.level, g.item, g.field, g.value, g.rationale]
                              for g in r.ratings),
                       r.status, round(float(r.seconds_spent or 0.0), 3)],
                      sort_keys=True, default=str)


def _reattach(pulled: AnnotationRecord, stored: AnnotationRecord
              ) -> tuple[list[EditIn], dict[int, EditIn]]:
    """Give pulled edits their stored metadata. Returns the stored edits (with regions) the
    pull has no counterpart for, and stored edit (by ``id()``) -> its pulled counterpart."""
    left = [e for e in stored.edits if e.spans]
    counterpart: dict[int, EditIn] = {}
    matched: set[int] = set()  # pulled edits (by id()) already paired
    # Most faithful pairing first: same label and regions; same regions (a label changed in
    # the page); same label (regions moved or resized); then any leftover pair. Only stored
    # edits left over after that are deletions: the page has fewer edits than we stored.
    for match in (lambda p, s: p.edit_type == s.edit_type and _spans(p) == _spans(s),
                  lambda p, s: _spans(p) == _spans(s),
                  lambda p, s: p.edit_type == s.edit_type,
                  lambda p, s: True):
        for p in pulled.edits:
            if id(p) in matched:
                continue
            s = next((s for s in left if match(p, s)), None)
            if s is None:
                continue
            left.remove(s)
            p.meta = {**(s.meta or {}), **(p.meta or {})}
            if not p.constituents:
                p.constituents = s.constituents
            counterpart[id(s)] = p
            matched.add(id(p))
    return left, counterpart


def _with_kept(pulled: list[EditIn], stored: list[EditIn], kept: list[EditIn],
               counterpart: dict[int, EditIn]) -> list[EditIn]:
    """The pulled edits with the stored region-less ones back where they stood: each right
    after the edit that preceded it in the stored order (its pulled counterpart), so a
    Thresh export lists the edits in their order, not the comments last."""
    edits = list(pulled)
    kept_ids = {id(k) for k in kept}
    for k in kept:
        at = 0
        for before in reversed(stored[:next(i for i, s in enumerate(stored) if s is k)]):
            anchor = before if id(before) in kept_ids else counterpart.get(id(before))
            if anchor is not None:
                at = next(i for i, e in enumerate(edits) if e is anchor) + 1
                break
        edits.insert(at, k)
    return edits


def merge_pull(pulled: list[AnnotationRecord], stored: list[AnnotationRecord], *,
               file_name: str, allow_deletions: bool = False) -> MergeResult:
    """``stored``: the project's work (``project_records``); ``pulled``: the export's."""
    by_key = {(r.document_id, r.annotator): r for r in stored}
    result = MergeResult(records=[])
    for p in pulled:
        s = None if p.document_only else by_key.get((p.document_id, p.annotator))
        if s is None:
            result.records.append(p)
            continue
        gone, counterpart = _reattach(p, s)
        kept = [e for e in s.edits if not e.spans]
        p.edits = _with_kept(p.edits, s.edits, kept, counterpart)
        # The stored assignment's metadata stays; the pull's Label Studio ids refresh it.
        p.assignment_meta = {**(s.assignment_meta or {}), **(p.assignment_meta or {})}
        task = (p.assignment_meta.get("labelstudio") or {}).get("task_id")
        for e in gone:
            where = ", ".join(f"{sd} {a}-{b}" for sd, a, b in sorted(_spans(e)))
            result.deletions.append(f"task {task} ({p.document_id}) {p.annotator}: "
                                    f"{e.edit_type} edit at {where}")
            if not allow_deletions:
                result.problems.append(Problem(
                    p.file or file_name, p.line, "annotations",
                    f"task {task}, document {p.document_id!r}, {p.annotator}: the pull "
                    f"would delete the {e.edit_type} edit at {where}; pass "
                    "--allow-deletions to accept"))
        if _canonical(p) == _canonical(s) and not gone:
            result.unchanged += 1
            continue
        result.kept_without_region += len(kept)
        result.records.append(p)
    return result
