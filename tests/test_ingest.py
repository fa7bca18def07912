"""Import is all-or-nothing: every bad record names file, line and field, and nothing is
written."""

import json

import pytest

from annotator.ingest import IngestError, import_file, read_documents
from annotator.models import Assignment, Document, Edit, Project, Span
from annotator.study.projects import create_project
from tests.helpers import pairs, row_counts, write_jsonl


@pytest.fixture
def project(database):
    with database.session() as session:
        return create_project(session, "trial", "infolossqa")


def run_import(database, project, path, **kwargs):
    with database.session() as session:
        project = session.get(Project, project.id)
        return import_file(session, project, path, **kwargs)


def assert_refused(database, project, path, *fragments, **kwargs):
    with database.session() as session:
        before = row_counts(session)
    with pytest.raises(IngestError) as caught:
        run_import(database, project, path, **kwargs)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    with database.session() as session:
        assert row_counts(session) == before
    return message


def test_jsonl_import_stores_texts_meta_and_sentence_offsets(database, project, tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs(3))
    result = run_import(database, project, path)
    assert (result.created, result.updated) == (3, 0)
    with database.session() as session:
        doc = session.query(Document).filter_by(external_id="d2").one()
        assert doc.meta == {"system": "sys-a"}
        assert doc.source.startswith("Patients received 2.5 mg/kg")
        # Sentence offsets index the stored text exactly.
        assert [doc.source[s:e] for s, e in doc.source_sentences] == [
            "Patients received 2.5 mg/kg i.v. daily.", "The trial was double-blind."]
        assert [doc.position for doc in session.query(Document).order_by(Document.id)] == [1, 2, 3]


def test_extra_top_level_keys_become_metadata(database, project, tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": 7, "source": "A b.", "target": "A.",
                                                "system": "llama", "section": "Methods"}])
    run_import(database, project, path)
    with database.session() as session:
        doc = session.query(Document).one()
        assert doc.external_id == "7"
        assert doc.meta == {"system": "llama", "section": "Methods"}


def test_sentence_level_input_keeps_the_given_alignment(database, project, tmp_path):
    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "s1", "sentences": [
        {"source": "Mice got 5 mg.", "target": "Mice got a drug."},
        {"source": "It worked (p < 0.01).", "target": "It worked."}]}])
    run_import(database, project, path)
    with database.session() as session:
        doc = session.query(Document).one()
        assert doc.source == "Mice got 5 mg. It worked (p < 0.01)."
        assert doc.sentence_pairs == [[0, 0], [1, 1]]
        assert [doc.target[s:e] for s, e in doc.target_sentences] == ["Mice got a drug.",
                                                                       "It worked."]


def test_json_array_and_csv_formats(database, project, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(pairs(2, "j"), indent=2))
    csv_path = tmp_path / "b.csv"
    csv_path.write_text('id,source,target,system\nc1,"Long, original.",Short.,gpt\n')
    run_import(database, project, tmp_path / "a.json")
    run_import(database, project, csv_path)
    with database.session() as session:
        ids = sorted(d.external_id for d in session.query(Document))
        assert ids == ["c1", "j1", "j2"]
        assert session.query(Document).filter_by(external_id="c1").one().meta == {"system": "gpt"}


@pytest.mark.parametrize("record, line_field, fragment", [
    ({"source": "A.", "target": "B."}, "field 'id'", "required"),
    ({"id": "x", "target": "B."}, "field 'source'", "required"),
    ({"id": "x", "source": 5, "target": "B."}, "field 'source'", "must be a string"),
    ({"id": "x", "source": "   ", "target": "B."}, "field 'source'", "must not be empty"),
    ({"id": "x", "source": "A.", "target": ""}, "field 'target'", "must not be empty"),
    ({"id": True, "source": "A.", "target": "B."}, "field 'id'", "string or integer"),
    ({"id": "x", "source": "A.", "target": "B.", "meta": [1]}, "field 'meta'", "object"),
    ({"id": "x", "source": "A\x00.", "target": "B."}, "field 'source'", "NUL"),
    ({"id": "x", "source": "Short.", "target": "B.", "source_sentences": [[0, 99]]},
     "field 'source_sentences[0]'", "lies outside the source text (length 6) (got [0, 99])"),
    ({"id": "x", "source": "One. Two.", "target": "B.", "source_sentences": [[5, 9], [0, 4]]},
     "field 'source_sentences[1]'", "spans must be in order and must not overlap"),
    ({"id": "x", "source": "One.", "target": "B.", "source_sentences": [[0, True]]},
     "field 'source_sentences[0]'", "integer character offsets (got [0, true])"),
    ({"id": "x", "sentences": [{"source": "A."}]}, "field 'sentences[0].target'", "required"),
])
def test_bad_record_names_file_line_and_field(database, project, tmp_path, record, line_field,
                                              fragment):
    path = write_jsonl(tmp_path / "bad.jsonl", pairs(2) + [record])
    assert_refused(database, project, path, f"bad.jsonl:3: {line_field}", fragment)


def test_duplicate_id_in_file_points_at_both_lines(database, project, tmp_path):
    path = write_jsonl(tmp_path / "dup.jsonl", pairs(2) + [pairs(1)[0]])
    assert_refused(database, project, path, "dup.jsonl:3: field 'id'", "first used on line 1")


def test_invalid_utf8_names_the_line(database, project, tmp_path):
    path = tmp_path / "latin1.jsonl"
    good = json.dumps(pairs(1)[0]).encode()
    path.write_bytes(good + b"\n" + '{"id": "x", "source": "caf\u00e9", "target": "b"}'
                     .encode("latin-1") + b"\n")
    assert_refused(database, project, path, "latin1.jsonl:2:", "invalid UTF-8")


def test_broken_json_line_and_all_problems_listed(database, project, tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"id": "a", "source": "A.", "target": "B."}\n{"id": \n[1]\n')
    message = assert_refused(database, project, path, "broken.jsonl:2:", "not valid JSON")
    assert "broken.jsonl:3:" in message


def test_json_array_reports_the_line_of_the_bad_record(database, project, tmp_path):
    records = pairs(2)
    records[1]["target"] = 3
    (tmp_path / "arr.json").write_text(json.dumps(records, indent=2))
    lines = (tmp_path / "arr.json").read_text().splitlines()
    starts = [number for number, line in enumerate(lines, start=1) if line == "  {"]
    second_line = starts[1]
    assert second_line == 10
    assert_refused(database, project, tmp_path / "arr.json",
                   f"arr.json:{second_line}: field 'target'")


def test_csv_without_required_column(database, project, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("id,source\n1,A.\n")
    assert_refused(database, project, path, "c.csv:1: field 'target': missing column")


def test_empty_file_is_refused(database, project, tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    assert_refused(database, project, path, "holds no records")


def test_reimport_is_refused_without_update(database, project, tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", pairs(2))
    run_import(database, project, path)
    again = write_jsonl(tmp_path / "again.jsonl", pairs(3))
    assert_refused(database, project, again, "again.jsonl:1: field 'id'", "already exists")


def test_update_replaces_unannotated_documents_only(database, project, tmp_path, users):
    run_import(database, project, write_jsonl(tmp_path / "p.jsonl", pairs(2)))
    changed = pairs(2)
    changed[0]["target"] = "A new simplification."
    result = run_import(database, project, write_jsonl(tmp_path / "u.jsonl", changed),
                        update=True)
    assert (result.created, result.updated) == (0, 2)
    with database.session() as session:
        doc = session.query(Document).filter_by(external_id="d1").one()
        assert doc.target == "A new simplification."
        assignment = Assignment(document_id=doc.id, user_id=users["ana"])
        session.add(assignment)
        session.flush()
        session.add(Edit(assignment_id=assignment.id, edit_type="deletion",
                         spans=[Span(side="source", start=0, end=8)]))
    assert_refused(database, project, write_jsonl(tmp_path / "u2.jsonl", changed),
                   "u2.jsonl:1: field 'id'", "already has annotations", update=True)


def test_reader_is_pure_and_detects_format(tmp_path):
    path = write_jsonl(tmp_path / "p.ndjson", pairs(1))
    assert read_documents(path)[0].external_id == "d1"
    with pytest.raises(IngestError, match="pass --format"):
        read_documents(tmp_path / "p.txt")
