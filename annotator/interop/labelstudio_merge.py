"""Merge a Label Studio pull into the stored work instead of replacing it.

Label Studio holds regions, their answers, ratings, status and time; it cannot hold an
edit without a region (a document-level comment), an edit's stored metadata (a tool's edit
id, Thresh's extra keys) or our ids. A pull therefore:

- re-attaches every stored edit without spans (push reported it as not representable)
  where it stood among the others;
- gives each pulled edit the metadata of the stored edit it continues: the stored edit with
  the same label and spans, else (a label changed in the page) the one with the same spans,
  else (regions moved) one with the same label, else any stored edit left over;
- settles answers an edit's two sides give differently (the page changed one of them);
- leaves work that did not change alone, so it keeps its version and ``completed_at``;
- lists the stored edits with regions the pull would delete (the page has fewer edits than
  were stored), and the stored work of a task in the export that has no annotation or draft
  of that annotator there (the whole annotation deleted in Label Studio); without
  ``allow_deletions`` those are refused (file, line, task id, annotator) and nothing is
  written; with it they are listed, and the whole annotations in ``MergeResult.cleared``.
- counts submitted (done) work equal to stored work left in progress because it is
  incomplete (``incomplete``) as unchanged: storing it would leave it in progress again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from annotator.core.records import Problem
from annotator.interop.records import AnnotationRecord, EditIn

# Edit meta key under which the reader hands over answers an edit's regions on the two
# texts give differently, by region id (``labelstudio._Reader._side_answers``); settled
# here and never stored.
SIDE_ANSWERS = "labelstudio_side_answers"
# Edit meta key: what each side of an edit said in Label Studio where they differed, at the
# last pull of that annotation (see _settle_side_answers).
SIDES_SEEN = "labelstudio_sides_seen"


@dataclass
class MergeResult:
    records: list[AnnotationRecord]  # to store (changed or new work)
    unchanged: int = 0
    kept_without_region: int = 0
    deletions: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Stored work whose whole annotation is gone from the export (to clear, when allowed).
    cleared: list[AnnotationRecord] = field(default_factory=list)


def _spans(e: EditIn) -> frozenset:
    return frozenset((s.side, s.start, s.end) for s in e.spans)


def _canonical(r: AnnotationRecord, status: str | None = None) -> str:
    """What a pull can change of one annotator's work, in one comparable string."""
    def edit(e: EditIn):
        return [e.edit_type, e.fields, sorted(_spans(e)), e.meta or {},
                sorted((edit(c) for c in e.constituents), key=json.dumps)]
    return json.dumps([sorted((edit(e) for e in r.edits), key=json.dumps),
                       sorted([g.level, g.item, g.field, g.value, g.rationale]
                              for g in r.ratings),
                       status or r.status, round(float(r.seconds_spent or 0.0), 3)],
                      sort_keys=True, default=str)


def task_of(r: AnnotationRecord):
    """The Label Studio task id a record came from (None: work that never came from one)."""
    return ((r.assignment_meta or {}).get("labelstudio") or {}).get("task_id")


def what_is_stored(r: AnnotationRecord) -> str:
    """One annotator's stored work in a few words: status, edits, ratings."""
    parts = [r.status]
    if r.edits:
        without = sum(1 for e in r.edits if not e.spans)
        parts.append(f"{len(r.edits)} edit(s)" + (f", {without} without a region"
                                                   if without else ""))
    if r.ratings:
        parts.append(f"{len(r.ratings)} rating(s)")
    return "; ".join(parts)


def _whole_deletions(pulled: list[AnnotationRecord], stored: list[AnnotationRecord],
                     result: MergeResult, file_name: str, allow_deletions: bool) -> None:
    """Stored work on a task of the export by an annotator with nothing in that task (no
    annotation, draft or skip): deleted in Label Studio. The task id the work was stored
    with does not rule it out: a push makes new tasks, and unchanged work keeps the ids of
    the tasks it came from. Documents that are no task of the export are not looked at."""
    tasks = {p.document_id: (task_of(p), p) for p in pulled}
    present = {(p.document_id, p.annotator) for p in pulled if not p.document_only}
    for s in stored:
        if s.document_id not in tasks or (s.document_id, s.annotator) in present:
            continue
        task, p = tasks[s.document_id]
        what = what_is_stored(s)
        result.deletions.append(f"task {task} ({s.document_id}) {s.annotator}: the whole "
                                f"annotation ({what})")
        result.cleared.append(s)
        if not allow_deletions:
            result.problems.append(Problem(
                p.file or file_name, p.line, "annotations",
                f"task {task}, document {s.document_id!r}, {s.annotator}: the stored "
                f"annotation ({what}) is not in the export (deleted in Label Studio); the "
                "pull would delete it; pass --allow-deletions to accept"))


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


def _settle_side_answers(pulled: AnnotationRecord, counterpart: dict[int, EditIn],
                         stored: list[EditIn], file_name: str) -> list[Problem]:
    """An edit with regions on both texts carries its answers on both
    (``labelstudio_tasks``); where they differ, the page changed one side since the push
    or the last pull: that side's answer is the new one. What each side said is kept in
    the edit's meta (``SIDES_SEEN``, for this Label Studio annotation), so the next pull
    tells the side changed then from the side left behind now. Refused (task, document,
    annotator, regions) when both sides changed differently, or when no answer was stored
    (a new edit) to tell which did."""
    stored_of = {id(counterpart[id(s)]): s for s in stored if id(s) in counterpart}
    ls = (pulled.assignment_meta or {}).get("labelstudio") or {}
    task, annotation = ls.get("task_id"), ls.get("annotation_id")
    problems = []
    for e in pulled.edits:
        meta = e.meta if e.meta is not None else {}
        differing = meta.pop(SIDE_ANSWERS, None)
        remembered = meta.pop(SIDES_SEEN, None)
        if not differing:
            continue
        before = stored_of.get(id(e))
        if not (isinstance(remembered, dict) and remembered.get("annotation") == annotation
                and annotation is not None):
            remembered = {}
        seen = {}
        for name, given in differing.items():
            old = before.fields.get(name) if before is not None else _NONE
            last = (remembered.get("answers") or {}).get(name) or {}
            new = []
            for _, side, value in given:
                if value != last.get(side, old) and value not in new:
                    new.append(value)
            if old is not _NONE and len(new) <= 1:
                e.fields[name] = new[0] if new else old
                seen[name] = {side: value for _, side, value in given}
                continue
            why = ("both sides changed" if old is not _NONE
                   else "there is no stored answer to tell which side changed")
            problems.append(Problem(
                pulled.file or file_name, pulled.line, "annotations",
                f"task {task}, document {pulled.document_id!r}, {pulled.annotator}: regions "
                f"{', '.join(str(g[0]) for g in given)} of one {e.edit_type} edit answer "
                f"{name!r} differently ({' / '.join(repr(g[2]) for g in given)}) and {why}; "
                "make them agree in Label Studio"))
        if seen:
            meta[SIDES_SEEN] = {"annotation": annotation, "answers": seen}
    return problems


_NONE = object()  # no stored edit (or no stored answer) to compare with


def merge_pull(pulled: list[AnnotationRecord], stored: list[AnnotationRecord], *,
               file_name: str, allow_deletions: bool = False,
               incomplete: set[tuple[str, str]] = frozenset()) -> MergeResult:
    """``stored``: the project's work (``project_records``); ``pulled``: the export's;
    ``incomplete``: (document, annotator) of stored work that misses required answers or
    sides (``missing_for_done``)."""
    by_key = {(r.document_id, r.annotator): r for r in stored}
    result = MergeResult(records=[])
    _whole_deletions(pulled, stored, result, file_name, allow_deletions)
    for p in pulled:
        s = None if p.document_only else by_key.get((p.document_id, p.annotator))
        if s is None:
            result.problems += _settle_side_answers(p, {}, [], file_name)
            result.records.append(p)
            continue
        gone, counterpart = _reattach(p, s)
        result.problems += _settle_side_answers(p, counterpart, s.edits, file_name)
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
        # Submitted but incomplete work is stored in progress; if the stored work is that
        # (in progress, incomplete), a pull of the same submission changes nothing.
        as_stored = ("in_progress" if p.status == "done" and s.status == "in_progress"
                     and (p.document_id, p.annotator) in incomplete else None)
        if _canonical(p, as_stored) == _canonical(s) and not gone:
            result.unchanged += 1
            continue
        result.kept_without_region += len(kept)
        result.records.append(p)
    return result
