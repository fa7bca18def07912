"""Descriptive statistics next to the coefficients: per-annotator profile, abstract
sections, sentence positions, and question similarity versus evidence overlap.

These follow the analyses of Trienes et al. (2024, InfoLossQA): where in an abstract the
information loss sits (42% in Methods there), how annotators differ in volume and length,
and whether annotators who mark overlapping evidence also ask similar questions (cosine of
question embeddings grouped by no / partial / complete evidence overlap). The embedding
function is passed in (``embed(list[str]) -> array`` of L2-normalised rows), so this module
stays free of any model.
"""

from __future__ import annotations

import re
import statistics
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

from annotator.core.overlap import overlap_degree, token_range, whitespace_tokens
from annotator.core.vocabulary import SIDES

from .data import Document, Edit, Work
from .sentences import sentences_of

SECTION_ORDER = ("Background", "Objective", "Methods", "Results", "Conclusions", "Other",
                 "(no heading)")
# A heading: up to six capitalised (or linking) words at a sentence start, then ':' or '.'.
_HEADING = re.compile(
    r"(?:^|(?<=\n)|(?<=[.!?:]\s)|(?<=[.!?:]\s\s))\s*"
    r"(?P<h>[A-Z][A-Za-z']*(?:(?:\s|,\s?)(?:[A-Za-z']+|&)){0,5})\s*(?P<p>[:.])"
)
_KNOWN = {
    "background": "Background", "introduction": "Background", "context": "Background",
    "rationale": "Background", "importance": "Background",
    "objective": "Objective", "objectives": "Objective", "aim": "Objective",
    "aims": "Objective", "purpose": "Objective", "goal": "Objective", "goals": "Objective",
    "aims and objectives": "Objective", "study objective": "Objective",
    "study objectives": "Objective", "hypothesis": "Objective",
    "results": "Results", "result": "Results", "findings": "Results",
    "main results": "Results",
    "conclusions": "Conclusions", "conclusion": "Conclusions",
    "interpretation": "Conclusions", "discussion": "Conclusions",
    "implications": "Conclusions", "conclusions and relevance": "Conclusions",
    "authors conclusions": "Conclusions", "summary": "Conclusions",
}
for _m in ("methods", "method", "design", "setting", "study design", "materials and methods",
           "patients and methods", "subjects and methods", "methodology", "participants",
           "patients", "interventions", "intervention", "measurements",
           "main outcome measures", "outcome measures", "design setting and participants",
           "exposures", "exposure", "data sources", "study selection", "data extraction",
           "search strategy", "selection criteria", "data collection and analysis",
           "main outcomes and measures", "population", "materials", "methods and materials",
           "setting and participants", "design and setting", "patients and setting"):
    _KNOWN[_m] = "Methods"


def normalize_section(heading: str) -> str:
    """Map a raw heading ("Materials and Methods", "DESIGN") to a canonical section name;
    unknown headings become "Other"."""
    key = re.sub(r"[^a-z& ]+", " ", heading.lower()).replace("&", "and")
    key = " ".join(key.split())
    return _KNOWN.get(key, "Other")


def find_headings(text: str) -> list[tuple[int, str, str]]:
    """(offset, raw heading, section) of the headings of a structured abstract.

    A heading is a run of words at a sentence start followed by ':' or '.', accepted when it
    is in capitals, or names a known section, or (before ':') starts with a capital."""
    found = []
    for m in _HEADING.finditer(text):
        raw, punct = m.group("h"), m.group("p")
        letters = [c for c in raw if c.isalpha()]
        caps = len(letters) >= 3 and all(c.isupper() for c in letters)
        section = normalize_section(raw)
        if caps or section != "Other" or (punct == ":" and len(raw.split()) <= 4):
            found.append((m.start("h"), raw, section))
    return found


def section_at(headings: Sequence[tuple[int, str, str]], offset: int) -> str:
    """Section of a character offset: that of the last heading starting at or before it."""
    section = "(no heading)"
    for start, _raw, name in headings:
        if start <= offset:
            section = name
        else:
            break
    return section


def sections(documents: Sequence[Document], edits: Sequence[Edit]) -> dict:
    """Edits per normalised section of the original (section of the edit's first source
    span); edits without a source span are counted apart."""
    heads = {d.id: find_headings(d.source) for d in documents}
    counts = {s: 0 for s in SECTION_ORDER}
    by_type: dict[str, dict[str, int]] = {}
    seen: dict[str, str] = {}
    without = 0
    for e in edits:
        src = [s for s in e.spans if s.side == "source"]
        if not src or e.document_id not in heads:
            without += 1
            continue
        name = section_at(heads[e.document_id], src[0].start)
        counts[name] += 1
        by_type.setdefault(e.edit_type, {s: 0 for s in SECTION_ORDER})[name] += 1
    for hs in heads.values():
        for _o, raw, name in hs:
            seen[raw] = name
    total = sum(counts.values())
    return {
        "order": list(SECTION_ORDER),
        "counts": counts,
        "share": {s: (n / total if total else None) for s, n in counts.items()},
        "by_edit_type": by_type,
        "edits_without_source_span": without,
        "headings_seen": dict(sorted(seen.items())),
    }


def positions(documents: Sequence[Document], edits: Sequence[Edit], bins: int = 10) -> dict:
    """Edits per relative sentence position (deciles by default), per side and edit type.

    Position of an edit on a side = (i + 0.5) / n for the sentence i (of n) holding the
    start of its first span there."""
    docs = {d.id: d for d in documents}
    labels = [f"{round(100 * b / bins)}-{round(100 * (b + 1) / bins)}%" for b in range(bins)]
    out = {"bins": labels}
    for side in SIDES:
        total = [0] * bins
        by_type: dict[str, list[int]] = {}
        for e in edits:
            spans = [s for s in e.spans if s.side == side]
            doc = docs.get(e.document_id)
            if not spans or doc is None:
                continue
            sents = sentences_of(doc, side) or [
                (0, len(doc.source if side == "source" else doc.target))
            ]
            i = next((k for k, (a, b) in enumerate(sents) if a <= spans[0].start < b), None)
            if i is None:
                i = max((k for k, (a, _b) in enumerate(sents) if a <= spans[0].start), default=0)
            b = min(bins - 1, int((i + 0.5) / len(sents) * bins))
            total[b] += 1
            by_type.setdefault(e.edit_type, [0] * bins)[b] += 1
        out[side] = {"counts": total, "by_edit_type": by_type}
    return out


def _tokens(text) -> int:
    return len(str(text).split()) if text else 0


def annotator_profiles(documents: Sequence[Document], edits: Sequence[Edit],
                       work: Sequence[Work], annotators: dict[str, list[str]],
                       edit_types: Sequence[str]) -> dict:
    """Per annotator: documents, edits, share of each edit type, edits per document, mean
    whitespace-token length of question, answer, evidence (source spans) and rationale
    (target spans) per edit, median seconds per document (Work rows with a time, the
    annotator's stored active seconds; a document never opened, still ``assigned`` with no
    time, has no time per document yet and would pull the median to zero)."""
    docs = {d.id: d for d in documents}
    names = sorted({a for v in annotators.values() for a in v} | {e.annotator for e in edits}
                   | {w.annotator for w in work})
    out = {}
    for a in names:
        mine = [e for e in edits if e.annotator == a]
        n_docs = sum(1 for v in annotators.values() if a in v)
        lengths = {"question": [], "answer": [], "evidence": [], "rationale": []}
        for e in mine:
            for key in ("question", "answer"):
                if e.fields.get(key):
                    lengths[key].append(_tokens(e.fields[key]))
            doc = docs.get(e.document_id)
            for side, key in (("source", "evidence"), ("target", "rationale")):
                spans = [s for s in e.spans if s.side == side]
                if spans and doc is not None:
                    text = doc.source if side == "source" else doc.target
                    lengths[key].append(sum(_tokens(text[s.start:s.end]) for s in spans))
        seconds = [w.seconds for w in work if w.annotator == a and w.seconds is not None
                   and (w.seconds or w.status != "assigned")]
        out[a] = {
            "documents": n_docs,
            "edits": len(mine),
            "edit_type_share": {
                t: (sum(e.edit_type == t for e in mine) / len(mine) if mine else None)
                for t in edit_types
            },
            "edits_per_document": len(mine) / n_docs if n_docs else None,
            "mean_tokens": {k: (float(np.mean(v)) if v else None) for k, v in lengths.items()},
            "median_seconds_per_document": float(statistics.median(seconds)) if seconds else None,
        }
    return out


def question_similarity(documents: Sequence[Document], edits: Sequence[Edit],
                        annotators: dict[str, list[str]],
                        embed: Callable[[list[str]], np.ndarray] | None) -> dict:
    """Mean cosine similarity of questions written by different annotators on the same
    document, grouped by the overlap of their evidence (source) token sets: none (disjoint),
    partial, complete (identical sets). Every cross-annotator pair of edits that both have a
    question and a source span counts."""
    groups = ("none", "partial", "complete")
    if embed is None:
        return {"groups": {g: None for g in groups},
                "explanation": "no embedding function was given"}
    docs = {d.id: d for d in documents}
    by: dict[tuple[str, str], list[Edit]] = {}
    for e in edits:
        if e.fields.get("question") and any(s.side == "source" for s in e.spans):
            by.setdefault((e.document_id, e.annotator), []).append(e)
    pairs = []
    for doc_id, names in annotators.items():
        if doc_id not in docs:
            continue
        tokens = whitespace_tokens(docs[doc_id].source)
        for a, b in combinations(names, 2):
            for ea in by.get((doc_id, a), []):
                for eb in by.get((doc_id, b), []):
                    pairs.append((ea, eb, _overlap(tokens, ea, eb)))
    if not pairs:
        return {"groups": {g: None for g in groups},
                "explanation": "no pair of questions from different annotators on one document"}
    texts = sorted({str(e.fields["question"]) for p in pairs for e in p[:2]})
    vectors = np.asarray(embed(texts), dtype=np.float64)
    row = {t: i for i, t in enumerate(texts)}
    sims = {g: [] for g in groups}
    for ea, eb, group in pairs:
        sims[group].append(float(vectors[row[str(ea.fields["question"])]]
                                 @ vectors[row[str(eb.fields["question"])]]))
    return {"groups": {g: ({"n": len(v), "mean": float(np.mean(v)), "sd": float(np.std(v))}
                           if v else None) for g, v in sims.items()},
            "explanation": None}


def _overlap(tokens, ea: Edit, eb: Edit) -> str:
    def token_set(e):
        out = set()
        for s in e.spans:
            if s.side == "source":
                lo, hi = token_range(tokens, s.start, s.end)
                out.update(range(lo, hi))
        return out

    return overlap_degree(token_set(ea), token_set(eb))
