"""Thresh edit ids and keys of edits made after the import (issue 43): Thresh numbers edits per
category from 1 within a record (the InfoLossQA authors' files: omission 1, 2, …; concept
1, 2, …), so an edit added later (in Label Studio, on the annotation page) continues that
numbering and a relabelled edit takes the next id of its new category: no two edits of a
record share (category, id). An edit carries only the keys its category has: the authors'
omissions (original only) have no ``output_idx``, their comments no spans at all."""

import copy

from annotator.interop.records import EditIn, SpanIn
from annotator.interop.thresh import read_thresh
from annotator.interop.thresh_export import to_thresh
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA

TYPOLOGY = str(INFOLOSSQA / "config" / "thresh.yml")
KATHRYN = INFOLOSSQA / "annotations" / "annotations-kathryn"


def _record(schema):
    """kathryn's first record with omissions and fuzzy concepts, as read from her file."""
    for path in sorted(KATHRYN.glob("*.json")):
        for r in read_thresh(path, schema, annotator="kathryn"):
            if {"omission", "concept"} <= {e.edit_type for e in r.edits}:
                return r
    raise AssertionError("no record with both categories")


def _ids(edits: list[dict]) -> list[tuple[str, int]]:
    found = []
    for e in edits:
        found.append((e["category"], e["id"]))
        found += _ids(e.get("constituent_edits") or [])
    return found


def test_an_unchanged_record_is_written_back_with_the_authors_ids():
    schema = load_schema(TYPOLOGY)
    record = _record(schema)
    [[written]] = to_thresh([record], schema).values()
    ids = _ids(written["edits"])
    for category in ("omission", "concept"):
        assert [i for c, i in ids if c == category] == list(
            range(1, sum(c == category for c, _ in ids) + 1))


def test_edits_added_later_continue_the_records_numbering_with_their_categorys_keys():
    schema = load_schema(TYPOLOGY)
    record = _record(schema)
    omissions = sum(e.edit_type == "omission" for e in record.edits)
    concepts = sum(e.edit_type == "concept" for e in record.edits)
    # Added in Label Studio: an omission and a fuzzy concept; and one of the authors'
    # omissions relabelled a fuzzy concept, with a region on the simplification.
    record.edits.append(EditIn("omission", {"question": "Q?", "answer": "A."},
                               [SpanIn("source", 0, 4)]))
    record.edits.append(EditIn("concept", {"question": "Q2?", "answer": "A2."},
                               [SpanIn("source", 5, 9), SpanIn("target", 0, 3)]))
    relabelled = next(e for e in record.edits if e.edit_type == "omission")
    relabelled.edit_type = "concept"
    relabelled.spans.append(SpanIn("target", 4, 8))
    [[written]] = to_thresh([copy.deepcopy(record)], schema).values()
    ids = _ids(written["edits"])
    assert len(ids) == len(set(ids)), ids  # no two (omission, 2) in one record
    new_omission, new_concept = written["edits"][-2:]
    # The next after the record's highest (ids are never reused: the relabelled
    # omission's is not taken again).
    assert new_omission == {"category": "omission", "id": omissions + 1,
                            "annotation": {"question": "Q?", "answer": "A."},
                            "input_idx": [[0, 4]]}
    assert new_concept["id"] == concepts + 2 and set(new_concept) == {
        "category", "id", "annotation", "input_idx", "output_idx"}
    moved = next(e for e in written["edits"] if e.get("output_idx") == [[4, 8]])
    assert (moved["category"], moved["id"]) == ("concept", concepts + 1)
    # The authors' own edits keep their ids.
    kept = [e for e in written["edits"][:-2] if e is not moved]
    assert [e["id"] for e in kept if e["category"] == "omission"] == list(
        range(2, omissions + 1))


def test_work_made_here_is_numbered_per_category_from_one_with_only_its_sides_keys():
    schema = load_schema(TYPOLOGY)
    record = _record(schema)
    record.assignment_meta = {}
    record.edits = [EditIn("omission", {"question": "Q?"}, [SpanIn("source", 0, 4)]),
                    EditIn("concept", {"question": "Q?"}, [SpanIn("target", 0, 4)]),
                    EditIn("omission", {"question": "Q3?"}, [SpanIn("source", 6, 9)]),
                    EditIn("comment", {"comment_text": "whole text"}, [])]
    [[written]] = to_thresh([record], schema).values()
    assert _ids(written["edits"]) == [("omission", 1), ("concept", 1), ("omission", 2),
                                      ("comment", 1)]
    assert [sorted(e) for e in written["edits"]] == [
        ["annotation", "category", "id", "input_idx"],
        ["annotation", "category", "id", "input_idx", "output_idx"],
        ["annotation", "category", "id", "input_idx"],
        ["annotation", "category", "id"]]
    assert written["edits"][1]["input_idx"] is None  # the concept may span the original
