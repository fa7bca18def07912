"""The document bootstrap resamples only the documents that carry each comparison."""

import numpy as np
import pytest

from annotator.agreement.bootstrap import Bootstrap, carrying_documents
from annotator.agreement.data import AgreementInput, Document, Rating
from annotator.agreement.report import build_report
from annotator.schemas.files import load_schema


def _doc(i):
    return Document(i, "The trial gave 5 mg daily.", "The trial gave a drug.", [], [], {})


def _study(double: dict[str, tuple[str, str]], single: int) -> AgreementInput:
    """Documents rated by two annotators (``double``: id -> their two values on item 0)
    plus ``single`` documents rated by one annotator only."""
    docs, ratings = [], []
    for doc_id, (a, b) in double.items():
        docs.append(_doc(doc_id))
        ratings += [Rating(doc_id, "ann1", "pair", "0", "overgenerated", a),
                    Rating(doc_id, "ann2", "pair", "0", "overgenerated", b)]
    for k in range(single):
        docs.append(_doc(f"s{k}"))
        ratings.append(Rating(f"s{k}", "ann1", "pair", "0", "overgenerated", "yes"))
    return AgreementInput(load_schema("overgeneration"), docs, [], ratings, [])


def test_one_doubly_annotated_document_has_no_interval():
    """Regression: one doubly annotated document among singly annotated ones gave a 95%
    interval (-0.875 to -0.5 on the demo) from resamples of all documents."""
    report = build_report(_study({"d1": ("yes", "no")}, single=9), bootstrap=1000)
    metrics = report["fields"]["overgenerated"]["metrics"]
    for name in ("alpha_nominal", "randolph", "fleiss", "percent"):
        ci = metrics[name]["ci"]
        assert ci["low"] is None and ci["high"] is None, name
        assert ci["documents"] == 1
        assert "1 document(s) carry this comparison" in ci["explanation"]
    assert metrics["randolph"]["value"] == pytest.approx(-1.0)


def test_two_carrying_documents_resample_only_those():
    """Documents A (agree) and B (disagree) among eight singly rated ones: percent agreement
    of a resample of A and B is 1, 0.5 or 0 (probabilities 1/4, 1/2, 1/4), never undefined;
    drawing from all ten documents would leave many resamples with neither."""
    report = build_report(_study({"a": ("yes", "yes"), "b": ("yes", "no")}, single=8),
                          bootstrap=1000, seed=3)
    ci = report["fields"]["overgenerated"]["metrics"]["percent"]["ci"]
    assert ci["documents"] == 2
    assert ci["undefined_resamples"] == 0
    assert (ci["low"], ci["high"]) == (0.0, 1.0)


def test_carrying_documents_are_the_non_zero_rows():
    per_doc = np.zeros((5, 2, 2))
    per_doc[1, 0, 1] = per_doc[3, 1, 1] = 2.0
    assert carrying_documents(per_doc).tolist() == [1, 3]


def test_resampled_sums_draw_within_the_carrying_documents():
    boot = Bootstrap(6, 200, seed=0)
    per_doc = np.array([0.0, 1.0, 0.0, 10.0, 0.0, 0.0])[:, None]
    carrying = carrying_documents(per_doc)
    sums = boot.resampled_sums(per_doc, carrying)[:, 0]
    # each resample has two draws from {1, 10}: sums 2, 11 or 20 only
    assert set(np.unique(sums).tolist()) <= {2.0, 11.0, 20.0}
    assert set(np.unique(sums).tolist()) == {2.0, 11.0, 20.0}
