"""The simplification side of an edit shows the edit's own answers in Label Studio (issue
32): an edit with regions on both texts carries its answers on its first region of each
side. When the page changes them on one side only, a pull takes the changed answer; an
answer changed on both sides, or two sides disagreeing on a new edit, is refused naming the
task and the regions; a plain import of such a file refuses it the same way."""

import json

import pytest

from annotator.ingest import IngestError
from annotator.interop.labelstudio import read_labelstudio
from annotator.interop.labelstudio_merge import SIDE_ANSWERS, merge_pull
from annotator.interop.labelstudio_tasks import to_tasks
from annotator.interop.records import AnnotationRecord, EditIn, ImportOptions, SpanIn
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA

# InfoLossQA's Thresh typology: a fuzzy concept spans both texts.
TYPOLOGY = str(INFOLOSSQA / "config" / "thresh.yml")
SETTLE = ImportOptions(settle_side_answers=True)


class Doc:
    external_id, meta = "d1", {}
    source, target = "Mice received 5 mg i.v. daily.", "Mice got a drug."


def _stored() -> AnnotationRecord:
    edit = EditIn("concept", {"question": "How much?", "answer": "5 mg"},
                  [SpanIn("source", 14, 18), SpanIn("target", 9, 15)], meta={"id": 3})
    return AnnotationRecord("d1", "nadia", 1, edits=[edit], status="done",
                            seconds_spent=2.0)


def _export(tmp_path, change=None):
    """The pushed task as Label Studio gives it back, after ``change(results)``."""
    schema = load_schema(TYPOLOGY)
    tasks, _ = to_tasks(schema, [Doc()], [_stored()])
    tasks[0]["id"] = 41
    tasks[0]["annotations"][0]["completed_by"] = {"email": "nadia"}
    if change:
        change(tasks[0]["annotations"][0]["result"])
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return schema, path


def _answer(results, control):
    return next(r for r in results if r.get("from_name") == control)


def test_both_regions_of_an_edit_carry_its_answers(tmp_path):
    schema, path = _export(tmp_path)
    results = json.loads(path.read_text())[0]["annotations"][0]["result"]
    by_region = {}
    for r in results:
        if r["type"] == "textarea":
            by_region.setdefault(r["id"], {})[r["from_name"]] = r["value"]["text"]
    assert by_region == {
        "e0-0": {"source_concept_question": ["How much?"], "source_concept_answer": ["5 mg"]},
        "e0-1": {"target_concept_question": ["How much?"], "target_concept_answer": ["5 mg"]}}
    [record] = read_labelstudio(path, schema)
    assert record.edits[0].fields == {"question": "How much?", "answer": "5 mg"}


def _change_target_answer(results):
    _answer(results, "target_concept_answer")["value"]["text"] = ["Five mg per kg"]


def test_a_pull_takes_the_answer_changed_on_one_side(tmp_path):
    schema, path = _export(tmp_path, _change_target_answer)
    pulled = read_labelstudio(path, schema, options=SETTLE)
    result = merge_pull(pulled, [_stored()], file_name=str(path))
    assert not result.problems
    [merged] = result.records
    [edit] = merged.edits
    assert edit.fields == {"question": "How much?", "answer": "Five mg per kg"}
    assert edit.meta["id"] == 3 and SIDE_ANSWERS not in edit.meta
    # The original's region still says '5 mg': the next pull of the same annotation leaves
    # the work alone instead of taking the old answer back.
    again = merge_pull(read_labelstudio(path, schema, options=SETTLE), [merged],
                       file_name=str(path))
    assert not again.problems and again.records == [] and again.unchanged == 1
    # Then the original's region is changed too: that is the new answer.
    _, later = _export(tmp_path, lambda results: (
        _change_target_answer(results),
        _answer(results, "source_concept_answer")["value"].update(text=["Ten mg"])))
    third = merge_pull(read_labelstudio(later, schema, options=SETTLE), [merged],
                       file_name=str(path))
    assert not third.problems
    assert third.records[0].edits[0].fields["answer"] == "Ten mg"


def test_a_plain_import_refuses_sides_that_disagree_naming_task_and_regions(tmp_path):
    schema, path = _export(tmp_path, _change_target_answer)
    with pytest.raises(IngestError) as refused:
        read_labelstudio(path, schema)
    text = str(refused.value)
    assert "task 41" in text and "e0-0 and e0-1" in text and "'answer'" in text
    assert "'5 mg' / 'Five mg per kg'" in text


def test_a_pull_refuses_an_answer_changed_on_both_sides(tmp_path):
    def both(results):
        _change_target_answer(results)
        _answer(results, "source_concept_answer")["value"]["text"] = ["Ten mg"]
    schema, path = _export(tmp_path, both)
    pulled = read_labelstudio(path, schema, options=SETTLE)
    result = merge_pull(pulled, [_stored()], file_name=str(path))
    [problem] = result.problems
    assert "task 41" in problem.message and "regions e0-0, e0-1" in problem.message
    assert "both sides changed" in problem.message


def test_a_pull_refuses_a_new_edit_whose_sides_disagree(tmp_path):
    schema, path = _export(tmp_path, _change_target_answer)
    pulled = read_labelstudio(path, schema, options=SETTLE)
    result = merge_pull(pulled, [], file_name=str(path))  # nothing stored to compare with
    [problem] = result.problems
    assert "no stored answer" in problem.message and "'answer'" in problem.message
