"""SALSA token-level agreement per edit type and subtype: hand-computed cases and an
independent computation on the SALSA example data (Thresh's copy, Heineman et al. 2023)."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import krippendorff
import numpy as np
import pytest

from annotator.agreement.data import AgreementInput, Document, Edit, Span, Work
from annotator.agreement.report import build_report
from annotator.schemas import parse_schema
from tests.helpers import SALSA as SALSA_EXAMPLE

SALSA = SALSA_EXAMPLE / "salsa.json"

# The SALSA typology's edit types with the options of their first question (salsa.yml).
SUBTYPES = {
    "deletion": ("deletion_type", ["good_deletion", "trivial_deletion", "bad_deletion"],
                 ["source"]),
    "insertion": ("insertion_type", ["elaboration", "trivial_insertion", "repetition",
                                     "contradiction", "facutal_error", "irrelevant"],
                  ["target"]),
    "substitution": ("substitution_info_change", ["same", "less", "more", "different"],
                     ["source", "target"]),
    "reorder": ("reorder_level", ["word_level", "component_level"], ["source", "target"]),
    "structure": ("structure_type", ["voice", "pos", "tense", "grammar_number", "clausal",
                                     "transition"], ["source", "target"]),
}


def salsa_schema():
    lines = ["name: salsa-test", "title: SALSA", "unit: sentence", "edit_types:"]
    for name, (field, options, sides) in SUBTYPES.items():
        lines += [f"  - name: {name}", f"    sides: [{', '.join(sides)}]", "    fields:",
                  f"      - name: {field}", "        type: choice",
                  "        options: [" + ", ".join(f"{{value: {o}, label: {o}}}"
                                                   for o in options) + "]",
                  "      - {name: grammar_error, type: text}"]
    return parse_schema("\n".join(lines) + "\n")


def tiny(edits, annotators=("x", "y"), source="a b c d"):
    doc = Document("d1", source, "t", [], [], {})
    made = [Edit(str(i), "d1", who, edit_type, fields,
                 [Span("source", s, e) for s, e in spans])
            for i, (who, edit_type, fields, spans) in enumerate(edits)]
    # every listed annotator finished the document (some may have made no edit)
    inp = AgreementInput(salsa_schema(), [doc], made, [],
                         [Work("d1", a, None, "done") for a in annotators])
    return build_report(inp, bootstrap=0)["tokens"]["source"]


def test_two_annotators_half_overlapping_deletions():
    """x deletes "a b", y "b c" of "a b c d": token labels (1,0) (1,1) (0,1) (0,0).
    Fleiss: P_bar = 1/2, p_1 = p_0 = 1/2, P_e = 1/2 -> kappa 0. Nominal alpha: o_00 = o_11
    = o_01 = o_10 = 2, n = 8: D_o = 4/8, D_e = 2*4*4/(8*7) -> alpha = 1 - 0.5/(32/56) = 1/8."""
    out = tiny([("x", "deletion", {"deletion_type": "good_deletion"}, [(0, 3)]),
                ("y", "deletion", {"deletion_type": "bad_deletion"}, [(2, 5)])])
    deletion = out["types"]["deletion"]
    assert deletion["fleiss"]["value"] == pytest.approx(0.0)
    assert deletion["alpha_nominal"]["value"] == pytest.approx(0.125)
    assert deletion["labelled_tokens"] == {"x": 2, "y": 2}
    # subtypes: good_deletion only x (a, b), bad_deletion only y (b, c): no token agreed on
    good = out["subtypes"]["deletion/good_deletion"]
    assert good["labelled_tokens"] == {"x": 2, "y": 0}
    # P_i: a 0, b 0, c 1, d 1 -> P_bar 1/2; p_1 = 2/8 -> P_e = 1/16 + 9/16 = 10/16
    assert good["fleiss"]["value"] == pytest.approx((0.5 - 10 / 16) / (1 - 10 / 16))
    assert out["subtypes"]["deletion/trivial_deletion"]["fleiss"]["value"] is None
    assert "one category" in out["subtypes"]["deletion/trivial_deletion"]["fleiss"]["explanation"]
    assert out["documents"] == 1 and out["tokens"] == 4


def test_three_annotators_and_an_annotator_without_edits():
    """x and y delete "a" of "a b c", z marks nothing: token a (1,1,0), b and c (0,0,0).
    Fleiss: P_a = 1/3, P_b = P_c = 1 -> P_bar = 7/9; p_1 = 2/9 -> P_e = 53/81;
    kappa = (7/9 - 53/81) / (28/81) = 10/28. Alpha: o_00 = 6, o_11 = 1, o_01 = o_10 = 1,
    n = 9, n_0 = 7, n_1 = 2: alpha = 1 - (2/9) / (2*7*2/72) = 3/7."""
    out = tiny([("x", "deletion", {}, [(0, 1)]), ("y", "deletion", {}, [(0, 1)])],
               annotators=("x", "y", "z"), source="a b c")
    deletion = out["types"]["deletion"]
    assert deletion["fleiss"]["value"] == pytest.approx(10 / 28)
    assert deletion["alpha_nominal"]["value"] == pytest.approx(3 / 7)
    assert deletion["labelled_tokens"] == {"x": 1, "y": 1, "z": 0}


def test_overall_label_joins_overlapping_types():
    """x: deletion on "a b", substitution on "b c"; y: substitution on "b c". Overall labels
    x: deletion, deletion+substitution, substitution, none; y: none, substitution,
    substitution, none -> agreement on c and d only."""
    out = tiny([("x", "deletion", {}, [(0, 3)]), ("x", "substitution", {}, [(2, 5)]),
                ("y", "substitution", {}, [(2, 5)])])
    overall = out["overall"]
    assert overall["categories"] == ["none", "deletion", "substitution",
                                     "deletion+substitution"]
    # P_bar = 2/4; totals none 3, deletion 1, substitution 3, both 1 (of 8)
    p_e = (9 + 1 + 9 + 1) / 64
    assert overall["fleiss"]["value"] == pytest.approx((0.5 - p_e) / (1 - p_e))


# ---------------------------------------------------------------- SALSA example data


def salsa_records() -> list[dict]:
    """The example's records, keeping one record per (original sentence, annotator): an
    annotator who rated several systems' simplifications of one original counts once."""
    seen, kept = set(), []
    for r in json.loads(SALSA.read_text(encoding="utf-8")):
        key = (r["source"], r["metadata"]["annotator"])
        if key not in seen:
            seen.add(key)
            kept.append(r)
    return kept


def salsa_input():
    """One document per distinct original sentence; each Thresh record is one annotator's
    work on it. Sentences of the example were simplified by several systems, so annotators
    of one original saw different simplifications: only the original (source) side is
    shared, and only source spans are kept. A structure edit's spans are its constituents'."""
    records = salsa_records()
    documents: dict[str, Document] = {}
    edits, work = [], []
    for r in records:
        if r["source"] not in documents:
            documents[r["source"]] = Document(f"s{len(documents)}", r["source"], r["target"],
                                              [], [], {})
        doc_id = documents[r["source"]].id
        who = r["metadata"]["annotator"]
        work.append(Work(doc_id, who, None, "done"))
        for k, e in enumerate(r["edits"]):
            if e["category"] not in SUBTYPES:
                continue
            parts = [e] + list(e.get("constituent_edits") or [])
            spans = [Span("source", s, t) for part in parts
                     for s, t in (part.get("input_idx") or [])]
            edits.append(Edit(f"{doc_id}-{who}-{k}", doc_id, who, e["category"],
                              dict(e["annotation"]), spans))
    return AgreementInput(salsa_schema(), list(documents.values()), edits, [], work), records


def independent(records, label_of) -> tuple[float, float]:
    """Fleiss' kappa and nominal alpha over the original's tokens, written out from the
    definitions: tokens of sentences with 2+ annotators, 1 where label_of(edit) covers it."""
    by_source = defaultdict(list)
    for r in records:
        by_source[r["source"]].append(r)
    key = "input_idx"
    rows = []  # per token: annotator -> 0/1
    names = sorted({r["metadata"]["annotator"] for r in records})
    for source, group in by_source.items():
        if len(group) < 2:
            continue
        tokens = [m.span() for m in re.finditer(r"\S+", source)]
        for start, end in tokens:
            labels = {}
            for r in group:
                covered = 0
                for e in r["edits"]:
                    if not label_of(e):
                        continue
                    for part in [e] + list(e.get("constituent_edits") or []):
                        for s, t in part.get(key) or []:
                            if s < end and start < t:
                                covered = 1
                labels[r["metadata"]["annotator"]] = covered
            rows.append(labels)
    # Fleiss (1971), items with their own number of raters
    p_i, ones, total = [], 0, 0
    for labels in rows:
        n, c1 = len(labels), sum(labels.values())
        c0 = n - c1
        p_i.append((c1 * (c1 - 1) + c0 * (c0 - 1)) / (n * (n - 1)))
        ones, total = ones + c1, total + n
    p_bar = sum(p_i) / len(p_i)
    p1 = ones / total
    p_e = p1**2 + (1 - p1) ** 2
    kappa = (p_bar - p_e) / (1 - p_e)
    data = np.array([[labels.get(a, np.nan) for labels in rows] for a in names], dtype=float)
    alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    return kappa, alpha


def test_salsa_token_kappas_equal_an_independent_computation():
    inp, records = salsa_input()
    report = build_report(inp, bootstrap=0)
    checked = 0
    for side in ("source",):
        tokens = report["tokens"][side]
        for edit_type, entry in tokens["types"].items():
            if entry["fleiss"]["value"] is None:
                continue
            kappa, alpha = independent(records, lambda e, t=edit_type: e["category"] == t)
            assert entry["fleiss"]["value"] == pytest.approx(kappa), (side, edit_type)
            assert entry["alpha_nominal"]["value"] == pytest.approx(alpha), (side, edit_type)
            checked += 1
        for subtype, entry in tokens["subtypes"].items():
            if entry["fleiss"]["value"] is None:
                continue
            edit_type, value = subtype.split("/")
            field = SUBTYPES[edit_type][0]

            def label_of(e, edit_type=edit_type, field=field, value=value):
                answer = e["annotation"].get(field)
                answer = answer.get("val") if isinstance(answer, dict) else answer
                return e["category"] == edit_type and answer == value

            kappa, alpha = independent(records, label_of)
            assert entry["fleiss"]["value"] == pytest.approx(kappa), (side, subtype)
            assert entry["alpha_nominal"]["value"] == pytest.approx(alpha), (side, subtype)
            checked += 1
    assert checked >= 10
    # six original sentences have two or three distinct annotators
    assert report["tokens"]["source"]["documents"] == 6
