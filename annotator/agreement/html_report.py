"""Render an agreement report (the dict of :func:`build_report`) as one self-contained HTML
file: inline CSS, plots as data-URI PNGs (matplotlib, Agg canvas), no external URL at all.

Every piece of text from the report is escaped with :func:`html.escape`: annotator names,
labels and headings come from users and model output. Bands follow Landis & Koch (1977) for
kappas and Artstein & Poesio (2008) for alpha.
"""

from __future__ import annotations

import base64
import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from annotator.core.vocabulary import SIDES

from .html_cells import _coefficient, _e, _metric_cells, _named, _num, _prehighlighters, _table
from .html_tokens import token_section

# Every rule sits under .agreement-report, so the same style serves the standalone file
# and the report shown inside the app's page (where the app's own style surrounds it).
CSS = """
.agreement-report{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,
 sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
.agreement-report h1{font-size:1.7rem;margin-bottom:.2rem}.agreement-report h2{font-size:1.3rem;
 margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.agreement-report h3{font-size:1.05rem;margin-top:1.4rem}
.agreement-report table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.92rem}
.agreement-report th,.agreement-report td{border:1px solid #ddd;padding:.25rem .55rem;
 text-align:left;vertical-align:top}.agreement-report th{background:#f4f4f4}
.agreement-report td.num{text-align:right;font-variant-numeric:tabular-nums}
.agreement-report .muted{color:#666;font-size:.88rem}.agreement-report .warn{color:#8a4b00}
.agreement-report img{max-width:100%;height:auto;display:block;margin:.5rem 0}
.agreement-report .band-good,.agreement-report .band-almost{background:#e3f4e3}
.agreement-report .band-tentative,.agreement-report .band-substantial{background:#eef7d9}
.agreement-report .band-moderate{background:#fff6d6}
.agreement-report .band-low,.agreement-report .band-fair,.agreement-report .band-slight,
.agreement-report .band-poor{background:#fde4e1}
"""

def _png(fig: Figure) -> str:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="plot" src="data:image/png;base64,{data}">'


def _plain(text) -> str:
    """Text shown as is in a plot: '$' would start matplotlib math (a user name like
    '$x^$' crashes the renderer), so every '$' is escaped."""
    return str(text).replace("$", r"\$")


def _bar(labels, series: dict[str, list[float]], title: str, ylabel: str) -> str:
    fig = Figure(figsize=(7.5, 3.0))
    ax = fig.add_subplot()
    n = max(1, len(series))
    width = 0.8 / n
    for i, (name, values) in enumerate(series.items()):
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, [0 if v is None else v for v in values], width=width, label=_plain(name))
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([_plain(x) for x in labels], rotation=30 if len(labels) > 6 else 0,
                       ha="right" if len(labels) > 6 else "center", fontsize=8)
    ax.set_title(_plain(title), fontsize=10)
    ax.set_ylabel(_plain(ylabel), fontsize=9)
    if n > 1:
        ax.legend(fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def _as_annotator(section: dict) -> str:
    """The stored deletion / oversimplification suggestions scored like one more annotator
    (issue #14): per kind beside the annotators' agreement with each other, then per
    annotator, with a bar chart of the two F1 values for each annotator."""
    rows = []
    for kind, e in section["overall"].items():
        people, machine = e["annotators"], e["pre-highlights"]
        rows.append(f"<tr><td>{_e(kind)}</td>"
                    + "".join(f"<td class='num'>{_num(people[k])}</td>"
                              for k in ("precision", "recall", "f1"))
                    + "".join(f"<td class='num'>{_num(machine[k])}</td>"
                              for k in ("precision", "recall", "f1"))
                    + f"<td class='num'>{_num(e['ratio'])}</td></tr>")
    interval = section.get("ratio_interval")
    spread = (f"; 95% interval of the ratio of both kinds (document bootstrap): "
              f"{_num(interval[0])}–{_num(interval[1])}" if interval else "")
    folds = ", ".join(_num(f["ratio"]) for f in section.get("folds", []))
    out = [f"<p class='muted'>Measure: {_e(section['measure'])}; {section['documents']} "
           f"documents with two or more annotators{spread}; ratio = pre-highlights F1 / "
           "annotators' F1"
           + (f"; per fold of documents: {folds}" if folds else "") + ".</p>",
           _table(["kind", *(f"{who} {m}" for who in ("annotators", "pre-highlights")
                             for m in ("P", "R", "F1")), "ratio"], rows)]
    per = section.get("per_annotator") or {}
    if per:
        names = list(per)
        out.append(_bar(names, {
            "pre-highlights": [per[n]["pre-highlights"]["f1"] for n in names],
            "other annotators": [per[n]["other annotators"]["f1"] for n in names]},
            "F1 with each annotator", "F1"))
    return "".join(out)


def _summary(report) -> str:
    rows = []  # defined coefficients first, the n/a ones (with their reason) after them
    for r in sorted(report.get("interpretation", []), key=lambda r: r["value"] is None):
        m = {"value": r["value"], "explanation": r.get("explanation"),
             "interpretation": {"band": r.get("band")}, "ci": r.get("ci")}
        rows.append(f"<tr>{_named(r.get('title', r['metric']), r['metric'], r.get('about'))}"
                    f"{_metric_cells(m)}<td>{_e(r.get('scale'))}</td></tr>")
    return _table(["coefficient", "value", "95% CI", "band", "scale"], rows) + (
        '<p class="muted">Bands: Landis &amp; Koch (1977) for kappas (slight &le; 0.20 &lt; fair '
        "&le; 0.40 &lt; moderate &le; 0.60 &lt; substantial &le; 0.80 &lt; almost perfect); "
        "Artstein &amp; Poesio (2008) for alpha (&ge; 0.8 good, 0.667–0.8 tentative, below "
        "low).</p>")


def _field_section(key: str, entry: dict) -> str:
    heading = (f"<h3>{_e(entry.get('label') or key)} <code class='muted'>{_e(key)}</code>"
               "</h3>")
    m = entry.get("metrics")
    if not m:
        return f"{heading}<p class='muted'>{_e(entry.get('explanation'))}</p>"
    out = [f"{heading}<p class='muted'>{_e(entry.get('type'))} field, "
           f"{_num(m.get('units'))} units ({_num(m.get('pairable_units'))} with 2+ ratings)"
           f"{', k = ' + _num(m.get('k')) if m.get('k') else ''}</p>"]
    rows = []
    for name in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "alpha_masi", "randolph",
                 "fleiss", "percent"):
        if name in m:
            rows.append(f"<tr>{_coefficient(name)}{_metric_cells(m[name])}</tr>")
    weights = {"kappa": "", "kappa_linear": ", linear weights", "kappa_quadratic":
               ", quadratic weights"}
    for pair, c in ((m.get("cohen") or {}).get("pairs") or {}).items():
        for kind, how in weights.items():
            if kind in c:
                title = f"Cohen's kappa{how}, {pair}"
                rows.append(f"<tr>{_named(title, kind)}{_metric_cells(c[kind])}</tr>")
    out.append(_table(["coefficient", "value", "95% CI", "band"], rows))
    maj = m.get("majority")
    if maj and maj.get("explanation") is None:
        out.append(
            f"<p>Majority statistics (Devaraj et al. 2022): majority label on "
            f"{_num(maj['with_majority'])} of {_num(maj['items'])} items; among "
            f"{_num(maj['nonzero_items'])} items with a non-{_e(maj['zero_label'])} majority, "
            f"{_num(maj['specific_majority_among_nonzero'])} agree on one specific label.</p>"
        )
    for pair, c in ((m.get("cohen") or {}).get("pairs") or {}).items():
        cats = m.get("categories", [])
        head = [f"{c['rows']} \\ {c['columns']}"] + [str(x) for x in cats]
        rows = [f"<tr><th>{_e(cat)}</th>" + "".join(f'<td class="num">{v}</td>' for v in row)
                + "</tr>" for cat, row in zip(cats, c["confusion"])]
        out.append(f"<p class='muted'>Confusion matrix {_e(pair)} ({c['items']} items)</p>"
                   + _table(head, rows))
    return "".join(out)


def _spans(report) -> str:
    out = []
    for side, entry in report.get("spans", {}).items():
        out.append(f"<h3>{_e(side)} side</h3>")
        if not entry.get("labels"):
            out.append(f"<p class='muted'>{_e(entry.get('explanation'))}</p>")
            continue
        rows = []
        for label in entry["labels"] + ["macro"]:
            cells = []
            for kind in ("exact", "partial"):
                m = entry[kind]["macro"] if label == "macro" else entry[kind]["per_label"][label]
                cells.append(_metric_cells(m).rsplit("<td", 1)[0])
            rows.append(f"<tr><td>{_e(label)}</td>{''.join(cells)}</tr>")
        out.append(_table(["label", "exact F1", "95% CI", "partial F1", "95% CI"], rows))
        rows = [f"<tr><td>{_e(k)}</td>{_metric_cells(m)}</tr>"
                for k, m in entry.get("sentence_alpha", {}).items()]
        out.append(_table(["sentence-level alpha", "value", "95% CI", "band"], rows))
    return "".join(out)


def _annotators(report) -> str:
    ann = report.get("annotators", {})
    if not ann:
        return "<p class='muted'>No annotators.</p>"
    types = report["schema"]["edit_types"]
    head = ["annotator", "documents", "edits", "edits/doc"] + [f"share {t}" for t in types] + [
        "question tok", "answer tok", "evidence tok", "rationale tok", "median s/doc"]
    rows = []
    for name, a in ann.items():
        cells = [a["documents"], a["edits"], a["edits_per_document"]]
        cells += [a["edit_type_share"].get(t) for t in types]
        cells += [a["mean_tokens"][k] for k in ("question", "answer", "evidence", "rationale")]
        cells.append(a["median_seconds_per_document"])
        rows.append(f"<tr><td>{_e(name)}</td>"
                    + "".join(f'<td class="num">{_num(c, 2)}</td>' for c in cells) + "</tr>")
    plot = _bar(list(ann), {"edits per document": [a["edits_per_document"] for a in ann.values()]},
                "Edits per document by annotator", "edits")
    return _table(head, rows) + plot


def _plots(report) -> str:
    out = []
    sec = report.get("sections", {})
    if sec.get("counts"):
        out.append("<h3>Edits by abstract section</h3>")
        out.append(_bar(sec["order"], {"edits": [sec["counts"][s] for s in sec["order"]]},
                        "Edits per section of the original", "edits"))
    pos = report.get("positions", {})
    if pos.get("bins"):
        out.append("<h3>Edits by sentence position</h3>")
        out.append(_bar(pos["bins"], {side: pos[side]["counts"] for side in SIDES},
                        "Edits per relative sentence position", "edits"))
    qs = report.get("question_similarity", {})
    out.append("<h3>Question similarity vs evidence overlap</h3>")
    groups = qs.get("groups", {})
    if any(groups.values()):
        labels = [f"{g} (n={v['n'] if v else 0})" for g, v in groups.items()]
        out.append(
            _bar(
                labels,
                {"mean cosine": [v["mean"] if v else None for v in groups.values()]},
                "Cosine similarity of questions by evidence overlap",
                "cosine",
            )
        )
    else:
        out.append(f"<p class='muted'>{_e(qs.get('explanation'))}</p>")
    return "".join(out)


def _aggregation(report) -> str:
    rows = []
    for field, levels in report.get("aggregation", {}).items():
        for level in ("sentence", "document", "system"):
            entry = levels.get(level, {})
            if "units" not in entry:
                rows.append(f"<tr><td>{_e(field)}</td><td>{level}</td><td colspan='5' "
                            f"class='muted'>{_e(entry.get('explanation'))}</td></tr>")
                continue
            rows.append(f"<tr><td>{_e(field)}</td><td>{level}</td><td class='num'>{entry['units']}"
                        f"</td><td class='num'>{_num(entry['mean_0_100'], 1)}</td>"
                        f"{_metric_cells(entry['alpha_interval'])}</tr>")
    if not rows:
        return "<p class='muted'>No ordinal rating field.</p>"
    return _table(
        ["field", "level", "units", "mean (0-100)", "interval alpha", "95% CI", "band"], rows
    )


def render_html(report: dict) -> str:
    """One self-contained HTML page for ``report``."""
    title = _e(report["schema"]["title"])
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>Agreement report: {title}</title></head><body>"
            f"{render_fragment(report)}</body></html>")


def render_fragment(report: dict) -> str:
    """The report's content in one ``<div class="agreement-report">``, after its style
    (:data:`CSS`), for a page that brings its own head: the app's agreement page."""
    s, c = report["schema"], report["counts"]
    parts = [
        f"<style>{CSS}</style><div class='agreement-report'>",
        f"<h1>Agreement report</h1><p class='muted'>{_e(s['title'])} ({_e(s['name'])}); "
        f"{c['documents']} documents, {c['annotators']} annotators, {c['edits']} edits, "
        f"{c['ratings']} ratings; {c['documents_with_2plus_annotators']} documents with two or "
        f"more annotators. 95% CIs: document bootstrap, {report['settings']['bootstrap']} "
        f"resamples, seed {report['settings']['seed']}.</p>",
    ]
    parts += [f"<p class='warn'>{_e(w)}</p>" for w in report.get("warnings", [])]
    parts += ["<h2>Summary</h2>", _summary(report), "<h2>Spans</h2>", _spans(report),
              "<h2>Token-level agreement per edit type</h2>", token_section(report),
              "<h2>Rating fields</h2>"]
    parts += [_field_section(k, v) for k, v in report.get("fields", {}).items()] or [
        "<p class='muted'>The schema has no rating fields.</p>"]
    parts.append("<h2>Edit fields (matched edit pairs)</h2>")
    parts += [_field_section(k, v) for k, v in report.get("edit_fields", {}).items()] or [
        "<p class='muted'>No categorical edit field.</p>"]
    if report.get("prehighlighters"):
        parts += ["<h2>Pre-highlighters</h2>", _prehighlighters(report)]
    if (report.get("prehighlights_as_annotator") or {}).get("documents"):
        parts += ["<h2>Pre-highlights as an annotator</h2>",
                  _as_annotator(report["prehighlights_as_annotator"])]
    parts += ["<h2>Aggregation levels</h2>", _aggregation(report),
              "<h2>Annotators</h2>", _annotators(report), "<h2>Distributions</h2>", _plots(report)]
    cites = "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in report.get("citations", {}).items())
    parts.append(f"<h2>References</h2><ul class='muted'>{cites}</ul></div>")
    return "".join(parts)
