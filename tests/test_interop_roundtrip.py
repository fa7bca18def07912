"""Lossless round trips: our annotations -> a format -> our annotations, in a fresh project."""

import json

import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.core.records import DocumentRecord
from annotator.ingest.store import store_documents
from annotator.interop.annotations_store import project_documents, project_records
from annotator.interop.exporting import export_project
from annotator.interop.importing import import_annotations
from annotator.models import Assignment, Edit, Rating, Span, Suggestion, User
from annotator.study.projects import create_project

S1 = "Mice received 5 mg of drug X i.v. The trial lasted 12 weeks. Side effects were mild."
T1 = "Mice got a drug. The study was short. Side effects were mild."
S2 = "We enrolled 120 adults with asthma. They inhaled budesonide twice daily."
T2 = "Adults with asthma took a medicine."


def at(text, piece):
    start = text.index(piece)
    return start, start + len(piece)


def span(side, text, piece):
    return Span(side=side, start=at(text, piece)[0], end=at(text, piece)[1])


def build_infoloss(session):
    """Two annotators, multi-span edits on both sides, ordinal severity, comments, time,
    one document still in progress, and a pre-highlight."""
    project = create_project(session, "ours", "infolossqa")
    store_documents(session, project, [
        DocumentRecord("d1", S1, T1, 1, {"system": "gpt-4o", "section": "Methods"}),
        DocumentRecord("d2", S2, T2, 2, {"system": "llama"})], "seed")
    docs = {d.external_id: d for d in project_documents(session, project)}
    ana, ben = (User(username=n, password_hash="x", role="annotator") for n in ("ana", "ben"))
    session.add_all([ana, ben])
    a1 = Assignment(document=docs["d1"], user=ana, status="done", seconds_spent=312.5)
    a2 = Assignment(document=docs["d2"], user=ana, status="done", seconds_spent=98.0)
    b1 = Assignment(document=docs["d1"], user=ben, status="in_progress", seconds_spent=41.25)
    session.add_all([a1, a2, b1])
    session.add_all([
        Edit(assignment=a1, edit_type="deletion",
             fields={"question": "How much, and how?", "answer": "5 mg, into a vein.",
                     "severity": 3, "comment": "two pieces"},
             spans=[span("source", S1, "5 mg"), span("source", S1, "i.v.")]),
        Edit(assignment=a1, edit_type="oversimplification",
             fields={"question": "How long?", "answer": "12 weeks.", "severity": 1},
             spans=[span("source", S1, "12 weeks"), span("target", T1, "short"),
                    span("target", T1, "The study")]),
        Edit(assignment=a2, edit_type="oversimplification",
             fields={"question": "Which medicine?", "answer": "Budesonide, twice a day."},
             spans=[span("source", S2, "budesonide twice daily"),
                    span("target", T2, "a medicine")]),
        Edit(assignment=b1, edit_type="deletion", fields={"question": "What dose?"},
             spans=[span("source", S1, "5 mg of drug X")]),
        Suggestion(document=docs["d1"], kind="deletion", source_spans=[list(at(S1, "i.v."))],
                   target_spans=[], score=0.8, method="content-class:route",
                   explanation="Route of administration is not in the simplification."),
    ])
    session.flush()
    return project


def build_factuality(session, rationale=True):
    """Sentence-pair ratings on Devaraj's scale (-1 included), a text rating, an error span
    with a choice field."""
    project = create_project(session, "ours", "factuality")
    store_documents(session, project, [DocumentRecord("p1", S2, T2, 1, {})], "seed")
    doc = project_documents(session, project)[0]
    ana = User(username="ana", password_hash="x", role="annotator")
    a = Assignment(document=doc, user=ana, status="done", seconds_spent=60.0)
    session.add_all([ana, a])
    session.add_all([
        Rating(assignment=a, level="pair", item="0", field="insertion", value=0),
        Rating(assignment=a, level="pair", item="0", field="deletion", value=2,
               rationale="drops the drug name" if rationale else None),
        Rating(assignment=a, level="pair", item="0", field="substitution", value=-1),
        Rating(assignment=a, level="pair", item="0", field="comment", value="odd, but ok"),
        Edit(assignment=a, edit_type="error_span", fields={"error": "deletion"},
             spans=[span("source", S2, "budesonide"), span("target", T2, "a medicine")]),
    ])
    session.flush()
    return project


def snapshot(session, project, with_work=True):
    out = []
    for r in project_records(session, project):
        edits = sorted((e.edit_type, json.dumps(e.fields, sort_keys=True),
                        tuple((s.side, s.start, s.end) for s in e.spans)) for e in r.edits)
        ratings = sorted((g.level, g.item, g.field, json.dumps(g.value), g.rationale)
                         for g in r.ratings)
        work = (r.status, r.seconds_spent) if with_work else ()
        out.append((r.document_id, r.annotator, r.source, r.target, *work, edits, ratings))
    return sorted(out)


def documents(session, project):
    return [(d.external_id, d.source, d.target, d.meta) for d in
            project_documents(session, project)]


FORMATS = {"thresh": ("thresh", "thresh"), "labelstudio": ("labelstudio", "labelstudio"),
           "jsonl": ("jsonl", "annotations-jsonl"), "csv": ("csv", "annotations-csv")}


@pytest.mark.parametrize("schema", ["infolossqa", "factuality"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_ours_to_format_and_back_is_lossless(database, tmp_path, fmt, schema):
    export_fmt, import_fmt = FORMATS[fmt]
    out = tmp_path / ("out" if fmt == "thresh" else f"out.{fmt}")
    with database.session() as session:
        if schema == "infolossqa":
            original = build_infoloss(session)
        else:
            original = build_factuality(session, rationale=fmt != "labelstudio")
        result = export_project(session, original, export_fmt, out)
        assert result.notes == []
        expected, expected_docs = snapshot(session, original), documents(session, original)
        copy = create_project(session, "copy", schema)
        if fmt == "csv":  # the CSV carries no texts: the documents come first
            store_documents(session, copy, [DocumentRecord(i, s, t, 1, m)
                                            for i, s, t, m in expected_docs], "docs")
        import_annotations(session, copy, out, import_fmt)
        assert snapshot(session, copy) == expected
        assert documents(session, copy) == expected_docs
        if fmt == "labelstudio" and schema == "infolossqa":
            task = json.loads(out.read_text())[0]
            assert task["predictions"][0]["result"][0]["value"]["text"] == "i.v."


def test_infolossqa_export_then_import_keeps_every_qa_pair(database, tmp_path):
    with database.session() as session:
        original = build_infoloss(session)
        export_project(session, original, "infolossqa", tmp_path / "release")
        questions = json.loads((tmp_path / "release" / "questions.json").read_text())
        assert {q["category"] for q in questions} == {"omission", "concept"}
        first = questions[0]
        assert set(first) >= {"id", "document_id", "annotator", "category", "question",
                              "answer", "input_idx", "output_idx"}
        assert first["severity"] == 3
        copy = create_project(session, "copy", "infolossqa")
        report = import_annotations(session, copy, tmp_path / "release", "infolossqa")
        assert report.invalid == [] and report.edits == 4
        # InfoLossQA files carry no time or status: the edits and texts are what must match.
        assert snapshot(session, copy, with_work=False) == snapshot(session, original,
                                                                    with_work=False)


def test_export_command_writes_files_and_config(env, tmp_path):
    from annotator.config import Config
    from annotator.db import Database

    database = Database(Config.from_env().database_url)
    database.upgrade()
    with database.session() as session:
        build_infoloss(session)
    database.dispose()
    result = CliRunner().invoke(main, [
        "export", "ours", "--format", "thresh", "--out", str(tmp_path / "th"),
        "--typology", str(tmp_path / "typology.yaml"),
        "--labelstudio-config", str(tmp_path / "config.xml")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "th").iterdir()) == ["ana.json", "ben.json"]
    ben = json.loads((tmp_path / "th" / "ben.json").read_text())
    assert ben[0]["_completed"] is False and ben[0]["_seconds_spent"] == 41.25
    assert (tmp_path / "config.xml").read_text().startswith("<View>")
    assert "template_name: infolossqa" in (tmp_path / "typology.yaml").read_text()
    default = CliRunner().invoke(main, ["export", "ours", "--format", "csv"])
    assert default.exit_code == 0
    assert (tmp_path / "exports" / "ours-annotations.csv").read_text().count("\n") == 5
