"""Synthetic agreement inputs for the benchmark and the tests (no database, no model).

Structured abstracts with section headings, two or more annotators whose InfoLossQA-style
edits partly coincide, severity ratings on edits, and an ordinal document-level rating field.
"""

from __future__ import annotations

import numpy as np

from annotator.schemas import parse_schema

from .data import AgreementInput, Document, Edit, Rating, Span, Work

SCHEMA_YAML = """
name: synthetic
title: Synthetic information loss
unit: document
edit_types:
  - name: deletion
    sides: [source]
    fields:
      - {name: question, type: text}
      - {name: answer, type: text}
      - name: severity
        type: ordinal
        options: [{value: 1, label: minor}, {value: 2, label: major}, {value: 3, label: critical}]
  - name: oversimplification
    sides: [source, target]
    fields:
      - {name: question, type: text}
      - {name: answer, type: text}
      - name: severity
        type: ordinal
        options: [{value: 1, label: minor}, {value: 2, label: major}, {value: 3, label: critical}]
ratings:
  - name: fluency
    level: sentence
    type: ordinal
    options: [{value: -1, label: bad}, {value: 0, label: ok}, {value: 1, label: good}]
  - name: faithful
    level: document
    type: choice
    options:
      - {value: "yes", label: "Yes"}
      - {value: "partly", label: Partly}
      - {value: "no", label: "No"}
"""

HEADINGS = ["BACKGROUND:", "METHODS:", "RESULTS:", "CONCLUSIONS:"]
WORDS = ("patients trial dose placebo outcome cohort randomized mg/kg interval ratio "
         "survival follow-up baseline serum level questionnaire").split()


def schema():
    return parse_schema(SCHEMA_YAML, "<synthetic>")


def _text(rng, n_sentences: int, headings: bool):
    parts, offsets, pos = [], [], 0
    for i in range(n_sentences):
        words = [WORDS[j] for j in rng.integers(0, len(WORDS), size=rng.integers(6, 14))]
        sentence = " ".join(words).capitalize() + "."
        if headings and i % max(1, n_sentences // 4) == 0 and i // max(1, n_sentences // 4) < 4:
            sentence = HEADINGS[i // max(1, n_sentences // 4)] + " " + sentence
        parts.append(sentence)
        offsets.append((pos, pos + len(sentence)))
        pos += len(sentence) + 1
    return " ".join(parts), offsets


def make_input(n_docs: int = 100, n_annotators: int = 2, edits_per_doc: int = 10,
               seed: int = 0, shared: float = 0.6, embed=None) -> AgreementInput:
    """``shared``: probability that an edit of the first annotator is copied (possibly
    shifted) by the others, so agreement is moderate rather than zero."""
    rng = np.random.default_rng(seed)
    names = [f"ann{i + 1}" for i in range(n_annotators)]
    docs, edits, ratings, work = [], [], [], []
    for d in range(n_docs):
        source, s_off = _text(rng, 10, True)
        target, t_off = _text(rng, 8, False)
        doc = Document(f"d{d}", source, target, s_off, t_off, {"system": f"sys{d % 3}"})
        docs.append(doc)
        base = []
        for k in range(edits_per_doc):
            a = int(rng.integers(0, len(source) - 40))
            b = int(rng.integers(0, len(target) - 30))
            et = "deletion" if rng.random() < 0.3 else "oversimplification"
            base.append((et, a, a + int(rng.integers(10, 40)), b, b + int(rng.integers(8, 30)),
                         int(rng.integers(1, 4))))
        for ai, name in enumerate(names):
            work.append(Work(doc.id, name, float(rng.integers(600, 1800)), "done"))
            for k, (et, a0, a1, b0, b1, sev) in enumerate(base):
                if ai and rng.random() > shared:
                    a0, a1 = sorted(rng.integers(0, len(source), size=2).tolist())
                    a1 = max(a1, a0 + 5)
                    sev = int(rng.integers(1, 4))
                elif ai and rng.random() < 0.3:
                    a0 += int(rng.integers(-5, 6))
                    a0 = max(0, a0)
                spans = [Span("source", a0, a1)]
                if et == "oversimplification":
                    spans.append(Span("target", b0, b1))
                edits.append(Edit(f"{doc.id}-{name}-{k}", doc.id, name, et,
                                  {"question": f"What {WORDS[k % len(WORDS)]} was used {k}?",
                                   "answer": "The " + WORDS[(k + d) % len(WORDS)],
                                   "severity": sev}, spans))
            for s in range(len(t_off)):
                v = int(rng.integers(-1, 2)) if ai and rng.random() > shared else (d + s) % 3 - 1
                ratings.append(Rating(doc.id, name, "sentence", str(s), "fluency", v))
            ratings.append(
                Rating(
                    doc.id,
                    name,
                    "document",
                    "",
                    "faithful",
                    ["yes", "partly", "no"][(d + (ai and rng.random() > shared)) % 3],
                )
            )
    return AgreementInput(schema(), docs, edits, ratings, work, embed)


def hash_embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for a sentence encoder: bag of hashed words, L2-normalised."""
    out = np.zeros((len(texts), 64))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, sum(map(ord, w)) % 64] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)
