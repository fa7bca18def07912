"""The nine QA-quality criteria (docs/rules.md §4.3): which options count as *good* when results
are binarised, and which ratings are *negative* (and so need a written rationale).

Binarising: good = the options in GOOD; 'na' (localization of a deletion, which has no
rationale span) is left out of the denominator. Negative = neither good nor 'na'.
For "answerable with the simplification" a good information-loss QA is one the
simplification does *not* answer: only 'not' is good.
"""

from __future__ import annotations

GOOD = {
    "givenness": {"good"},
    "localization": {"good"},
    "jargon": {"none", "explained_answer", "explained_text"},
    "standalone": {"yes"},
    "answerable_original": {"single", "several"},
    "answerable_simplification": {"not"},
    "answer_accuracy": {"yes"},
    "evidence_accuracy": {"yes"},
    "hallucination": {"none"},
}
NOT_APPLICABLE = {"na"}
CRITERIA = tuple(GOOD)


def is_good(criterion: str, value) -> bool | None:
    """True / False, or None when the value is 'not applicable' (or missing)."""
    if value is None or value in NOT_APPLICABLE:
        return None
    return value in GOOD[criterion]


def is_negative(criterion: str, value) -> bool:
    return criterion in GOOD and is_good(criterion, value) is False
