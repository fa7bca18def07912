"""Readable metric names in the HTML report and the text summary; the raw keys stay in the
JSON; the summary shows the reason where a value is undefined, never `None`."""

from __future__ import annotations

from annotator.agreement.data import AgreementInput, Document, Edit, Rating, Span, Work
from annotator.agreement.html_report import render_html
from annotator.agreement.names import describe
from annotator.agreement.report import build_report
from annotator.commands.agreement import summary_text
from annotator.schemas.files import load_schema


def _report():
    schema = load_schema("infolossqa")
    doc = Document("d1", "Patients got 5 mg daily for 12 weeks.", "Patients got a drug.", [],
                   [], {})
    edits = [Edit("1", "d1", "ana", "oversimplification", {"severity": 1},
                  [Span("source", 13, 17), Span("target", 13, 19)]),
             Edit("2", "d1", "ben", "oversimplification", {"severity": 1},
                  [Span("source", 13, 17), Span("target", 13, 19)])]
    work = [Work("d1", "ana", None, "done"), Work("d1", "ben", None, "done")]
    report = build_report(AgreementInput(schema, [doc], edits, [], work), bootstrap=0)
    report["project"] = "p"
    return schema, report


def test_describe_uses_schema_labels_and_coefficient_names():
    schema = load_schema("infolossqa")
    oversimplification = schema.edit_type("oversimplification")
    severity = next(f for f in oversimplification.fields if f.name == "severity")
    named = describe("edit_fields.oversimplification.severity.alpha_nominal", schema)
    assert named["title"] == (f"{oversimplification.label}, {severity.label}: "
                              "Krippendorff's alpha (nominal)")
    assert "unordered categories" in named["about"]
    assert describe("spans.source.sentence_alpha.binary")["title"] == (
        "Sentence-level alpha (binary), original")
    assert describe("tokens.target.types.deletion.fleiss")["title"] == (
        "Token-level Fleiss' kappa: deletion, simplification")


def test_html_shows_names_with_the_raw_key_and_json_keeps_the_key():
    _schema, report = _report()
    keys = [row["metric"] for row in report["interpretation"]]
    assert "edit_fields.oversimplification.severity.alpha_nominal" in keys
    row = report["interpretation"][keys.index(
        "edit_fields.oversimplification.severity.alpha_nominal")]
    assert row["title"].endswith("Krippendorff's alpha (nominal)")
    page = render_html(report)
    assert "Krippendorff&#x27;s alpha (nominal)" in page
    assert "<code class='muted'>edit_fields.oversimplification.severity.alpha_nominal</code>" \
        in page
    assert "Token-level agreement per edit type" in page


def test_summary_gives_the_reason_instead_of_none():
    _schema, report = _report()
    text = summary_text(report)
    assert "None" not in text
    # one document, both annotators chose severity 1: alpha is undefined, with its reason
    row = next(r for r in report["interpretation"]
               if r["metric"] == "edit_fields.oversimplification.severity.alpha_nominal")
    assert row["value"] is None and row["explanation"]
    assert f"n/a ({row['explanation']})" in text
    assert "<edit_fields.oversimplification.severity.alpha_nominal>" in text


def test_summary_prints_devaraj_majority_statistics():
    schema = load_schema("factuality")
    docs = [Document("f1", "a", "b", [], [], {})]
    ratings = [Rating("f1", who, "pair", str(i), "insertion", v)
               for i, values in enumerate([(0, 0, 1), (2, 1, 0), (1, 1, 2)])
               for who, v in zip(("ana", "ben", "cy"), values)]
    report = build_report(AgreementInput(schema, docs, [], ratings, []), bootstrap=0)
    report["project"] = "fact"
    majority = report["fields"]["insertion"]["metrics"]["majority"]
    # {0,0,1} -> 0, {2,1,0} -> none, {1,1,2} -> 1: majority on 2 of 3 items; the non-zero
    # majority items: {2,1,0} (two of three non-zero) and {1,1,2}; one has a label
    assert majority["with_majority"] == 2 / 3
    assert majority["nonzero_items"] == 2
    assert majority["specific_majority_among_nonzero"] == 0.5
    assert "majority label on 0.667 of 3 items" in summary_text(report)
