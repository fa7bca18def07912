"""Results of an evaluation project, for the results page, exports and releases.

``project_results(session, project)`` returns one JSON-ready dict whose keys depend on the
mode (see docs/evaluation.md); ``csv_rows`` flattens it to (table, key, value) rows.
Every rating stored by an original annotator counts (third annotators' tie-break labels
do not); unrated values are missing, not negative.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.agreement.coefficients import category_counts, randolph_kappa
from annotator.agreement.errors import UndefinedAgreement
from annotator.annotate.modes import project_mode
from annotator.evaluation import plaba as plaba_stats
from annotator.evaluation import plainfact as plainfact_stats
from annotator.evaluation import quality as quality_stats
from annotator.evaluation import recall as recall_stats
from annotator.evaluation.store import original_ratings, qa_items, rating_options, recall_pairs
from annotator.evaluation.tiebreak import disputed_keys
from annotator.models import Document, EvalQAItem, Project


class NotAnEvaluationProject(ValueError):
    pass


def project_results(session: Session, project: Project) -> dict:
    mode = project_mode(project)
    if not mode.has_results:
        raise NotAnEvaluationProject(f"project {project.name!r} uses schema "
                                     f"{project.schema_name!r} (mode {mode.name}), which has "
                                     "no evaluation results")
    return {"project": project.name, "schema": project.schema_name, "mode": mode.name,
            **mode.hook("results")(session, project)}


def _invalid(session, project) -> list[dict]:
    return [{"id": i.external_id, "document_id": i.document.external_id, "model": i.model,
             "problem": i.problem} for i in qa_items(session, project, valid=False)]


def qa_quality(session: Session, project: Project) -> dict:
    items = {i.id: i for i in qa_items(session, project, origin="model")}
    ratings = []
    for a, r in original_ratings(session, project, "qa"):
        item = items.get(int(r.item)) if r.item.isdigit() else None
        if item is not None and r.value not in (None, ""):
            ratings.append(quality_stats.QARating(item.id, item.model, item.section,
                                                  a.user.username, r.field, r.value))
    options = rating_options(project, "qa")
    counts = {}
    for i in items.values():
        entry = counts.setdefault(i.model, {"imported": 0, "invalid": 0, "sampled": 0})
        entry["imported"] += 1
        entry["invalid"] += not i.valid
        entry["sampled"] += i.sampled
    return {"items": dict(sorted(counts.items())),
            "sample": (project.settings or {}).get("evaluation", {}).get("sample"),
            "agreement": quality_stats.agreement(ratings, options),
            "results": quality_stats.results(ratings, options),
            "invalid": _invalid(session, project)}


def qa_recall(session: Session, project: Project) -> dict:
    pairs = recall_pairs(session, project, candidates_only=False)
    by_key = {recall_stats_key(p.id): p for p in pairs}
    labels: dict[int, list[str]] = {}
    rater_labels: dict[int, list] = {}
    for a, r in original_ratings(session, project, "qa"):
        pair = by_key.get(r.item)
        if pair is not None and r.field == "recall" and r.value:
            labels.setdefault(pair.id, []).append(r.value)
    pair_labels = {(p.reference_id, p.prediction_id):
                   recall_stats.consensus(labels.get(p.id, [])) for p in pairs if p.candidate}
    references = [i.id for i in qa_items(session, project, origin="reference", valid=True)]
    model_of = {i.id: i.model for i in qa_items(session, project, origin="model", valid=True)}
    for pid, values in labels.items():
        rater_labels[pid] = values
    try:
        kappa = randolph_kappa(category_counts(list(rater_labels.values()),
                                               list(recall_stats.LABELS)), k=3)
    except UndefinedAgreement:
        kappa = None
    aggregation = recall_stats.aggregate(references, pair_labels, model_of)
    refs = {i.id: i for i in qa_items(session, project, origin="reference")}
    aggregation["per_reference"] = {
        refs[r].external_id or str(r): status
        for r, status in aggregation["per_reference"].items()}
    rated = [(p.similarity, recall_stats.consensus(labels[p.id])) for p in pairs
             if p.id in labels]
    n_candidates = sum(p.candidate for p in pairs)
    return {"mining": {"threshold": ((project.settings or {}).get("evaluation", {})
                                     .get("recall", {}).get("threshold")),
                       "pairs": len(pairs), "candidates": n_candidates,
                       "saved": recall_stats.saved_share(len(pairs), n_candidates)},
            "agreement": {"recall": {"kappa": kappa, "k": 3, "items": sum(
                len(v) >= 2 for v in rater_labels.values())}},
            "recall": aggregation,
            "threshold_table": recall_stats.threshold_table(rated),
            "invalid": _invalid(session, project)}


def recall_stats_key(pair_id: int) -> str:
    return f"p{pair_id}"


def _documents(session, project) -> dict[int, Document]:
    return {d.id: d for d in session.scalars(select(Document).where(
        Document.project_id == project.id))}


def plaba(session: Session, project: Project) -> dict:
    axes = list(rating_options(project, "sentence"))
    docs = _documents(session, project)
    ratings = []
    for a, r in original_ratings(session, project, "sentence"):
        if r.field in axes and r.value not in (None, "") and r.item.isdigit():
            doc = docs[a.document_id]
            ratings.append(plaba_stats.AxisRating(
                doc.external_id, str((doc.meta or {}).get("system", "unknown")), int(r.item),
                a.user.username, r.field, float(r.value)))
    return {"axes": axes, "scores": plaba_stats.scores(ratings, axes),
            "agreement": plaba_stats.agreement(ratings, axes),
            "correlations": plaba_stats.correlations(ratings, axes)}


def plainfact(session: Session, project: Project) -> dict:
    docs = _documents(session, project)
    ratings = [plainfact_stats.TypeRating(docs[a.document_id].external_id, int(r.item),
                                          a.user.username, r.field, r.value)
               for a, r in original_ratings(session, project, "sentence")
               if r.item.isdigit() and r.value not in (None, "", [])]
    distribution: dict[str, dict[str, int]] = {}
    for r in ratings:
        if r.field in ("type", "role"):
            field = distribution.setdefault(r.field, {})
            field[str(r.value)] = field.get(str(r.value), 0) + 1
    disputed = {docs[d].external_id: keys for d, keys in disputed_keys(session, project).items()}
    return {"kappa": plainfact_stats.kappas(ratings), "distribution": distribution,
            "disagreements": {k: v for k, v in sorted(disputed.items()) if v}}


def csv_rows(results: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Flatten nested results to (dotted path, value) rows (lists indexed)."""
    rows = []
    if isinstance(results, dict):
        for key in results:
            rows += csv_rows(results[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(results, list):
        for i, value in enumerate(results):
            rows += csv_rows(value, f"{prefix}[{i}]")
    else:
        rows.append((prefix, results))
    return rows


__all__ = ["project_results", "csv_rows", "NotAnEvaluationProject", "EvalQAItem"]
