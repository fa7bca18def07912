"""Issue 34: conditional (nested) answers are decided along their whole answer path, and a
refused sub-answer names the condition that actually fails (SALSA typology, the study's own
file)."""

from __future__ import annotations

import pytest

from annotator.adjudication.grouping import EditView
from annotator.adjudication.rules import AutoRules, decide_unit
from annotator.annotate.store import ValidationFailed, validate_fields
from annotator.schemas import field_applies
from annotator.schemas.thresh_typology import parse_typology
from tests.helpers import SALSA as SALSA_EXAMPLE

SALSA = SALSA_EXAMPLE / "salsa.yml"
SOURCE = "The drug lowered blood pressure in most patients ."
TARGET = "The drug lowered blood pressure ."
INFO = "substitution_info_change"


@pytest.fixture(scope="module")
def substitution():
    schema = parse_typology(SALSA.read_text(encoding="utf-8"))
    return next(e for e in schema.edit_types if e.name == "substitution")


def tables(edit_type):
    name = edit_type.name
    return ({name: {f.name: f.type for f in edit_type.fields}},
            {name: {f.name: [o.value for o in f.options] for f in edit_type.fields}},
            {name: {f.name: f.when for f in edit_type.fields if f.when is not None}})


def sub(i, who, **fields):
    return EditView(i, who, "substitution", (("source", 17, 31), ("target", 17, 31)), fields)


def decide(edit_type, members):
    types, options, conditions = tables(edit_type)
    return decide_unit(members, {"ana", "ben", "cy"}, AutoRules(edit_rule="majority"), types,
                       options, SOURCE, TARGET, conditions)


def test_majority_path_never_mixes_a_sub_answer_of_another_branch(substitution):
    # two say 'less' without a sub-answer majority of their own, one says 'same' / 'good':
    # before, per-field majorities gave 'less' together with the sub-answer of 'same'
    members = [sub(1, "ana", **{INFO: "less", f"{INFO}.less": "trivial_deletion"}),
               sub(2, "ben", **{INFO: "less", f"{INFO}.less": "trivial_deletion"}),
               sub(3, "cy", **{INFO: "same", f"{INFO}.same": "good",
                               f"{INFO}.same.good": "a lot"})]
    verdict = decide(substitution, members)
    assert verdict.action == "merge"
    assert verdict.fields == {INFO: "less", f"{INFO}.less": "trivial_deletion"}
    for spec in substitution.fields:
        if spec.name in verdict.fields:
            assert field_applies(spec, substitution.fields, verdict.fields), spec.name
    validate_fields(verdict.fields, substitution.fields)  # the merged edit is valid


def test_sub_answer_majority_counts_only_the_edits_on_that_path(substitution):
    # 'same' by ana and ben; cy's 'different' severity must not vote on 'same' sub-answers
    members = [sub(1, "ana", **{INFO: "same", f"{INFO}.same": "good",
                                f"{INFO}.same.good": "minor"}),
               sub(2, "ben", **{INFO: "same", f"{INFO}.same": "bad",
                                f"{INFO}.same.bad": "a lot"}),
               sub(3, "cy", **{INFO: "different", f"{INFO}.different": "a lot"})]
    verdict = decide(substitution, members)
    assert verdict.action == "leave"
    # issue 42: the reason also says who marked the change and that their answers differ
    assert verdict.category == "field conflict"
    assert verdict.reason == ("3 of 3 annotators marked substitution here (ana, ben and cy) "
                              f"but their answers differ: {INFO}.same: no majority value "
                              "(tie): 'bad' x1, 'good' x1")


def test_refused_sub_answer_names_the_condition_that_fails(substitution):
    with pytest.raises(ValidationFailed) as refused:
        validate_fields({INFO: "less", f"{INFO}.same": "good", f"{INFO}.same.good": "a lot"},
                        substitution.fields)
    messages = {p["field"]: p["message"] for p in refused.value.problems}
    # before: "only answered when ....same is 'good' (it is 'good')", contradicting itself
    assert messages[f"fields.{INFO}.same.good"].startswith(
        f"only answered when {INFO} is 'same' (it is 'less')")
    assert messages[f"fields.{INFO}.same"].startswith(
        f"only answered when {INFO} is 'same' (it is 'less')")
