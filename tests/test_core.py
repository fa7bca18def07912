"""The single places of shared concepts: rating keys, the span check, the vocabulary and the
plain-data form of an edit (annotator.core)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from annotator import models
from annotator.core import overlap as ov
from annotator.core.keys import BadKey, parse_rating_key, rating_key
from annotator.core.serialise import edit_to_dict, rating_to_dict
from annotator.core.spans import (
    CheckedSpan,
    SpanFault,
    cell_pairs,
    read_span,
    read_spans,
    span_problem,
)
from annotator.core.vocabulary import ASSIGNMENT_STATUSES, SIDES, sql_in
from annotator.schemas import RATING_LEVELS


def test_rating_key_round_trip():
    assert rating_key("sentence", 3, "SIM") == "sentence|3|SIM"
    assert parse_rating_key("document||overall") == ("document", "", "overall")
    assert parse_rating_key(rating_key("qa", "q-7", "givenness")) == ("qa", "q-7", "givenness")


@pytest.mark.parametrize("bad", ["sentence|3", "a|b|c|d", "|1|x", "pair|1|", 7, None])
def test_parse_rating_key_refuses_other_shapes(bad):
    with pytest.raises(BadKey, match="level|item|field"):
        parse_rating_key(bad)


def test_span_check_counts_code_points():
    # "𝛼" is one code point (two UTF-16 units): the span [0, 1) is valid, [0, 3) is not.
    texts = {"source": "𝛼 level", "target": "a level"}
    assert span_problem("source", 0, 1, texts) is None
    assert span_problem("source", 0, 7, texts) is None
    assert span_problem("source", 0, 8, texts) == ("span [0, 8] lies outside the source "
                                                   "text (length 7)")


@pytest.mark.parametrize("side,start,end,expected", [
    ("target", 0, 2, "Deletion spans may only lie on: source"),
    ("middle", 0, 2, "Deletion spans may only lie on: source"),
    ("source", 2, 2, "lies outside"),
    ("source", -1, 2, "lies outside"),
    ("source", True, 2, "lies outside"),
    ("source", "0", 2, "lies outside"),
])
def test_span_check_rejects(side, start, end, expected):
    problem = span_problem(side, start, end, {"source": "abcdef", "target": "abc"},
                           sides=("source",), kind="Deletion")
    assert problem is not None and expected in problem


TEXTS = {"source": "abcdef", "target": "abc"}


def test_read_spans_takes_pairs_per_side_and_objects():
    assert read_spans([[0, 2], [3, 6]], "input_idx", side="source", texts=TEXTS) == (
        [CheckedSpan("source", 0, 2, "input_idx[0]"), CheckedSpan("source", 3, 6, "input_idx[1]")],
        [])
    assert read_spans([{"side": "target", "start": 1, "end": 3}], "spans") == (
        [CheckedSpan("target", 1, 3, "spans[0]")], [])


@pytest.mark.parametrize("value,kwargs,field,message", [
    ("oops", {"side": "source"}, "x", 'must be a list of [start, end] pairs (got "oops")'),
    ({"a": 1}, {}, "x", 'must be a list of {side, start, end} objects (got {"a": 1})'),
    ([[1, 2, 3]], {"side": "source"}, "x[0]",
     "must be [start, end] with integer character offsets (got [1, 2, 3])"),
    ([[True, 2]], {"side": "source"}, "x[0]",
     "must be [start, end] with integer character offsets (got [true, 2])"),
    ([[0, 2.0]], {"side": "source"}, "x[0]",
     "must be [start, end] with integer character offsets (got [0, 2.0])"),
    ([[0, 2]], {}, "x[0]", "must be {side: source|target, start, end} with integer character "
                           "offsets (got [0, 2])"),
    ([{"side": "middle", "start": 0, "end": 1}], {}, "x[0].side",
     'must be {side: source|target, start, end} with integer character offsets (got {"side": '
     '"middle", "start": 0, "end": 1})'),
    ([[4, 9]], {"side": "target", "texts": TEXTS}, "x[0]",
     "span [4, 9] lies outside the target text (length 3) (got [4, 9])"),
    ([{"side": "target", "start": 0, "end": 1}], {"texts": TEXTS, "sides": ("source",),
                                                  "kind": "Deletion"},
     "x[0].side", 'Deletion spans may only lie on: source (got "target")'),
    ([[3, 5], [0, 2]], {"side": "source", "texts": TEXTS, "in_order": True}, "x[1]",
     "spans must be in order and must not overlap (got [[3, 5], [0, 2]])"),
    ([[0, 1]] * 3, {"side": "source", "limit": 2}, "x",
     "3 spans, more than the limit of 2 per edit (ANNOTATOR_MAX_SPANS_PER_EDIT)"),
])
def test_read_spans_names_the_field_and_the_rejected_value(value, kwargs, field, message):
    spans, faults = read_spans(value, "x", **kwargs)
    assert faults == [SpanFault(field, message)]


def test_read_span_without_text_checks_order_only_when_asked():
    assert read_span([5, 2], "s", side="source") == CheckedSpan("source", 5, 2, "s")
    assert read_span([5, 2], "s", side="source", nonempty=True) == SpanFault(
        "s", "must be [start, end] with 0 <= start < end (got [5, 2])")


def test_cell_pairs_reads_start_end_pieces():
    assert cell_pairs("3-9; 14-20;", "source_spans") == ([[3, 9], [14, 20]], [])
    assert cell_pairs("3-9;x", "source_spans") == (
        [[3, 9]], [SpanFault("source_spans", "'x' is not start-end (e.g. 3-9)")])


def test_the_overlap_measures_are_different_and_each_named():
    """One pair of evidences, five measures of core.overlap, five different answers."""
    # "a bb ccc dd": tokens 0..3; span A = "bb ccc" (chars 2-8), span B = "ccc dd" (5-11).
    tokens = ov.whitespace_tokens("a bb ccc dd")
    a, b = ov.token_range(tokens, 2, 8), ov.token_range(tokens, 5, 11)
    assert (a, b) == ((1, 3), (2, 4))
    assert ov.token_iou(a, b) == pytest.approx(1 / 3)  # span F1's partial match
    sets_a, sets_b = {"source": frozenset(range(*a))}, {"source": frozenset(range(*b))}
    assert ov.token_set_overlap(sets_a, sets_b) == (pytest.approx(1 / 3), 0.5)
    assert ov.shares_a_token(sets_a, sets_b) and not ov.shares_a_token(sets_a, {"target": b})
    assert ov.overlap_degree(set(range(*a)), set(range(*b))) == "partial"
    assert ov.overlap_degree({1}, {1}) == "complete" and ov.overlap_degree({1}, {2}) == "none"
    assert ov.shared_characters([(2, 8)], [(5, 11), (0, 3)]) == 3 + 1
    assert ov.spans_overlap([(2, 8)], [(8, 11)]) is False  # touching is not overlapping
    assert ov.f1_of(0.5, 1.0) == pytest.approx(2 / 3) and ov.f1_of(None, 1.0) is None
    assert ov.f1_of(0.0, 0.0) == 0.0


def test_vocabulary_is_the_one_the_models_and_schemas_use():
    assert models.SIDES is SIDES and models.ASSIGNMENT_STATUSES is ASSIGNMENT_STATUSES
    assert RATING_LEVELS == ("document", "sentence", "pair", "qa")
    checks = [str(c.sqltext) for c in models.Assignment.__table__.constraints
              if hasattr(c, "sqltext")]
    assert checks == [sql_in("status", ASSIGNMENT_STATUSES)]
    assert "'skipped'" in checks[0]


def test_edit_serialisation_carries_meta_parent_and_spans_in_the_order_marked():
    # "The first span of an edit" (InfoLossQA's first-span figures) is the first one marked.
    spans = [SimpleNamespace(side="target", start=4, end=9),
             SimpleNamespace(side="source", start=10, end=12),
             SimpleNamespace(side="source", start=1, end=3)]
    edit = SimpleNamespace(id=5, edit_type="oversimplification", fields={"question": "Q?"},
                           spans=spans, suggestion_id=None, parent_id=2,
                           meta={"tool_id": "e-17"}, version=3)
    data = edit_to_dict(edit)
    assert data["spans"] == [{"side": "target", "start": 4, "end": 9},
                             {"side": "source", "start": 10, "end": 12},
                             {"side": "source", "start": 1, "end": 3}]
    assert data["parent_id"] == 2 and data["meta"] == {"tool_id": "e-17"}
    data["fields"]["question"] = "changed"
    assert edit.fields == {"question": "Q?"}  # a copy: callers may not alter the row


def test_rating_serialisation_carries_its_key():
    rating = SimpleNamespace(id=1, level="pair", item="2", field="deletion", value=1,
                             rationale=None, version=1)
    assert rating_to_dict(rating)["key"] == "pair|2|deletion"
