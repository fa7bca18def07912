"""A Label Studio pull merges into the stored work (issue 32): edits without a region and
edit metadata survive, a relabelled region keeps its edit's metadata, unchanged work is
left alone, and a deletion is refused (naming task and annotator) unless allowed."""

from annotator.commands.labelstudio import pull_identities
from annotator.interop.labelstudio_merge import merge_pull
from annotator.interop.records import AnnotationRecord, EditIn, SpanIn


def _record(edits, status="done", seconds=3.0):
    return AnnotationRecord("d1", "nadia", 4, edits=edits, status=status,
                            seconds_spent=seconds, file="pull.json",
                            assignment_meta={"labelstudio": {"task_id": 17}})


def _edit(kind, start, end, meta=None, fields=None):
    return EditIn(kind, dict(fields or {}), [SpanIn("source", start, end)],
                  meta=dict(meta or {}))


def _stored():
    comment = EditIn("comment", {"text": "whole document"}, [], meta={"id": 9})
    return _record([_edit("omission", 0, 5, {"id": 1, "output_idx": [3]}),
                    _edit("error", 7, 9, {"id": 2}), comment])


def test_unchanged_work_is_left_alone():
    pulled = _record([_edit("omission", 0, 5), _edit("error", 7, 9)])
    result = merge_pull([pulled], [_stored()], file_name="pull.json")
    assert result.records == [] and result.unchanged == 1 and not result.problems


def test_document_level_edits_and_meta_are_reattached_and_relabel_keeps_meta():
    pulled = _record([_edit("omission", 0, 5), _edit("substitution", 7, 9)])
    result = merge_pull([pulled], [_stored()], file_name="pull.json")
    assert not result.problems and result.unchanged == 0
    [merged] = result.records
    by_kind = {e.edit_type: e for e in merged.edits}
    assert by_kind["omission"].meta == {"id": 1, "output_idx": [3]}
    assert by_kind["substitution"].meta == {"id": 2}  # relabelled in the page
    assert by_kind["comment"].fields == {"text": "whole document"}
    assert result.kept_without_region == 1


def test_a_deletion_is_refused_naming_task_and_annotator_unless_allowed():
    pulled = _record([_edit("omission", 0, 5)])
    refused = merge_pull([pulled], [_stored()], file_name="pull.json")
    [problem] = refused.problems
    text = str(problem.message)
    assert "task 17" in text and "nadia" in text and "error edit at source 7-9" in text
    assert problem.line == 4 and "--allow-deletions" in text
    allowed = merge_pull([_record([_edit("omission", 0, 5)])], [_stored()],
                         file_name="pull.json", allow_deletions=True)
    assert not allowed.problems and len(allowed.deletions) == 1
    assert [e.edit_type for e in allowed.records[0].edits] == ["omission", "comment"]


def test_new_work_is_stored_as_pulled():
    other = AnnotationRecord("d2", "nadia", 5, edits=[_edit("error", 1, 2)])
    result = merge_pull([other], [_stored()], file_name="pull.json")
    assert result.records == [other]


def test_a_draft_by_email_and_a_submission_by_id_are_one_account():
    names = pull_identities({3: "nadia@example.org", 4: "omar@lab.org"}, "example.org")
    assert names["3"] == names["nadia@example.org"] == "nadia"
    assert names["4"] == names["omar@lab.org"] == "omar@lab.org"


def test_a_moved_region_is_a_changed_edit_not_a_deletion():
    pulled = _record([_edit("omission", 0, 5), _edit("error", 1, 4)])
    result = merge_pull([pulled], [_stored()], file_name="pull.json")
    assert not result.problems and not result.deletions
    moved = next(e for e in result.records[0].edits if e.edit_type == "error")
    assert moved.meta == {"id": 2} and [(s.start, s.end) for s in moved.spans] == [(1, 4)]


def test_a_kept_document_level_edit_stays_where_it_stood_among_the_others():
    comment = EditIn("comment", {"text": "first remark"}, [], meta={"id": 9})
    later = EditIn("comment", {"text": "after the omission"}, [], meta={"id": 10})
    stored = _record([comment, _edit("error", 7, 9, {"id": 2}),
                      _edit("omission", 0, 5, {"id": 1}), later])
    # In the page: the omission resized, the error region moved further on.
    pulled = _record([_edit("omission", 0, 6), _edit("error", 20, 22)])
    result = merge_pull([pulled], [stored], file_name="pull.json")
    assert [(e.edit_type, e.fields.get("text")) for e in result.records[0].edits] == [
        ("comment", "first remark"), ("omission", None), ("comment", "after the omission"),
        ("error", None)]
