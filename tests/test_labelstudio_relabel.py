"""A region relabelled in the Label Studio page keeps its answers in the old label's boxes
(issue 32): read as the current label's answers when that is unambiguous, otherwise refused
naming the task id and the region id."""

import json

import pytest

from annotator.ingest import IngestError
from annotator.interop.labelstudio import read_labelstudio
from annotator.interop.labelstudio_layout import layout
from annotator.interop.labelstudio_tasks import to_tasks
from annotator.interop.records import AnnotationRecord, EditIn, SpanIn
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA

# InfoLossQA's Thresh typology: omission and concept each have their own Question and Answer
# boxes, so a relabelled region's answers sit in the other label's boxes.
TYPOLOGY = str(INFOLOSSQA / "config" / "thresh.yml")


class Doc:
    external_id, meta = "d1", {}
    source, target = "Mice received 5 mg i.v. daily.", "Mice got a drug."


def _relabelled_export(tmp_path, extra_answer=None):
    schema = load_schema(TYPOLOGY)
    edit = EditIn("omission", {"question": "How much?", "answer": "5 mg"},
                  [SpanIn("source", 14, 18)])
    record = AnnotationRecord("d1", "nadia", 1, edits=[edit])
    tasks, _ = to_tasks(schema, [Doc()], [record])
    [task] = tasks
    task["id"] = 41
    _, concept_label = layout(schema).label_of[("concept", "source")]
    results = task["annotations"][0]["result"]
    for r in results:
        if r["type"] == "labels":
            r["value"]["labels"] = [concept_label]  # relabelled in the page
    if extra_answer:
        results.append(extra_answer(results))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return schema, path


def test_answers_under_the_old_label_are_the_current_labels(tmp_path):
    schema, path = _relabelled_export(tmp_path)
    [record] = read_labelstudio(path, schema)
    [edit] = record.edits
    assert edit.edit_type == "concept"
    assert edit.fields == {"question": "How much?", "answer": "5 mg"}


def test_an_ambiguous_answer_is_refused_with_task_and_region(tmp_path):
    def own_question(results):
        region = next(r for r in results if r["type"] == "labels")
        return {"id": region["id"], "from_name": "source_concept_question",
                "to_name": region["to_name"], "type": "textarea",
                "value": {"text": ["Another question?"]}}
    schema, path = _relabelled_export(tmp_path, own_question)
    with pytest.raises(IngestError) as caught:
        read_labelstudio(path, schema)
    text = str(caught.value)
    assert "task 41, region e0-0" in text and "source_omission_question" in text


def test_a_region_shows_only_its_own_labels_questions():
    import xml.etree.ElementTree as ET

    from annotator.interop.labelstudio_config import labeling_config

    view = ET.fromstring(labeling_config(load_schema(TYPOLOGY)))
    shown_for = {}
    for box in view.iter("View"):
        for control in box:
            if control.get("perRegion"):
                shown_for[control.get("name")] = box.get("whenLabelValue")
    assert shown_for["source_omission_question"] == "omission"
    assert shown_for["source_concept_question"] == "concept"
    assert shown_for["target_concept_answer"] == "concept"
    assert shown_for["source_comment"] is None  # one box shared by both labels
