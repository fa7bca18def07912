"""The report builder: keys, degenerate inputs, bootstrap, fields, descriptives, HTML."""

import json
import re

import numpy as np
import pytest

from annotator.agreement import descriptives as ds
from annotator.agreement.alpha import krippendorff_alpha
from annotator.agreement.bootstrap import Bootstrap
from annotator.agreement.data import (
    AgreementInput,
    Document,
    Edit,
    Rating,
    Span,
    Work,
    document_annotators,
)
from annotator.agreement.html_report import render_html
from annotator.agreement.report import build_report
from annotator.agreement.synthetic import hash_embed, make_input, schema
from annotator.schemas.files import load_schema

TOP_KEYS = {"schema", "settings", "counts", "warnings", "fields", "aggregation", "edit_fields",
            "spans", "annotators", "question_similarity", "sections", "positions",
            "interpretation", "citations", "tokens"}


@pytest.fixture(scope="module")
def synthetic_report():
    return build_report(make_input(n_docs=30, embed=hash_embed), bootstrap=200)


def test_report_keys_and_json(synthetic_report):
    r = synthetic_report
    assert TOP_KEYS <= set(r)
    json.dumps(r, allow_nan=False)
    assert r["counts"] == {"documents": 30, "annotators": 2, "edits": 600, "ratings": 540,
                           "documents_with_2plus_annotators": 30}
    fluency = r["fields"]["fluency"]["metrics"]
    for name in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "randolph", "fleiss",
                 "percent", "cohen", "majority"):
        assert name in fluency
    ci = fluency["alpha_ordinal"]["ci"]
    assert ci["low"] <= fluency["alpha_ordinal"]["value"] <= ci["high"]
    assert "kappa_quadratic" in fluency["cohen"]["pairs"]["ann1|ann2"]
    faithful = r["fields"]["faithful"]["metrics"]
    assert "alpha_ordinal" not in faithful and faithful["k"] == 3
    assert r["edit_fields"]["deletion.severity"]["matched_pairs"] > 0
    assert {x["metric"] for x in r["interpretation"]} >= {
        "fields.fluency.alpha_ordinal", "spans.source.sentence_alpha.binary"}


def test_point_estimates_match_direct_computation(synthetic_report):
    inp = make_input(n_docs=30)
    rows = {}
    for rt in inp.ratings:
        if rt.field == "fluency":
            rows.setdefault(rt.annotator, {})[(rt.document_id, rt.item)] = rt.value
    keys = sorted(rows["ann1"])
    data = [[rows[a].get(k) for k in keys] for a in ("ann1", "ann2")]
    direct = krippendorff_alpha(data, "ordinal", [-1, 0, 1])
    assert synthetic_report["fields"]["fluency"]["metrics"]["alpha_ordinal"]["value"] == \
        pytest.approx(direct)


def test_bootstrap_is_reproducible_and_seeded():
    inp = make_input(n_docs=20)
    a = build_report(inp, bootstrap=100, seed=1)["fields"]["fluency"]["metrics"]["alpha_interval"]
    b = build_report(inp, bootstrap=100, seed=1)["fields"]["fluency"]["metrics"]["alpha_interval"]
    c = build_report(inp, bootstrap=100, seed=2)["fields"]["fluency"]["metrics"]["alpha_interval"]
    assert a["ci"] == b["ci"]
    assert a["ci"] != c["ci"]


def test_bootstrap_weights_resample_documents():
    boot = Bootstrap(7, 50, seed=0)
    assert boot.weights.shape == (50, 7)
    assert (boot.weights.sum(axis=1) == 7).all()
    per_doc = np.arange(7, dtype=float)[:, None] * np.ones((7, 2))
    sums = boot.resampled_sums(per_doc)
    assert sums[:, 0] == pytest.approx(boot.weights @ np.arange(7))


def test_a_full_size_report_carries_its_1000_resamples():
    """The report of 100 documents with the project default of 1,000 resamples (its speed is
    measured by benchmarks/bench_alpha.py, not asserted here)."""
    inp = make_input(n_docs=100, n_annotators=2, edits_per_doc=10, embed=hash_embed)
    report = build_report(inp, bootstrap=1000)
    assert report["settings"]["bootstrap"] == 1000
    assert report["spans"]["source"]["partial"]["macro"]["ci"]["resamples"] == 1000


def _doc(i="d1"):
    src = "BACKGROUND: Old drugs fail. METHODS: We gave 5 mg. RESULTS: It worked well."
    return Document(i, src, "Drugs fail. We gave a drug. It worked.", [], [], {"system": "s1"})


def _rating_input(ratings, work=None, level="document"):
    sch = load_schema("overgeneration")
    return AgreementInput(sch, [_doc("d1"), _doc("d2")], [], ratings, work or [])


def test_degenerate_one_rater():
    ratings = [Rating("d1", "ann1", "pair", "0", "overgenerated", "yes"),
               Rating("d2", "ann1", "pair", "0", "overgenerated", "no")]
    r = build_report(_rating_input(ratings))
    json.dumps(r, allow_nan=False)
    m = r["fields"]["overgenerated"]["metrics"]
    assert m["alpha_nominal"]["value"] is None
    assert "two or more raters" in m["alpha_nominal"]["explanation"]
    assert m["randolph"]["value"] is None and m["randolph"]["explanation"]
    assert "no document has two or more annotators" in " ".join(r["warnings"])


def test_degenerate_one_category_only():
    ratings = [Rating(d, a, "pair", "0", "overgenerated", "no") for d in ("d1", "d2")
               for a in ("ann1", "ann2")]
    m = build_report(_rating_input(ratings))["fields"]["overgenerated"]["metrics"]
    assert m["alpha_nominal"]["value"] is None
    assert "one category" in m["alpha_nominal"]["explanation"]
    assert m["fleiss"]["value"] is None
    assert m["randolph"]["value"] == pytest.approx(1.0)  # k = 2 from the schema
    assert m["percent"]["value"] == 1.0


def test_degenerate_all_missing_and_no_documents():
    ratings = [Rating("d1", a, "pair", "0", "overgenerated", "") for a in ("ann1", "ann2")]
    r = build_report(_rating_input(ratings))
    m = r["fields"]["overgenerated"]["metrics"]
    assert m["units"] == 0 and m["alpha_nominal"]["value"] is None
    assert r["fields"]["overgenerated"]["ignored_ratings"] == 2
    empty = build_report(AgreementInput(load_schema("infolossqa"), [], [], [], []))
    json.dumps(empty, allow_nan=False)
    assert empty["spans"]["source"]["exact"]["macro"]["value"] is None


def test_degenerate_single_item():
    ratings = [Rating("d1", "ann1", "pair", "0", "overgenerated", "yes"),
               Rating("d1", "ann2", "pair", "0", "overgenerated", "no")]
    r = build_report(_rating_input(ratings), bootstrap=100)
    m = r["fields"]["overgenerated"]["metrics"]
    assert m["alpha_nominal"]["value"] == pytest.approx(0.0)
    assert m["randolph"]["value"] == pytest.approx(-1.0)
    # P_o = 0 and P_e = 0 (each rater used a different single category): kappa = 0
    assert m["cohen"]["pairs"]["ann1|ann2"]["kappa"]["value"] == pytest.approx(0.0)
    assert m["alpha_nominal"]["ci"]["resamples"] == 100


def test_devaraj_gibberish_counts_as_three():
    sch = load_schema("factuality")
    ratings = [Rating("d1", "ann1", "pair", "0", "insertion", -1),
               Rating("d1", "ann2", "pair", "0", "insertion", 2),
               Rating("d1", "ann1", "pair", "1", "insertion", 0),
               Rating("d1", "ann2", "pair", "1", "insertion", 0),
               Rating("d1", "ann1", "pair", "1", "comment", "free text")]
    r = build_report(AgreementInput(sch, [_doc("d1")], [], ratings, []), bootstrap=0)
    m = r["fields"]["insertion"]["metrics"]
    assert m["categories"] == [0, 1, 2, 3] and m["k"] == 4
    expected = krippendorff_alpha([[3, 0], [2, 0]], "interval", [0, 1, 2, 3])
    assert m["alpha_interval"]["value"] == pytest.approx(expected)
    assert m["cohen"]["pairs"]["ann1|ann2"]["confusion"][3][2] == 1
    assert r["fields"]["comment"]["metrics"] is None
    assert r["aggregation"]["insertion"]["system"]["per_system"]["s1"]["mean"] == pytest.approx(
        1.25
    )


def test_edit_fields_matched_by_evidence_overlap():
    sch = schema()
    doc = _doc("d1")
    edits = [Edit("a1", "d1", "ann1", "deletion", {"severity": 1}, [Span("source", 0, 10)]),
             Edit("a2", "d1", "ann1", "deletion", {"severity": 3}, [Span("source", 40, 50)]),
             Edit("b1", "d1", "ann2", "deletion", {"severity": 1}, [Span("source", 5, 12)]),
             Edit("b2", "d1", "ann2", "deletion", {"severity": 2}, [Span("source", 45, 60)]),
             Edit("b3", "d1", "ann2", "deletion", {"severity": 2}, [Span("source", 70, 74)])]
    work = [Work("d1", "ann1", 100.0, "done"), Work("d1", "ann2", 300.0, "done")]
    r = build_report(AgreementInput(sch, [doc], edits, [], work), bootstrap=0)
    entry = r["edit_fields"]["deletion.severity"]
    assert entry["matched_pairs"] == 2  # b3 overlaps nothing
    assert entry["metrics"]["percent"]["value"] == pytest.approx(0.5)
    assert entry["metrics"]["cohen"]["pairs"]["ann1|ann2"]["confusion"][0][0] == 1
    prof = r["annotators"]
    assert prof["ann2"]["edits"] == 3 and prof["ann2"]["median_seconds_per_document"] == 300.0
    assert prof["ann1"]["edit_type_share"]["deletion"] == 1.0
    assert prof["ann1"]["mean_tokens"]["evidence"] == pytest.approx(2.0)


def test_overgeneration_category_matched_on_target_spans():
    sch = load_schema("overgeneration")
    doc = _doc("d1")
    edits = [Edit("a1", "d1", "ann1", "overgeneration", {"category": "leaked_instruction"},
                  [Span("target", 0, 11)]),
             Edit("b1", "d1", "ann2", "overgeneration", {"category": "repetitive"},
                  [Span("target", 5, 20)])]
    r = build_report(AgreementInput(sch, [doc], edits, [], []), bootstrap=0)
    entry = r["edit_fields"]["overgeneration.category"]
    assert entry["matched_pairs"] == 1
    assert entry["metrics"]["k"] == 4
    assert entry["metrics"]["percent"]["value"] == 0.0
    # P_o = 0, k = 4: Randolph = (0 - 1/4) / (3/4)
    assert entry["metrics"]["randolph"]["value"] == pytest.approx(-1 / 3)
    assert r["spans"]["source"]["labels"] == []
    assert "no edit type" in r["spans"]["source"]["explanation"]
    assert r["spans"]["target"]["partial"]["counts"]["overgeneration"] == {
        "tp": 0,
        "fp": 1,
        "fn": 1,
    }


def test_document_annotators_rule():
    inp = make_input(n_docs=2)
    inp.work = [Work("d0", "ann1", 1.0, "done"), Work("d0", "ann2", None, "in_progress")]
    got = document_annotators(inp)
    assert got["d0"] == ["ann1"]  # in progress does not count
    assert got["d1"] == ["ann1", "ann2"]  # no Work rows: whoever annotated


def test_section_normalisation_and_headings():
    for raw in ("Design", "Methods", "Materials and Methods", "Patients and methods", "SETTING",
                "Design, Setting, and Participants"):
        assert ds.normalize_section(raw) == "Methods"
    assert ds.normalize_section("CONCLUSION") == "Conclusions"
    assert ds.normalize_section("Aims") == "Objective"
    assert ds.normalize_section("Funding") == "Other"
    text = "BACKGROUND: A b. Patients and methods. We did c. Patients died. RESULTS: Good."
    heads = ds.find_headings(text)
    assert [h[2] for h in heads] == ["Background", "Methods", "Results"]
    assert ds.section_at(heads, text.index("We did")) == "Methods"
    assert ds.section_at(heads, text.index("died")) == "Methods"
    assert ds.section_at(heads, 0) == "Background"


def test_sections_and_positions_in_report():
    doc = _doc("d1")
    src = doc.source
    edits = [
        Edit(
            "a",
            "d1",
            "ann1",
            "deletion",
            {},
            [Span("source", src.index("5 mg"), src.index("5 mg") + 4)],
        ),
        Edit(
            "b",
            "d1",
            "ann1",
            "deletion",
            {},
            [Span("source", src.index("worked"), src.index("worked") + 6)],
        ),
        Edit("c", "d1", "ann1", "oversimplification", {}, [Span("target", 0, 5)]),
    ]
    r = build_report(AgreementInput(schema(), [doc], edits, [], []), bootstrap=0)
    assert r["sections"]["counts"]["Methods"] == 1 and r["sections"]["counts"]["Results"] == 1
    assert r["sections"]["edits_without_source_span"] == 1
    assert r["sections"]["share"]["Methods"] == 0.5
    # source has 3 sentences: 2nd -> (1.5/3) bin 5, 3rd -> (2.5/3) bin 8
    assert r["positions"]["source"]["counts"][5] == 1 and r["positions"]["source"]["counts"][8] == 1
    assert sum(r["positions"]["target"]["counts"]) == 1


def test_question_similarity_groups():
    doc = _doc("d1")
    q = lambda text: {"question": text}  # noqa: E731
    edits = [
        Edit("a1", "d1", "ann1", "deletion", q("what dose was given"), [Span("source", 0, 20)]),
        Edit("b1", "d1", "ann2", "deletion", q("what dose was given"), [Span("source", 0, 20)]),
        Edit("b2", "d1", "ann2", "deletion", q("how long was it"), [Span("source", 10, 30)]),
        Edit("b3", "d1", "ann2", "deletion", q("zzz"), [Span("source", 60, 70)]),
    ]
    annotators = {"d1": ["ann1", "ann2"]}
    out = ds.question_similarity([doc], edits, annotators, hash_embed)
    assert out["groups"]["complete"]["n"] == 1
    assert out["groups"]["complete"]["mean"] == pytest.approx(1.0)
    assert out["groups"]["partial"]["n"] == 1 and out["groups"]["none"]["n"] == 1
    assert out["groups"]["none"]["mean"] == pytest.approx(0.0)
    none = ds.question_similarity([doc], edits, annotators, None)
    assert none["groups"]["complete"] is None and "no embedding" in none["explanation"]


def test_html_is_self_contained_and_escaped():
    inp = make_input(n_docs=5, embed=hash_embed)
    evil = "<script>alert(1)</script>"
    for e in inp.edits:
        if e.annotator == "ann2":
            e.annotator = evil
    for w in inp.work:
        if w.annotator == "ann2":
            w.annotator = evil
    for rt in inp.ratings:
        if rt.annotator == "ann2":
            rt.annotator = evil
    page = render_html(build_report(inp, bootstrap=50))
    assert evil not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page.replace("data:image", ""))
    assert page.count("data:image/png;base64,") >= 4
    for needle in ("Landis &amp; Koch (1977)", "Artstein &amp; Poesio (2008)", "Confusion matrix",
                   "Edits by abstract section", "Question similarity"):
        assert needle in page


def test_html_renders_degenerate_report():
    page = render_html(build_report(AgreementInput(load_schema("infolossqa"), [], [], [], [])))
    assert page.startswith("<!DOCTYPE html>") and "no embedding function" in page


def test_agreement_package_stays_pure():
    import ast
    from pathlib import Path

    import annotator.agreement as pkg

    allowed = {"annotator.schemas", "annotator.align.text", "annotator.core.vocabulary",
               "annotator.core.keys", "annotator.core.spans", "annotator.core.overlap",
               "annotator.core.edit_match", "annotator.core.document_folds"}
    for path in Path(pkg.__file__).parent.glob("*.py"):
        if path.name == "store.py":  # the stage's one database module
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                root = name.split(".")[0]
                assert root not in {"flask", "sqlalchemy", "flask_wtf"}, (path.name, name)
                if root == "annotator":
                    assert name.startswith("annotator.agreement") or name in allowed, (
                        path.name,
                        name,
                    )
        assert len(path.read_text().splitlines()) < 300, path.name
