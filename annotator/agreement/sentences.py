"""Sentence-level agreement: project spans onto sentences, then Krippendorff's alpha.

Trienes et al. (2024, InfoLossQA): each sentence of the original gets, per annotator, the
binary label 1 if any of the annotator's spans on that side overlaps it (character ranges
intersect), else 0; nominal alpha (Krippendorff 2011) over all sentences of all documents.
The multi-label variant gives each sentence the *set* of edit types whose spans overlap it
and uses the MASI distance (Passonneau 2006; Artstein & Poesio 2008, section 2.6) in alpha.
The same is done for the simplification side with its own sentences.

Raters of a sentence are the annotators counted on its document (see
:func:`annotator.agreement.data.document_annotators`); units with one rater drop out.
Sentence offsets come from the input; a document without offsets on a side falls back to
:func:`fallback_sentences`, a plain end-punctuation split.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

import numpy as np

from annotator.core.overlap import spans_overlap

from .alpha import coincidence_per_unit, masi_delta, unit_counts
from .data import Document, Edit
from .spans import edit_spans

_SENTENCE_END = re.compile(r"[.!?](?=\s+[\"'(\[]?[A-Z0-9])")


def fallback_sentences(text: str) -> list[tuple[int, int]]:
    """Split at '.', '!' or '?' followed by whitespace and a capital or digit."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
        while start < len(text) and text[start].isspace():
            start += 1
    if text[start:].strip():
        out.append((start, len(text)))
    return out


# Where sentence boundaries come from: the offsets stored with each document (the project's
# own splitter, annotator.align.text, which keeps "vs.", "i.e." and "et al." inside a
# sentence), or NLTK's Punkt with its default parameters, the splitter behind the InfoLossQA
# reference figures (docs/agreement.md, "Sentence-level alpha").
SENTENCE_SPLITTERS = ("stored", "punkt")


def punkt_sentences(text: str) -> list[tuple[int, int]]:
    """NLTK's PunktSentenceTokenizer, untrained (its default parameters: nothing to download).
    It splits after abbreviations such as "vs." and "i.e.", which the project's splitter does
    not; use it to reproduce figures computed with it."""
    # NLTK takes about 2 s to import; only this option needs it.
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return [(start, end) for start, end in PunktSentenceTokenizer().span_tokenize(text)]


def resplit(documents: Sequence[Document], splitter: str) -> list[Document]:
    """The documents with their sentence offsets taken from ``splitter`` (see
    SENTENCE_SPLITTERS); "stored" leaves them as they are."""
    if splitter == "stored":
        return list(documents)
    if splitter != "punkt":
        raise ValueError(f"unknown sentence splitter {splitter!r}; one of {SENTENCE_SPLITTERS}")
    return [replace(d, source_sentences=punkt_sentences(d.source),
                    target_sentences=punkt_sentences(d.target)) for d in documents]


def sentences_of(doc: Document, side: str) -> list[tuple[int, int]]:
    given = doc.source_sentences if side == "source" else doc.target_sentences
    if given:
        return [tuple(s) for s in given]
    return fallback_sentences(doc.source if side == "source" else doc.target)


def sentence_label_sets(doc: Document, edits: Sequence[Edit], side: str,
                        first_span_only: bool = False) -> list[frozenset]:
    """For each sentence of ``side``: the set of edit types whose spans overlap it."""
    sents = sentences_of(doc, side)
    spans = edit_spans(edits, side, first_span_only)
    return [frozenset(lab for lab, s, e in spans if spans_overlap([(s, e)], [(start, end)]))
            for start, end in sents]


def projection(documents: Sequence[Document], edits: Sequence[Edit],
               annotators: dict[str, list[str]], side: str, first_span_only: bool = False):
    """Sentence labels per document: {doc_id: {annotator: [frozenset per sentence]}}."""
    by_doc_ann: dict[tuple[str, str], list[Edit]] = {}
    for e in edits:
        by_doc_ann.setdefault((e.document_id, e.annotator), []).append(e)
    return {
        doc.id: {a: sentence_label_sets(doc, by_doc_ann.get((doc.id, a), []), side, first_span_only)
                 for a in annotators.get(doc.id, [])}
        for doc in documents
    }


def reliability_rows(proj: dict, binary: bool):
    """Rows = all annotators, columns = all sentences of all documents (None = missing)."""
    names = sorted({a for per in proj.values() for a in per})
    rows = {a: [] for a in names}
    doc_of_unit = []
    for doc_id, per in proj.items():
        n = max((len(v) for v in per.values()), default=0)
        for i in range(n):
            doc_of_unit.append(doc_id)
            for a in names:
                labels = per.get(a)
                value = None if labels is None else labels[i]
                if binary and value is not None:
                    value = int(bool(value))
                rows[a].append(value)
    return names, [rows[a] for a in names], doc_of_unit


def per_document_coincidence(proj: dict, doc_ids: Sequence[str], binary: bool):
    """Per-document coincidence matrices (documents x V x V), the value domain and delta.

    binary: V = 2 (values 0/1, nominal delta); multi-label: V = distinct label sets seen,
    delta = MASI distance."""
    names, rows, doc_of_unit = reliability_rows(proj, binary)
    if binary:
        domain = [0, 1]
    else:
        domain = sorted({v for row in rows for v in row if v is not None},
                        key=lambda s: (len(s), sorted(s)))
    index = {v: i for i, v in enumerate(domain)}
    codes = np.array([[index[v] if v is not None else -1 for v in row] for row in rows],
                     dtype=np.int64).reshape(len(rows), len(doc_of_unit))
    per_unit = coincidence_per_unit(unit_counts(codes, len(domain)))
    where = {d: i for i, d in enumerate(doc_ids)}
    out = np.zeros((len(doc_ids), len(domain), len(domain)))
    if len(doc_of_unit):
        np.add.at(out, np.array([where[d] for d in doc_of_unit]), per_unit)
    delta = (1.0 - np.eye(len(domain))) if binary else masi_delta(domain)
    return out, domain, delta, (names, rows)
