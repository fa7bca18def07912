"""Readable names and one-line explanations of the report's metrics.

The JSON keeps the raw key of each metric (``edit_fields.oversimplification.severity.
alpha_nominal``); the HTML report and the text summary show a name a lead can read
("Oversimplification, severity: Krippendorff's alpha (nominal)") with what it measures.
Field and edit-type names come from the schema's labels.
"""

from __future__ import annotations

COEFFICIENTS = {
    "alpha_nominal": ("Krippendorff's alpha (nominal)",
                      "chance-corrected agreement on unordered categories; 1 perfect, 0 chance"),
    "alpha_ordinal": ("Krippendorff's alpha (ordinal)",
                      "chance-corrected agreement; a near miss on the scale counts less"),
    "alpha_interval": ("Krippendorff's alpha (interval)",
                       "chance-corrected agreement; differences count by their size"),
    "alpha_masi": ("Krippendorff's alpha (MASI distance)",
                   "agreement on label sets; partly overlapping sets count partly"),
    "randolph": ("Randolph's free-marginal kappa",
                 "chance taken as 1/k, k the number of options the schema offers"),
    "fleiss": ("Fleiss' kappa",
               "chance taken from how often each value was used overall"),
    "percent": ("Percent agreement", "share of agreeing annotator pairs; not chance-corrected"),
    "kappa": ("Cohen's kappa", "two annotators, chance from each one's own use of values"),
}

# What each side's sentence alpha asks, per side: InfoLossQA's evidence spans are on the
# original; on the simplification the same question is asked of the spans marked there.
SENTENCE_ALPHA = {
    "binary": ("Sentence-level alpha (binary)",
               {"source": "per original sentence: does an annotator's evidence span touch "
                          "it? (InfoLossQA)",
                "target": "per simplification sentence: does an annotator's span on the "
                          "simplification touch it?"}),
    "masi": ("Sentence-level alpha (label sets, MASI)",
             {"source": "per original sentence: the set of edit types whose spans touch it",
              "target": "per simplification sentence: the set of edit types whose spans "
                        "touch it"}),
}

SIDE_NAMES = {"source": "original", "target": "simplification"}


def _labels(schema) -> tuple[dict, dict]:
    if schema is None:
        return {}, {}
    types = {et.name: et.label or et.name for et in schema.edit_types}
    fields = {(et.name, f.name): f.label or f.name for et in schema.edit_types
              for f in et.fields}
    fields.update({(None, f.name): f.label or f.name for f in schema.ratings})
    return types, fields


def describe(path: str, schema=None) -> dict:
    """{"title", "about"} of a metric key of the report (``schema``, when given, supplies
    the labels of edit types and fields)."""
    types, fields = _labels(schema)
    parts = path.split(".")
    coefficient = parts[-1]
    name, about = COEFFICIENTS.get(coefficient, (coefficient, ""))
    if parts[0] == "fields":
        field = parts[1].split("@")[0]
        return {"title": f"{fields.get((None, field), field)}: {name}", "about": about}
    if parts[0] == "edit_fields" and len(parts) >= 4:
        edit_type, field = parts[1], parts[2]
        subject = f"{types.get(edit_type, edit_type)}, {fields.get((edit_type, field), field)}"
        return {"title": f"{subject}: {name}", "about": about}
    if parts[0] == "spans" and "sentence_alpha" in parts:
        title, about = SENTENCE_ALPHA.get(coefficient, (coefficient, {}))
        return {"title": f"{title}, {SIDE_NAMES.get(parts[1], parts[1])}",
                "about": about.get(parts[1], "")}
    if parts[0] == "spans" and len(parts) >= 4:  # spans.SIDE.KIND_f1.macro
        kind = parts[2].replace("_f1", "")
        what = ("same start and end" if kind == "exact"
                else "token overlap (IoU) of at least the threshold")
        return {"title": f"Span F1 ({kind}), {SIDE_NAMES.get(parts[1], parts[1])}, macro",
                "about": f"spans of two annotators match on {what}; mean over edit types"}
    if parts[0] == "tokens" and len(parts) >= 5:  # tokens.SIDE.types.LABEL.COEFF
        label = parts[3]
        edit_type, _, sub = label.partition("/")
        subject = types.get(edit_type, edit_type) + (f" ({sub})" if sub else "")
        return {"title": f"Token-level {name}: {subject}, {SIDE_NAMES.get(parts[1], parts[1])}",
                "about": f"SALSA: each token labelled by whether an annotator's {subject} "
                         "edits cover it"}
    return {"title": path, "about": about}


def summary_rows(summary: dict) -> list[dict]:
    """The rows of a live agreement summary (``agreement.store.live_summary``) for a page:
    each headline coefficient and each macro span F1 under its readable name (``title``,
    ``about``; the raw key stays in ``metric``), defined values first and the rows that are
    n/a (with their reason in ``explanation``) last, each group in report order."""
    rows = [{"metric": r["metric"], "title": r.get("title") or r["metric"],
             "about": r.get("about") or "", "value": r.get("value"), "ci": r.get("ci"),
             "band": r.get("band"), "explanation": r.get("explanation")}
            for r in summary.get("rows", [])]
    for side, kinds in summary.get("spans", {}).items():
        for kind, m in kinds.items():
            key = f"spans.{side}.{kind}_f1.macro"
            rows.append({"metric": key, **describe(key), "value": m.get("value"),
                         "ci": m.get("ci"), "band": None, "explanation": m.get("explanation")})
    return sorted(rows, key=lambda r: r["value"] is None)
