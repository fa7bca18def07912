"""Token-level agreement per edit type and subtype (SALSA, Heineman et al. 2023).

SALSA measures agreement on *where* annotators put each kind of edit: every token of a text
is labelled, per annotator, with the edit type (or subtype) of the edits covering it, or
"none"; agreement is then computed over tokens. Here, for each side (source = original,
target = simplification) separately:

- tokens are the whitespace tokens of the text (as for partial span F1); a token is covered
  by an edit when one of the edit's spans on that side overlaps it by a character or more;
- the units are the tokens of the documents with two or more annotators
  (:func:`data.document_annotators`); an annotator of the document who made no edit there
  labels every token "none";
- per label L (an edit type, or a subtype ``type/value``), each token is 1 for an annotator
  whose edits of L cover it, else 0: Fleiss' (1971) kappa and Krippendorff's (2011) nominal
  alpha over these binary token labels (Fleiss' category-specific kappa);
- ``overall``: the token's label is the edit type covering it, "none", or, where one
  annotator's edits of several types overlap, those types joined by "+" (a label of its
  own); Fleiss' kappa and nominal alpha over these labels.

The subtype of an edit is the value of its type's first *choice* field (SALSA's first
question: ``deletion_type`` good / trivial / bad deletion, ``substitution_info_change`` same
/ more / less / different information, ...; a Thresh nested answer ``{"val": ...}`` counts by
its ``val``). Edit types without a choice field have no subtypes. Intervals are the report's
document bootstrap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from annotator.core.overlap import token_range, whitespace_tokens

from . import coefficients as co
from .alpha import alpha_from_coincidence, coincidence_per_unit, delta_matrix
from .bootstrap import Bootstrap
from .data import Document, Edit
from .errors import UndefinedAgreement
from .fields import metric
from .units import answer_value

NONE = "none"
MASK_BITS = 62  # labels per int64 bit mask


def subtype_value(edit: Edit, field_name: str | None):
    """The edit's value of its subtype field (a Thresh ``{"val": x}`` answer gives x)."""
    if field_name is None:
        return None
    value = answer_value(edit.fields.get(field_name))
    if value in (None, "") or isinstance(value, (list, dict)):
        return None
    return value


def subtype_fields(schema) -> dict[str, str | None]:
    """Edit type -> the name of its first choice field (its subtype), or None."""
    return {et.name: next((f.name for f in et.fields if f.type == "choice"), None)
            for et in schema.edit_types}


def label_masks(documents: Sequence[Document], edits: Sequence[Edit],
                annotators: dict[str, list[str]], side: str,
                label_of: Callable[[Edit], str | None], labels: Sequence[str]):
    """Per document with 2+ annotators: (document index, names, masks (annotators x tokens),
    bit j of a mask set when that annotator's edits of ``labels[j]`` cover the token)."""
    bit = {label: np.int64(1) << j for j, label in enumerate(labels)}
    by_doc: dict[tuple[str, str], list[Edit]] = {}
    for e in edits:
        by_doc.setdefault((e.document_id, e.annotator), []).append(e)
    out = []
    for d, doc in enumerate(documents):
        names = annotators.get(doc.id, [])
        if len(names) < 2:
            continue
        tokens = whitespace_tokens(doc.source if side == "source" else doc.target)
        masks = np.zeros((len(names), len(tokens)), dtype=np.int64)
        for a, name in enumerate(names):
            for e in by_doc.get((doc.id, name), []):
                label = label_of(e)
                if label not in bit:
                    continue
                for s in e.spans:
                    if s.side == side:
                        lo, hi = token_range(tokens, s.start, s.end)
                        masks[a, lo:hi] |= bit[label]
        out.append((d, names, masks))
    return out


def _counts_metrics(per_token_codes: list[tuple[int, np.ndarray]], n_categories: int,
                    n_docs: int, boot: Bootstrap | None) -> dict:
    """Fleiss' kappa and nominal alpha over tokens; ``per_token_codes`` holds per document
    (index, codes annotators x tokens) with category codes 0..n_categories-1."""
    counts_by_doc = []
    for d, codes in per_token_codes:
        counts = np.zeros((codes.shape[1], n_categories))
        for row in codes:
            np.add.at(counts, (np.arange(codes.shape[1]), row), 1)
        counts_by_doc.append((d, counts))
    all_counts = (np.concatenate([c for _, c in counts_by_doc])
                  if counts_by_doc else np.zeros((0, n_categories)))
    fleiss_doc = np.zeros((n_docs, 2 + n_categories))
    coinc_doc = np.zeros((n_docs, n_categories, n_categories))
    for d, counts in counts_by_doc:
        p_i = np.nan_to_num(co.item_agreement(counts))
        fleiss_doc[d] += np.concatenate([[p_i.sum(), len(counts)], counts.sum(axis=0)])
        coinc_doc[d] += coincidence_per_unit(counts).sum(axis=0)

    nominal = delta_matrix("nominal", range(n_categories))

    def fleiss():
        if len(all_counts) == 0:
            raise UndefinedAgreement("no token of a document with two or more annotators")
        return co.fleiss_kappa(all_counts)

    def alpha():
        if len(all_counts) == 0:
            raise UndefinedAgreement("no token of a document with two or more annotators")
        value = float(alpha_from_coincidence(coinc_doc.sum(axis=0), delta=nominal))
        if np.isnan(value):
            raise UndefinedAgreement("every token has one and the same label: expected "
                                     "disagreement is 0, alpha undefined")
        return value

    return {
        "fleiss": metric(fleiss, boot, fleiss_doc,
                         lambda s: co.fleiss_batch(s[..., 0], s[..., 1], s[..., 2:]), "fleiss"),
        "alpha_nominal": metric(alpha, boot, coinc_doc,
                                lambda o: alpha_from_coincidence(o, delta=nominal),
                                "alpha_nominal"),
    }


def _binary(masked, j: int, n_docs: int, boot) -> dict:
    codes = [(d, ((masks >> j) & 1).astype(np.int64)) for d, _names, masks in masked]
    out = _counts_metrics(codes, 2, n_docs, boot)
    totals: dict[str, int] = {}
    for _d, names, masks in masked:
        for a, name in enumerate(names):
            totals[name] = totals.get(name, 0) + int(((masks[a] >> j) & 1).sum())
    out["labelled_tokens"] = dict(sorted(totals.items()))
    return out


def _per_label(documents, edits, annotators, side, label_of, labels, n_docs, boot) -> dict:
    out = {}
    for first in range(0, len(labels), MASK_BITS):  # one int64 mask holds MASK_BITS labels
        chunk = labels[first:first + MASK_BITS]
        masked = label_masks(documents, edits, annotators, side, label_of, chunk)
        out.update((label, _binary(masked, j, n_docs, boot)) for j, label in enumerate(chunk))
    return out


def _overall(masked, labels: Sequence[str], n_docs: int, boot) -> dict:
    present = sorted({int(v) for _d, _n, masks in masked for v in np.unique(masks)})
    names = [_mask_name(v, labels) for v in present]
    code = {v: i for i, v in enumerate(present)}
    codes = [(d, np.vectorize(code.get, otypes=[np.int64])(masks) if masks.size else
              masks.astype(np.int64)) for d, _n, masks in masked]
    return {"categories": names, **_counts_metrics(codes, max(len(present), 1), n_docs, boot)}


def _mask_name(mask: int, labels: Sequence[str]) -> str:
    chosen = [label for j, label in enumerate(labels) if mask >> j & 1]
    return "+".join(chosen) if chosen else NONE


def token_agreement(documents: Sequence[Document], edits: Sequence[Edit],
                    annotators: dict[str, list[str]], schema, side: str,
                    boot: Bootstrap | None = None) -> dict:
    """SALSA token-level agreement on one side: per edit type, per subtype, and overall."""
    types = [et.name for et in schema.edit_types if side in et.sides]
    if not types:
        return {"explanation": f"no edit type has spans on the {side} side"}
    n_docs = len(documents)
    out = {"types": _per_label(documents, edits, annotators, side, lambda e: e.edit_type,
                               types, n_docs, boot)}
    masked = label_masks(documents, edits, annotators, side, lambda e: e.edit_type,
                         types[:MASK_BITS])
    out["documents"] = len(masked)
    out["tokens"] = int(sum(m.shape[1] for _d, _n, m in masked))
    out["overall"] = (_overall(masked, types, n_docs, boot) if len(types) <= MASK_BITS else
                      {"explanation": f"{len(types)} edit types on the {side} side: the "
                       f"combined label is computed for up to {MASK_BITS}"})
    sub_field = subtype_fields(schema)
    subtypes = []
    for t in types:
        spec = schema.edit_type(t)
        field = next((f for f in spec.fields if f.name == sub_field.get(t)), None)
        if field is not None:
            subtypes += [f"{t}/{o.value}" for o in field.options]

    def subtype_of(e: Edit):
        value = subtype_value(e, sub_field.get(e.edit_type))
        return None if value is None else f"{e.edit_type}/{value}"

    out["subtypes"] = _per_label(documents, edits, annotators, side, subtype_of, subtypes,
                                 n_docs, boot)
    out["subtype_fields"] = {t: sub_field.get(t) for t in types}
    return out
