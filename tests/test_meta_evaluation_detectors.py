"""`annotator eval detectors`: a detector's spans and document scores against a release's
gold, with hand-counted span and document figures, the pre-highlighter's own output read as
it is written, bad detection files refused with FILE:LINE: field, and a real release."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.meta_evaluation.detectors import evaluate_detector, read_detections

SOURCE = "Patients received 2.5 mg/kg daily for 12 weeks in a double-blind trial ."
TARGET = "Patients got a drug . Ask your doctor ."


def _gold(doc_id, edits):
    return {"id": doc_id, "source": SOURCE, "target": TARGET, "meta": {}, "edits": [
        {"edit_type": kind, "spans": {"source": source, "target": target}, "fields": {}}
        for kind, source, target in edits], "ratings": []}


GOLD = [
    _gold("d1", [("deletion", [[18, 27]], []), ("oversimplification", [[52, 64]], [[15, 19]])]),
    _gold("d2", [("deletion", [[34, 46]], [])]),
    _gold("d3", []),
]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_span_and_document_figures_by_hand(tmp_path):
    detections = _write(tmp_path / "det.jsonl", [
        # d1: the deletion exactly; the oversimplification's source side too widely
        {"document_id": "d1", "spans": [
            {"kind": "deletion", "side": "source", "start": 18, "end": 27, "score": 0.9},
            {"kind": "oversimplification", "side": "source", "start": 52, "end": 72,
             "score": 0.4}]},
        # d2: a deletion elsewhere (a false positive and a miss)
        {"document_id": "d2", "spans": [
            {"kind": "deletion", "side": "source", "start": 0, "end": 8, "score": 0.7}]},
        # d3: nothing, but a document score for deletion
        {"document_id": "d3", "scores": {"deletion": 0.2}},
        {"document_id": "zz", "spans": []},
    ])
    report = evaluate_detector(GOLD, read_detections(detections, {}), threshold=0.5)
    spans = {(r["kind"], r["side"]): r for r in report["spans"]}
    deletion = spans[("deletion", "source")]
    assert deletion["exact"] == {"tp": 1, "fp": 1, "fn": 1, "precision": 0.5, "recall": 0.5,
                                 "f1": 0.5}
    over = spans[("oversimplification", "source")]
    # [52, 72) covers "double-blind trial ." (3 tokens) against "double-blind" (1): IoU 1/3
    assert over["exact"]["tp"] == 0 and over["partial"]["tp"] == 0
    assert spans[("oversimplification", "target")]["exact"] == {
        "tp": 0, "fp": 0, "fn": 1, "precision": None, "recall": 0.0, "f1": 0.0}
    documents = {r["kind"]: r for r in report["documents"]}
    # deletion: d1 (0.9, positive), d2 (0.7, positive), d3 (0.2, negative): all right at 0.5
    assert documents["deletion"]["at_threshold"]["f1"] == 1.0
    assert documents["deletion"]["auc_roc"] == 1.0 and documents["deletion"]["positive"] == 2
    # oversimplification: d1 positive with 0.4 < 0.5: missed at the threshold
    assert documents["oversimplification"]["at_threshold"]["recall"] == 0.0
    assert report["unmatched"] == ["zz"] and report["without_detections"] == []


def test_the_pre_highlighters_output_is_read_as_it_is_written(tmp_path):
    pairs = _write(tmp_path / "pairs.jsonl", [{"id": r["id"], "source": r["source"],
                                               "target": r["target"]} for r in GOLD])
    result = CliRunner().invoke(main, ["align", str(pairs), "--no-embeddings"])
    assert result.exit_code == 0, result.output
    aligned = tmp_path / "aligned.jsonl"
    aligned.write_text(result.output, encoding="utf-8")
    found = read_detections(aligned, {"trailing": "deletion"})
    written = [json.loads(line) for line in result.output.splitlines()]
    assert sorted(found.spans) == sorted(r["id"] for r in written)
    # each span once per kind its box carries (two-kind boxes: both, each with its score)
    expected = sum((len(s["source_spans"]) + len(s["target_spans"]))
                   * len(s.get("kind_scores") or [s["kind"]])
                   for r in written for s in r["suggestions"])
    assert sum(len(v) for v in found.spans.values()) == expected > 0
    two = [(r["id"], s) for r in written for s in r["suggestions"] if s.get("kind_scores")]
    for doc_id, suggestion in two:
        for kind, score in suggestion["kind_scores"].items():
            assert any(d.kind == kind and d.score == score for d in found.spans[doc_id])


@pytest.mark.parametrize("row, field", [
    ({"spans": []}, "document_id"),
    ({"id": "d1", "suggestions": "x"}, "suggestions"),
    ({"id": "d1", "suggestions": [{"kind": "deletion", "source_spans": [[5, 2]]}]},
     "suggestions[0].source_spans[0]"),
    ({"document_id": "d1", "spans": [{"kind": "deletion", "side": "left", "start": 1,
                                      "end": 2}]}, "spans[0]"),
    ({"document_id": "d1", "spans": [{"kind": "deletion", "side": "source", "start": 1,
                                      "end": 2, "score": "high"}]}, "spans[0].score"),
    ({"document_id": "d1", "scores": {"deletion": [1]}}, "scores.deletion"),
])
def test_a_bad_detections_file_is_refused_naming_file_line_and_field(tmp_path, row, field):
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    detections = _write(tmp_path / "det.jsonl", [{"document_id": "d3"}, row])
    result = CliRunner().invoke(main, ["eval", "detectors", str(gold), str(detections)])
    assert result.exit_code == 2 and f"{detections}:2: field '{field}'" in result.output, \
        result.output


def test_a_real_release_against_its_own_pre_highlights(env, database, adjudicated, tmp_path):
    from tests.adjudication_fixtures import release

    release(database, adjudicated, exports=tmp_path / "exports")
    folder = next((tmp_path / "exports").glob("*/v1"))
    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    pairs = _write(tmp_path / "pairs.jsonl", [{"id": r["id"], "source": r["source"],
                                               "target": r["target"]} for r in gold])
    aligned = tmp_path / "aligned.jsonl"
    aligned.write_text(CliRunner().invoke(main, ["align", str(pairs), "--no-embeddings"]).output,
                       encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "detectors", str(folder), str(aligned),
                                       "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    deletion = next(r for r in report["documents"] if r["kind"] == "deletion")
    assert deletion["documents"] == len(gold)
    assert deletion["positive"] == sum(any(e["edit_type"] == "deletion" for e in r["edits"])
                                       for r in gold)
    gold_spans = sum(len(e["spans"]["source"]) for r in gold for e in r["edits"]
                     if e["edit_type"] == "deletion")
    row = next(r for r in report["spans"] if (r["kind"], r["side"]) == ("deletion", "source"))
    assert row["exact"]["tp"] + row["exact"]["fn"] == gold_spans
    text = CliRunner().invoke(main, ["eval", "detectors", str(folder), str(aligned)]).output
    assert "documents deletion:" in text and "spans deletion (source)" in text


def test_a_two_kind_box_counts_for_each_kind_with_its_own_score(tmp_path):
    detections = _write(tmp_path / "det.jsonl", [{"id": "d1", "suggestions": [
        {"kind": "oversimplification", "source_spans": [[18, 27]], "target_spans": [],
         "score": 0.7, "kind_scores": {"oversimplification": 0.7, "deletion": 0.4}}]}])
    found = read_detections(detections, {})
    assert sorted((d.kind, d.score) for d in found.spans["d1"]) == [
        ("deletion", 0.4), ("oversimplification", 0.7)]
    report = evaluate_detector(GOLD, found, threshold=0.3)
    deletion = next(r for r in report["spans"] if (r["kind"], r["side"]) == ("deletion",
                                                                             "source"))
    assert deletion["exact"]["tp"] == 1  # the gold deletion [18, 27) of d1
