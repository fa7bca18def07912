"""Regular expressions for the specific content whose loss InfoLossQA annotators flag.

docs/rules.md §3.3 / InfoLossQA (Trienes et al. 2024): the information that plain-language
summaries drop or blur is mostly numbers with units, statistics (p-values, confidence
intervals, relative risks, ± values), dosages, durations, named instruments/scales,
acronyms, parentheticals and study-design terms. :func:`find_content` returns every
such mention in a text with its character span and class; overlapping mentions are
merged so one piece of content is reported once, under its most specific class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotator.core.overlap import spans_overlap

_NUM = r"[-−]?\d+(?:[.,·]\d+)*"
_UNITS = (
    r"(?:mg/kg(?:/d(?:ay)?)?|mg/d(?:ay|l|L)?|µg|μg|mcg|ng/m[lL]|pg/m[lL]|mmol/[lL]|"
    r"µmol/[lL]|nmol/[lL]|mmHg|mm\s?Hg|kg/m2|kg/m²|kg|mg|g|ml|mL|l|L|IU|U|mEq|cm|mm|m|"
    r"kcal|bpm|Gy|mSv|°C|%|‰|h|hrs?|min|s|sec)"
)

# Ordered from most to least specific: when mentions overlap, the earlier class wins.
PATTERNS: dict[str, re.Pattern[str]] = {
    "statistic": re.compile(
        r"\b[pP]\s*(?:[<>=≤≥]|&lt;|&gt;)\s*0?[.,]\d+"
        r"|\b(?:95|90|99)\s*%\s*(?:CI|confidence interval)[^;)\]]{0,40}"
        r"|\b(?:CI|OR|RR|HR|aOR|aHR|IRR|SMD|MD|WMD|NNT|AUC|ROC-AUC|r|R2|R²|kappa|κ)"
        r"\s*(?:[=:,]\s*|\s)" + _NUM + r"(?:\s*[-–to,]+\s*" + _NUM + r")?"
        r"|" + _NUM + r"\s*(?:±|\+/-|\+/−)\s*" + _NUM + r"(?:\s*" + _UNITS + r")?"
        r"|\b(?:odds ratio|relative risk|hazard ratio|risk ratio|standard deviation|"
        r"confidence interval|statistically significant(?:ly)?|significantly|"
        r"non-?inferior(?:ity)?)\b"
    ),
    "dosage": re.compile(
        _NUM + r"\s*(?:[-–]\s*" + _NUM + r"\s*)?"
        r"(?:mg/kg(?:/d(?:ay)?)?|mg|µg|μg|mcg|g|mL|ml|IU|units?|mEq|mmol)\b"
        r"(?:\s*(?:/\s*(?:day|d|kg|dose)|per (?:day|dose|kg)|once|twice|three times)"
        r"(?:\s*(?:daily|a day|weekly|per day))?)?"
        r"|\b(?:once|twice|three times|four times) (?:daily|a day|weekly|per day)\b"
        r"|(?<!\w)(?:b\.i\.d\.|t\.i\.d\.|q\.i\.d\.|q\.d\.|i\.v\.|i\.m\.|s\.c\.|p\.o\.)"
        r"|\b(?:intravenous(?:ly)?|subcutaneous(?:ly)?|intramuscular(?:ly)?|orally)\b"
    ),
    "duration": re.compile(
        r"\b" + _NUM + r"(?:\s*(?:-|–|to|and)\s*" + _NUM + r")?[\s-]*"
        r"(?:years?|months?|weeks?|days?|hours?|minutes?|yrs?|wks?|mos?)\b"
        r"(?:\s+(?:of (?:follow-up|treatment|therapy)|follow-up|later|after))?"
    ),
    "design": re.compile(
        r"\b(?:(?:double|single|triple)[- ]blind(?:ed)?|placebo[- ]controlled|"
        r"randomi[sz]ed(?: controlled)?(?: trial)?|randomly assigned|randomi[sz]ation|"
        r"cross-?over|multi-?cent(?:re|er)|prospective|retrospective|open[- ]label|"
        r"case[- ]control|cohort|cross[- ]sectional|meta-analys[ie]s|systematic review|"
        r"controlled trial|pilot|phase (?:I{1,3}V?|[1-4])|intention[- ]to[- ]treat|"
        r"per[- ]protocol|non-?randomi[sz]ed|observational|longitudinal)\b",
        re.IGNORECASE,
    ),
    "instrument": re.compile(
        r"\b(?:[A-Z][\w'-]*\s+){0,5}(?:Questionnaire|Scale|Score|Index|Inventory|"
        r"Test|Instrument|Assessment|Checklist|Survey)\b(?:\s*\([^()]{1,20}\))?"
    ),
    "number": re.compile(
        r"\b\d+\(OH\)\d*D\d?\b"
        r"|(?<![\w.])" + _NUM + r"(?:\s*" + _UNITS + r"(?![\w]))?"
    ),
    "acronym": re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9-]*\b|\b\d+\(OH\)D\b"),
    "parenthetical": re.compile(r"\([^()]{3,120}\)"),
}

# How much a missing mention of each class suggests real information loss; used as the
# suggestion score. Statistics and dosages are what readers of a trial abstract need
# most; a dropped parenthetical is often just a repeated acronym.
CLASS_WEIGHT = {
    "statistic": 0.95, "dosage": 0.9, "design": 0.85, "duration": 0.85,
    "instrument": 0.8, "number": 0.8, "acronym": 0.6, "parenthetical": 0.5,
}

# Acronyms so common that dropping them is not a loss worth pre-highlighting.
_TRIVIAL_ACRONYMS = {
    "US", "UK", "USA", "EU", "II", "III", "IV", "OK",
    # Structured-abstract headings are labels, not content.
    "BACKGROUND", "METHODS", "METHOD", "RESULTS", "RESULT", "CONCLUSIONS", "CONCLUSION",
    "OBJECTIVE", "OBJECTIVES", "AIM", "AIMS", "PURPOSE", "INTRODUCTION", "DESIGN", "SETTING",
    "SETTINGS", "PARTICIPANTS", "PATIENTS", "INTERVENTIONS", "INTERVENTION", "MEASUREMENTS",
    "DISCUSSION", "FINDINGS", "INTERPRETATION", "FUNDING", "CONTEXT", "IMPORTANCE",
    "MAIN", "OUTCOME", "OUTCOMES", "MEASURES", "AND", "OF", "SIGNIFICANCE", "LIMITATIONS",
}


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    content_class: str
    text: str


def find_content(text: str) -> list[Mention]:
    """All content mentions in ``text``, non-overlapping, sorted by start offset.

    Where mentions overlap the most specific class wins, except that a parenthetical
    holding specific content swallows the mentions inside it (the whole bracket is the
    unit that goes missing) and takes the most specific class found inside.
    """
    order = list(PATTERNS)
    raw: list[tuple[int, Mention]] = []
    for name, pattern in PATTERNS.items():
        if name == "parenthetical":
            continue
        for m in pattern.finditer(text):
            mention = _trimmed(text, m.start(), m.end(), name)
            if mention is None:
                continue
            if name == "acronym" and mention.text in _TRIVIAL_ACRONYMS:
                continue
            raw.append((order.index(name), mention))
    for m in PATTERNS["parenthetical"].finditer(text):
        inner = [r for r in raw if r[1].start >= m.start() and r[1].end <= m.end()]
        inside_larger = any(
            r[1].start <= m.start()
            and r[1].end >= m.end()
            and r[1].end - r[1].start > len(m.group())
            for r in raw
        )
        if inner and not inside_larger:
            best = min(inner, key=lambda r: r[0])[1].content_class
            raw.append((-1, Mention(m.start(), m.end(), best, m.group())))
    chosen: list[Mention] = []
    for _, mention in sorted(raw, key=lambda r: (r[0], r[1].start)):
        if spans_overlap([(mention.start, mention.end)], [(c.start, c.end) for c in chosen]):
            continue
        chosen.append(mention)
    return sorted(chosen, key=lambda m: m.start)


def _trimmed(text: str, start: int, end: int, name: str) -> Mention | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start < 1:
        return None
    return Mention(start, end, name, text[start:end])


def normalise_for_presence(text: str) -> str:
    """Lower-case, unify minus signs and drop spaces so '2.5 mg' matches '2.5mg'."""
    return re.sub(r"\s+", "", text.lower().replace("−", "-").replace("·", "."))
