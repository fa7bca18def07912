"""Span F1 (exact / partial token IoU) and sentence-level alpha, hand-computed cases."""

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from annotator.agreement import spans as sp
from annotator.agreement.data import AgreementInput, Document, Edit, Span, Work
from annotator.agreement.report import build_report
from annotator.agreement.sentences import fallback_sentences, per_document_coincidence, projection
from annotator.agreement.synthetic import schema
from annotator.core import overlap as ov

TEXT = "a b c d e f"  # tokens a..f at characters 0,2,4,6,8,10
LABELS = ["deletion"]


def test_token_ranges():
    toks = ov.whitespace_tokens(TEXT)
    assert ov.token_range(toks, 0, 7) == (0, 4)  # a b c d
    assert ov.token_range(toks, 3, 5) == (2, 3)  # the space then "c"
    assert ov.token_range(toks, 1, 2) == (1, 1)  # whitespace only: empty
    assert ov.token_range(toks, 1, 3) == (1, 2)
    assert ov.token_iou((0, 4), (0, 2)) == 0.5
    assert ov.token_iou((0, 0), (0, 0)) == 0.0


def test_exact_f1_hand_case():
    gold = [("deletion", 0, 10), ("deletion", 20, 30)]
    pred = [("deletion", 0, 10), ("deletion", 21, 30)]
    counts = sp.exact_counts(gold, pred, LABELS)
    assert counts.tolist() == [[1, 1, 1]]
    assert ov.f1_from_counts(counts)[0] == pytest.approx(0.5)
    # symmetric
    assert ov.f1_from_counts(sp.exact_counts(pred, gold, LABELS))[0] == pytest.approx(0.5)


def test_partial_match_exactly_at_iou_half():
    toks = ov.whitespace_tokens(TEXT)
    gold = [("deletion", 0, 7)]  # a b c d
    half = [("deletion", 0, 3)]  # a b -> IoU 2/4
    counts = sp.partial_counts(gold, half, LABELS, toks, 0.5)
    assert counts.tolist() == [[1, 0, 0]]
    assert ov.f1_from_counts(counts)[0] == 1.0
    # just above the boundary it no longer matches
    assert sp.partial_counts(gold, half, LABELS, toks, 0.51).tolist() == [[0, 1, 1]]
    # IoU 1/4 does not match at 0.5
    assert sp.partial_counts(gold, [("deletion", 0, 1)], LABELS, toks).tolist() == [[0, 1, 1]]


def test_partial_is_not_one_to_one():
    toks = ov.whitespace_tokens(TEXT)
    gold = [("deletion", 0, 7)]
    pred = [("deletion", 0, 5), ("deletion", 2, 7)]  # a b c, b c d: IoU 3/4 each
    assert sp.partial_counts(gold, pred, LABELS, toks).tolist() == [[1, 0, 0]]


def test_nothing_matched_and_one_side_empty():
    toks = ov.whitespace_tokens(TEXT)
    gold = [("deletion", 0, 3)]
    pred = [("deletion", 6, 11)]
    assert ov.f1_from_counts(sp.exact_counts(gold, pred, LABELS))[0] == 0.0
    assert ov.f1_from_counts(sp.partial_counts(gold, pred, LABELS, toks))[0] == 0.0
    assert sp.exact_counts(gold, [], LABELS).tolist() == [[0, 0, 1]]
    assert ov.f1_from_counts(sp.exact_counts(gold, [], LABELS))[0] == 0.0
    assert np.isnan(ov.f1_from_counts(sp.exact_counts([], [], LABELS))[0])


def test_macro_ignores_undefined_labels():
    assert ov.macro_f1(np.array([0.5, np.nan, 1.0])) == pytest.approx(0.75)
    assert np.isnan(ov.macro_f1(np.array([np.nan, np.nan])))


def _pair_input(edits_a, edits_b, sentences=None, first=False):
    source = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu."
    target = "Alpha gamma. Delta zeta. Theta iota. Kappa mu."
    doc = Document("d1", source, target, sentences or fallback_sentences(source),
                   fallback_sentences(target), {})
    edits = [Edit(f"a{i}", "d1", "ann1", t, {}, s) for i, (t, s) in enumerate(edits_a)]
    edits += [Edit(f"b{i}", "d1", "ann2", t, {}, s) for i, (t, s) in enumerate(edits_b)]
    work = [Work("d1", "ann1", 10.0, "done"), Work("d1", "ann2", 20.0, "done")]
    return AgreementInput(schema(), [doc], edits, [], work)


def test_sentence_alpha_binary_hand_case():
    # ann1 marks sentences 0 and 1, ann2 sentences 1 and 2 (of 4): alpha = 1 - 7*4/32 = 0.125
    inp = _pair_input(
        [("deletion", [Span("source", 0, 5)]), ("deletion", [Span("source", 20, 25)])],
        [("deletion", [Span("source", 18, 24)]), ("deletion", [Span("source", 40, 43)])],
    )
    assert fallback_sentences(inp.documents[0].source)[1] == (18, 37)
    report = build_report(inp, bootstrap=0)
    binary = report["spans"]["source"]["sentence_alpha"]["binary"]
    assert binary["value"] == pytest.approx(0.125)
    assert binary["sentences"] == 4


def test_sentence_masi_matches_nltk():
    inp = _pair_input(
        [("deletion", [Span("source", 0, 5)]), ("oversimplification", [Span("source", 2, 30)]),
         ("deletion", [Span("source", 56, 60)]), ("oversimplification", [Span("source", 45, 50)])],
        [("deletion", [Span("source", 0, 40)]), ("oversimplification", [Span("source", 40, 60)])],
    )
    proj = projection(inp.documents, inp.edits, {"d1": ["ann1", "ann2"]}, "source")
    triples = [(a, str(i), labels) for a, per in proj["d1"].items() for i, labels in enumerate(per)]
    assert all(t[2] for t in triples)  # no empty sets, so NLTK's MASI is defined
    expected = AnnotationTask(triples, distance=masi_distance).alpha()
    report = build_report(inp, bootstrap=0)
    assert report["spans"]["source"]["sentence_alpha"]["masi"]["value"] == pytest.approx(expected)
    o, domain, _delta, _ = per_document_coincidence(proj, ["d1"], binary=False)
    assert o.sum() == pytest.approx(8.0)


def test_report_span_f1_and_first_span_only():
    same = Span("source", 0, 5)
    inp = _pair_input(
        [
            ("deletion", [same, Span("source", 40, 45)]),
            ("oversimplification", [Span("source", 18, 37), Span("target", 0, 5)]),
        ],
        [
            ("deletion", [same]),
            ("oversimplification", [Span("source", 18, 30), Span("target", 13, 18)]),
        ],
    )
    report = build_report(inp, bootstrap=0)
    src = report["spans"]["source"]
    # deletion: gold {same, 40-45}, pred {same}: TP 1, FP 0, FN 1 -> 2/3
    assert src["exact"]["counts"]["deletion"] == {"tp": 1, "fp": 0, "fn": 1}
    assert src["exact"]["per_label"]["deletion"]["value"] == pytest.approx(2 / 3)
    # oversimplification: 18-37 (3 tokens) vs 18-30 (2 tokens): exact 0, partial IoU 2/3 -> 1
    assert src["exact"]["per_label"]["oversimplification"]["value"] == 0.0
    assert src["partial"]["per_label"]["oversimplification"]["value"] == 1.0
    assert src["exact"]["macro"]["value"] == pytest.approx(1 / 3)
    tgt = report["spans"]["target"]
    assert tgt["labels"] == ["oversimplification"]
    assert tgt["exact"]["per_label"]["oversimplification"]["value"] == 0.0
    first = build_report(inp, bootstrap=0, first_span_only=True)
    assert first["spans"]["source"]["exact"]["per_label"]["deletion"]["value"] == 1.0
    assert first["settings"]["first_span_only"] is True


def test_report_label_nobody_used_is_null_with_explanation():
    inp = _pair_input(
        [("deletion", [Span("source", 0, 5)])], [("deletion", [Span("source", 0, 5)])]
    )
    report = build_report(inp, bootstrap=50)
    over = report["spans"]["source"]["exact"]["per_label"]["oversimplification"]
    assert over["value"] is None and "0/0" in over["explanation"]
    assert report["spans"]["source"]["exact"]["macro"]["value"] == 1.0


def test_punkt_splitter_is_the_reference_convention_and_ours_keeps_abbreviations():
    from annotator.agreement.data import Document
    from annotator.agreement.sentences import punkt_sentences, resplit

    text = "Pain fell (sham vs. active). It rose again."
    assert [text[a:b] for a, b in punkt_sentences(text)] == [
        "Pain fell (sham vs.", "active).", "It rose again."]
    doc = Document(id="d", source=text, target="Short.", source_sentences=[(0, 28), (29, 43)])
    assert resplit([doc], "stored")[0].source_sentences == [(0, 28), (29, 43)]
    assert resplit([doc], "punkt")[0].source_sentences == punkt_sentences(text)
    assert resplit([doc], "punkt")[0].target_sentences == [(0, 6)]
