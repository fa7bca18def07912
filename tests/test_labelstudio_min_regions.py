"""JSON-MIN rows with several regions (issue 43): Label Studio's JSON-MIN writer keeps one key
per control, so a per-region answer no longer says which region it belongs to. The control
still names a side and (for label-specific boxes) a label: an answer whose box fits exactly
one region of the row is that region's; otherwise the row is refused as ambiguous, and never
with "is not a field of omission (an answer kept under a label the region no longer has)"
when nothing was relabelled.

The rows are written by Label Studio's own JSON-MIN converter (label_studio_sdk.converter,
the code the server runs for "Export JSON-MIN") from the InfoLossQA authors' Thresh
annotations (Trienes et al. 2024, CC BY 4.0); the study's real JSON-MIN exports are read too.
"""

import json

import pytest
from label_studio_sdk.converter import Converter

from annotator.ingest import IngestError
from annotator.interop.labelstudio import read_labelstudio
from annotator.interop.labelstudio_layout import layout
from annotator.interop.labelstudio_tasks import to_tasks
from annotator.interop.thresh import read_thresh
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA, INFOLOSSQA_CONFIG, INFOLOSSQA_FILES

TYPOLOGY = str(INFOLOSSQA / "config" / "thresh.yml")
KATHRYN = INFOLOSSQA / "annotations" / "annotations-kathryn"


class Doc:
    def __init__(self, record):
        self.external_id, self.meta = record.document_id, {}
        self.source, self.target = record.source, record.target


def _json_min(tmp_path, schema, records) -> list[dict]:
    """The records pushed as tasks, then exported by Label Studio's JSON-MIN converter."""
    tasks, _ = to_tasks(schema, [Doc(r) for r in records], records)
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    converter = Converter(layout(schema).xml, str(tmp_path / "converter"))
    converter.convert_to_json_min(str(tmp_path / "tasks.json"), str(tmp_path / "min"),
                                  is_dir=False)
    return json.loads((tmp_path / "min" / "result.json").read_text(encoding="utf-8"))


def _kathryn(schema):
    return [r for path in sorted(KATHRYN.glob("*.json"))
            for r in read_thresh(path, schema, annotator="kathryn")]


def _read(tmp_path, schema, rows):
    path = tmp_path / "min.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return read_labelstudio(path, schema, minimal=True)


def test_an_answer_whose_box_fits_one_region_is_that_regions(tmp_path):
    schema = load_schema(TYPOLOGY)
    # A real record cut to its first omission and its first fuzzy concept marked on both
    # texts: three regions, each answer box (side, label) fits exactly one of them.
    record = next(r for r in _kathryn(schema)
                  if {"omission", "concept"} <= {e.edit_type for e in r.edits})
    omission = next(e for e in record.edits if e.edit_type == "omission")
    concept = next(e for e in record.edits if e.edit_type == "concept"
                   and {s.side for s in e.spans} == {"source", "target"} and len(e.spans) == 2)
    omission.fields.pop("comment", None)
    concept.fields.pop("comment", None)
    record.edits = [omission, concept]
    [row] = _json_min(tmp_path, schema, [record])
    [back] = _read(tmp_path, schema, [row])
    got = sorted((e.edit_type, tuple((s.side, s.start, s.end) for s in e.spans), e.fields)
                 for e in back.edits)
    # JSON-MIN has no relations: the concept's two regions come back as two edits, each
    # with the answers its own side's boxes held.
    want = sorted([("omission", tuple((s.side, s.start, s.end) for s in omission.spans),
                    omission.fields)] + [
        ("concept", ((s.side, s.start, s.end),), concept.fields) for s in concept.spans])
    assert got == want


def test_several_regions_one_box_fits_is_refused_as_ambiguous_not_as_a_relabel(tmp_path):
    schema = load_schema(TYPOLOGY)
    rows = _json_min(tmp_path, schema, _kathryn(schema))
    with pytest.raises(IngestError) as caught:
        _read(tmp_path, schema, rows)
    text = "\n".join(p.message for p in caught.value.problems)
    assert "is not a field of" not in text and "no longer has" not in text
    assert "task None" not in text
    first = rows[0]
    omissions = [r for r in first["source_labels"] if r["labels"] == ["omission"]]
    assert len(omissions) > 1  # the first row has several omissions: their answers are
    assert (f"task {first['id']}: JSON-MIN cannot tell which of the {len(omissions)} "
            "omission regions on the original 'source_omission_question' answers") in text


@pytest.mark.parametrize("study", ["accuracy", "recall"])
def test_the_studys_real_json_min_exports_read_without_a_problem(study):
    schema = load_schema(str(INFOLOSSQA_CONFIG[study]))
    for rater, path in INFOLOSSQA_FILES[study].items():
        item_key = ("edit_id",) if study == "accuracy" else ("reference_id", "prediction_id")
        records = read_labelstudio(path, schema, minimal=True, annotator=rater,
                                   item_key=item_key)
        assert len(records) == len(json.loads(path.read_text(encoding="utf-8")))
        assert all(r.ratings for r in records)


def test_a_rows_only_region_relabelled_keeps_its_answers_from_the_old_labels_box(tmp_path):
    schema = load_schema(TYPOLOGY)
    record = next(r for r in _kathryn(schema) if any(e.edit_type == "omission"
                                                      for e in r.edits))
    omission = next(e for e in record.edits if e.edit_type == "omission")
    omission.fields.pop("comment", None)
    record.edits = [omission]
    [row] = _json_min(tmp_path, schema, [record])
    row["source_labels"][0]["labels"] = ["concept"]  # relabelled in the page
    [back] = _read(tmp_path, schema, [row])
    [edit] = back.edits
    assert (edit.edit_type, edit.fields) == ("concept", omission.fields)
