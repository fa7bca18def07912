"""Evaluation commands: `annotator eval import-qa|import-references|sample|assign|metrics|
mine-recall|calibrate|route` and `annotator results PROJECT --format csv|json`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from annotator.commands import SEED, fail, open_database
from annotator.study.projects import ProjectError, get_project

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


def _project(session, name):
    try:
        return get_project(session, name)
    except ProjectError as exc:
        fail(str(exc))


@click.group("eval")
def eval_group():
    """Evaluation modes: QA quality, QA recall, PLABA, PlainFact."""


@eval_group.command("import-qa")
@click.argument("project_name", metavar="PROJECT")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", default=None, help="Model name for records without 'model'.")
def import_qa(project_name, path, model):
    """Model-generated QA pairs (InfoLossQA-shaped JSON array or JSONL). Records whose
    spans do not occur in the texts are stored as invalid and listed."""
    from annotator.core.records import IngestError
    from annotator.evaluation.qa_import import import_predictions
    from annotator.operations import work

    with work.session(open_database()) as session:
        try:
            report = import_predictions(session, _project(session, project_name), path,
                                        model=model)
        except IngestError as exc:
            click.echo(str(exc), err=True)
            raise SystemExit(2)
    click.echo(f"stored {report.stored} QA pair(s): " + ", ".join(
        f"{m} {n}" for m, n in sorted(report.models.items())))
    for bad in report.invalid:
        click.echo(f"  invalid {bad['file']}:{bad['line']} ({bad['model']}): {bad['reason']}")


@eval_group.command("import-references")
@click.argument("project_name", metavar="PROJECT")
@click.argument("gold", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", default="reference", show_default=True,
              help="Name the reference QAs are stored under (their model name).")
def import_refs(project_name, gold, name):
    """Reference QAs from a release's gold.jsonl."""
    from annotator.core.records import IngestError
    from annotator.evaluation.qa_import import import_references
    from annotator.operations import work

    with work.session(open_database()) as session:
        try:
            report = import_references(session, _project(session, project_name), gold,
                                       name=name)
        except IngestError as exc:
            click.echo(str(exc), err=True)
            raise SystemExit(2)
    click.echo(f"stored {report.stored} reference QA pair(s)")


@eval_group.command("sample")
@click.argument("project_name", metavar="PROJECT")
@click.option("--per-model", "per_model", type=click.IntRange(1), required=True,
              help="Valid QA pairs to sample from each model.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the random sample (the same seed draws the same pairs).")
def sample(project_name, per_model, seed):
    """Stratified sample of N valid QA pairs per model (section shares kept)."""
    from annotator.evaluation.store import draw_sample
    from annotator.operations import work

    with work.session(open_database()) as session:
        chosen = draw_sample(session, _project(session, project_name), per_model, seed)
    click.echo(f"sampled {len(chosen)} QA pair(s)")


@eval_group.command("assign")
@click.argument("project_name", metavar="PROJECT")
@click.option("--annotators", default=None, help="Comma-separated usernames.")
@click.option("--per-item", "per_item", type=click.IntRange(1), default=2, show_default=True,
              help="Raters per document.")
def assign(project_name, annotators, per_item):
    """Give each document with items to rate to N raters (balanced by items)."""
    from annotator.annotate.assignment import AssignmentError
    from annotator.evaluation.store import assign_items
    from annotator.operations import work

    with work.session(open_database()) as session:
        try:
            created = assign_items(session, _project(session, project_name),
                                   annotators.split(",") if annotators else None, per_item)
        except AssignmentError as exc:
            fail(str(exc))
    click.echo(f"created {created} assignment(s)")


@eval_group.command("mine-recall")
@click.argument("project_name", metavar="PROJECT")
@click.option("--threshold", type=float, default=0.65, show_default=True,
              help="Cosine similarity above which a pair becomes a candidate.")
@click.option("--hashing", is_flag=True, help="Word-hashing embeddings instead of the model "
              "(quick checks only).")
def mine_recall(project_name, threshold, hashing):
    """Candidate (reference, model QA) pairs with cosine similarity above T."""
    from annotator.align.embeddings import HashingEmbedder, default_embedder
    from annotator.evaluation.store import mine_recall as mine
    from annotator.operations import work

    embedder = HashingEmbedder() if hashing else default_embedder()
    with work.session(open_database()) as session:
        summary = mine(session, _project(session, project_name), embedder, threshold)
    click.echo(f"{summary['candidates']} of {summary['pairs']} pairs above {threshold}: "
               f"{(summary['saved'] or 0) * 100:.1f}% of comparisons saved")


@eval_group.command("calibrate")
@click.argument("project_name", metavar="PROJECT")
@click.option("--bins", type=click.IntRange(1), default=5, show_default=True,
              help="Equal-width similarity bins between the lowest and highest.")
@click.option("--per-bin", "per_bin", type=click.IntRange(1), default=4, show_default=True,
              help="Pairs drawn from each bin.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the random draw (the same seed draws the same pairs).")
def calibrate(project_name, bins, per_bin, seed):
    """Print a calibration sample of pairs spread evenly over similarity bins (JSON lines);
    mark them as candidates so raters compare them."""
    from annotator.evaluation.recall import calibration_sample
    from annotator.evaluation.store import recall_pairs
    from annotator.models import EvalRecallPair
    from annotator.operations import work

    with work.session(open_database()) as session:
        project = _project(session, project_name)
        pairs = recall_pairs(session, project, candidates_only=False)
        chosen = calibration_sample([(p.id, p.similarity) for p in pairs], bins, per_bin, seed)
        for entry in chosen:
            session.get(EvalRecallPair, entry["id"]).candidate = True
            click.echo(json.dumps(entry))


@eval_group.command("route")
@click.argument("project_name", metavar="PROJECT")
@click.option("--annotator", default=None, help="The third annotator (default: least loaded).")
def route(project_name, annotator):
    """PlainFact: send disagreements of finished documents to a third annotator."""
    from annotator.adjudication.store import AdjudicationError
    from annotator.evaluation.tiebreak import route_disagreements
    from annotator.operations import work

    with work.session(open_database()) as session:
        try:
            routed = route_disagreements(session, _project(session, project_name), None,
                                         annotator)
        except AdjudicationError as exc:
            fail(str(exc))
    click.echo(f"routed {sum(routed.values())} item(s) in {len(routed)} document(s)")


@click.command("results")
@click.argument("project_name", metavar="PROJECT")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json",
              show_default=True, help="One JSON object, or CSV rows of key and value.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of the standard output.")
def results(project_name, fmt, out):
    """Results of an evaluation project (agreement and result tables) as JSON or CSV."""
    from annotator.evaluation.export import results_csv, results_json
    from annotator.evaluation.results import NotAnEvaluationProject, project_results
    from annotator.operations import work

    with work.session(open_database()) as session:
        try:
            data = project_results(session, _project(session, project_name))
        except NotAnEvaluationProject as exc:
            fail(str(exc))
    text = results_json(data) if fmt == "json" else results_csv(data)
    if out:
        out.write_text(text, encoding="utf-8")
        click.echo(f"written to {out}")
    else:
        click.echo(text, nl=False)


@eval_group.command("metrics")
@click.argument("human", type=click.Path(exists=True, path_type=Path))
@click.argument("metrics_table", metavar="METRICS",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--on", "on", required=True, help="Key column(s) joining the tables: COL[,COL].")
@click.option("--human", "human_column", required=True,
              help="The human score's column in HUMAN; for a release (folder, zip or "
                   "gold.jsonl) a score: count:TYPE, sum:FIELD, mean:FIELD, plaba:AXIS or "
                   "label:FIELD=VALUE.")
@click.option("--unit", type=click.Choice(["document", "sentence"]), default="document",
              show_default=True, help="What a release's score is computed for.")
@click.option("--rater", default=None,
              help="Rater column: HUMAN holds one row per item and rater; items average them.")
@click.option("--z-normalise", "z_normalise", is_flag=True,
              help="Standardise each rater's scores first (mean 0, population sd 1).")
@click.option("--where", "where", multiple=True,
              help="COL=VALUE: keep only matching rows (in each table that has COL).")
@click.option("--metrics", "metric_names", default=None,
              help="Metric columns a,b,c (default: every numeric column that is not a key).")
@click.option("--level", type=click.Choice(["item", "system"]), default="item",
              show_default=True, help="Correlate per item, or per system (system means).")
@click.option("--system", default=None, help="System column (needed for --level system).")
@click.option("--bootstrap", "resamples", type=click.IntRange(0, 100_000), default=1000,
              show_default=True, help="Bootstrap resamples for the intervals (0: none).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the bootstrap resamples (the same seed, the same intervals).")
@click.option("--ci", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Coverage of the bootstrap intervals.")
@click.option("--tau-like-threshold", "tau_like_threshold", type=float, default=None,
              help="WMT tau-like over same-item pairs whose human scores differ by more.")
@click.option("--item", "item_column", default=None,
              help="Column naming the item that pairs share (default: first --on column "
                   "that is not --system).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write the report with its plots as one HTML file.")
def metrics_command(human, metrics_table, on, human_column, unit, rater, z_normalise, where,
                    metric_names, level, system, resamples, seed, ci, tau_like_threshold,
                    item_column, as_json, html_path):
    """Judge automatic metrics against human scores: Pearson, Spearman, Kendall tau-b/c
    with bootstrap intervals, AUC-ROC when the human score is binary, WMT tau-like, and
    pairwise comparisons (Williams, paired bootstrap; Holm-adjusted)."""
    from annotator.core.problems import IngestError
    from annotator.meta_evaluation import release_scores
    from annotator.meta_evaluation.report import Options, evaluate, text_table
    from annotator.meta_evaluation.tables import filtered, join, parse_where, read_table

    keys = [c.strip() for c in on.split(",") if c.strip()]
    try:
        conditions = parse_where(list(where))
    except ValueError as exc:
        fail(str(exc), 2)
    if level == "system" and not system:
        fail("--level system needs --system COLUMN", 2)
    if tau_like_threshold is not None:
        item_column = item_column or next((k for k in keys if k != system), None)
        if item_column not in keys:
            fail(f"--item {item_column!r} must be one of the --on columns", 2)
    from_release = release_scores.is_release(human)
    if from_release and rater:
        fail("--rater is for human tables; a release holds one gold score per item", 2)
    try:
        if from_release:
            first = release_scores.release_table(human, human_column, unit)
            human_column = release_scores.SCORE_COLUMN
        else:
            first = read_table(human)
        tables = [first, read_table(metrics_table)]
        unknown = [c for c, _ in conditions if all(c not in t.columns for t in tables)]
        if unknown:
            fail(f"--where {unknown[0]!r}: neither table has that column", 2)
        joined = join(*(filtered(t, conditions) for t in tables), keys, human_column,
                      rater=rater, z_normalise=z_normalise, system=system,
                      not_metrics=tuple(c for c, _ in conditions),
                      metric_names=[m.strip() for m in metric_names.split(",") if m.strip()]
                      if metric_names else None)
    except (IngestError, ValueError) as exc:
        fail(str(exc), 2)
    notes = [note for table in tables for note in table.notes]
    if len(joined.keys) < 2:
        fail(f"only {len(joined.keys)} item(s) are in both tables: nothing to correlate", 2)
    report = evaluate(joined, Options(level=level, resamples=resamples, seed=seed, ci=ci,
                                      tau_like_threshold=tau_like_threshold,
                                      item_column=item_column,
                                      processes=os.cpu_count() or 1))
    report["notes"] = notes
    if html_path is not None:
        from annotator.meta_evaluation.html_report import render
        from annotator.meta_evaluation.report import level_values

        _, human_values, metric_values = level_values(joined, level)
        html_path.write_text(render(report, human_values, metric_values), encoding="utf-8")
    click.echo(json.dumps(report, indent=2) if as_json else "\n".join(
        [text_table(report), *notes] + ([f"report written to {html_path}"] if html_path
                                        else [])))


@eval_group.command("detectors")
@click.argument("release", type=click.Path(exists=True, path_type=Path))
@click.argument("detections", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--map", "kind_map", multiple=True,
              help="KIND=TYPE: the detector's kind KIND is the gold edit type TYPE.")
@click.option("--min-score", "min_score", type=float, default=None,
              help="Span level: keep detected spans scoring at least this.")
@click.option("--threshold", type=float, default=0.5, show_default=True,
              help="Document level: a document is flagged when its score reaches this.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def detectors_command(release, detections, kind_map, min_score, threshold, as_json):
    """Judge a detector (pre-highlights from `annotator align`, or any tool's spans and
    document scores) against a release's gold: span F1 exact and partial per kind and side,
    document-level precision, recall, F1 and AUC-ROC per kind."""
    from annotator.core.problems import IngestError
    from annotator.meta_evaluation.detectors import (
        checked_gold,
        evaluate_detector,
        read_detections,
    )
    from annotator.meta_evaluation.release_scores import gold_records

    mapping = {}
    for pair in kind_map:
        kind, sep, edit_type = pair.partition("=")
        if not sep or not kind or not edit_type:
            fail(f"--map {pair!r}: expected KIND=TYPE", 2)
        mapping[kind] = edit_type
    try:
        gold = checked_gold(gold_records(release), str(release / "gold.jsonl")
                            if release.is_dir() else str(release))
        found = read_detections(detections, mapping)
    except IngestError as exc:
        fail(str(exc), 2)
    report = evaluate_detector(gold, found, threshold=threshold, min_score=min_score)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    for row in report["spans"]:
        e, p = row["exact"], row["partial"]
        click.echo(f"spans {row['kind']} ({row['side']}): exact F1 {_shown(e['f1'])}, partial "
                   f"F1 {_shown(p['f1'])} (P {_shown(p['precision'])}, R {_shown(p['recall'])};"
                   f" {p['tp']} of {p['tp'] + p['fn']} gold spans found)")
    for row in report["documents"]:
        at = row["at_threshold"]
        line = (f"documents {row['kind']}: {row['positive']} of {row['documents']} positive; "
                f"at >= {threshold:g}: P {_shown(at['precision'])}, R {_shown(at['recall'])}, "
                f"F1 {_shown(at['f1'])}")
        if "auc_roc" in row:
            best = row["best_f1"]
            line += (f"; AUC-ROC {row['auc_roc']:.3f}; best F1 {best['f1']:.3f} at >= "
                     f"{best['threshold']:.4g} (optimistic)")
        click.echo(line)
    if report["unmatched"]:
        click.echo(f"{len(report['unmatched'])} detected document(s) are not in the release "
                   f"(left out): {', '.join(report['unmatched'][:10])}")
    if report["without_detections"]:
        click.echo(f"{len(report['without_detections'])} released document(s) have no "
                   f"detections (scored 0): {', '.join(report['without_detections'][:10])}")


def _shown(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@eval_group.command("systems")
@click.argument("human", type=click.Path(exists=True, path_type=Path))
@click.option("--system", required=True, help="System column (a release: a metadata key).")
@click.option("--human", "axes", required=True,
              help="Score column(s) A[,B...] ranked one by one; for a release, scores such "
                   "as plaba:SIM,plaba:ACC (see `eval metrics`).")
@click.option("--item", default=None,
              help="Column (release: metadata key) naming the input each output answers: "
                   "the bootstrap then resamples items, paired across systems.")
@click.option("--on", default=None, help="With --rater: the column(s) naming one rated unit.")
@click.option("--rater", default=None, help="Rater column: units average their raters.")
@click.option("--z-normalise", "z_normalise", is_flag=True,
              help="Standardise each rater's scores first (mean 0, population sd 1).")
@click.option("--where", "where", multiple=True, help="COL=VALUE: keep only matching rows.")
@click.option("--unit", type=click.Choice(["document", "sentence"]), default="document",
              show_default=True, help="What a release's score is computed for.")
@click.option("--bootstrap", "resamples", type=click.IntRange(10, 100_000), default=1000,
              show_default=True, help="Bootstrap resamples for the intervals and ranks.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the bootstrap resamples (the same seed, the same intervals).")
@click.option("--ci", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Coverage of the bootstrap intervals.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Level of the Holm-adjusted tie tests.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def systems_command(human, system, axes, item, on, rater, z_normalise, where, unit, resamples,
                    seed, ci, alpha, as_json):
    """Rank systems by their mean human score per axis, with bootstrap intervals, rank
    ranges and the systems each is statistically tied with (PLABA's system table)."""
    from annotator.core.problems import IngestError
    from annotator.meta_evaluation import release_scores
    from annotator.meta_evaluation.systems import rank_systems, system_scores
    from annotator.meta_evaluation.tables import filtered, parse_where, read_table

    results, notes = [], []
    try:
        conditions = parse_where(list(where))
        # the release, or the table, is read once for every axis
        records = release_scores.gold_records(human) if release_scores.is_release(
            human) else None
        plain = read_table(human) if records is None else None
        for axis in [a.strip() for a in axes.split(",") if a.strip()]:
            if records is not None:
                table = release_scores.derived_table(records, str(human), axis, unit)
                column = release_scores.SCORE_COLUMN
            else:
                table, column = plain, axis
            notes += table.notes
            table = filtered(table, conditions)
            systems, scores, items = system_scores(
                table, column, system, item=item, rater=rater, z_normalise=z_normalise,
                on=[c.strip() for c in on.split(",")] if on else None)
            if len(set(systems)) < 2:
                fail(f"{axis}: fewer than two systems to rank", 2)
            results.append({"axis": axis, **rank_systems(systems, scores, items=items,
                                                         resamples=resamples, seed=seed,
                                                         ci=ci, alpha=alpha)})
    except (IngestError, ValueError) as exc:
        fail(str(exc), 2)
    if as_json:
        click.echo(json.dumps({"axes": results, "notes": notes}, indent=2))
        return
    for result in results:
        click.echo(f"{result['axis']} ({'paired by item' if result['paired'] else 'unpaired'}; "
                   f"{ci:.0%} intervals, ties at Holm-adjusted p >= {alpha:g})")
        for row in result["systems"]:
            low, high = row["rank_range"]
            rank = str(low) if low == high else f"{low}-{high}"
            click.echo(f"  {rank:<6}{row['system']:<24}{row['mean']:>10.3f} "
                       f"[{row['low']:.3f}, {row['high']:.3f}]  n={row['n']}"
                       + (f"  tied with {', '.join(row['tied_with'])}" if row["tied_with"]
                          else ""))
    for note in notes:
        click.echo(note)
