"""`annotator adjudicate`: the automatic adjudication rules in batch, and where things stand."""

from __future__ import annotations

import json

import click

from annotator.commands import fail, open_database, project_or_exit

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.group()
def adjudicate():
    """Adjudication of finished documents (the lead's queue is on the web page)."""


def _embed(no_embeddings: bool):
    """The sentence encoder, loaded once, remembering the vectors of texts it has seen:
    the same question or label recurs across documents (SALSA-style subtype answers)."""
    if no_embeddings:
        return None
    import numpy as np

    from annotator.align.embeddings import default_embedder

    encoder = default_embedder()
    seen: dict[str, np.ndarray] = {}

    def encode(texts: list[str]) -> np.ndarray:
        new = list(dict.fromkeys(t for t in texts if t not in seen))
        if new:
            seen.update(zip(new, np.asarray(encoder.encode(new))))
        return np.stack([seen[t] for t in texts])

    return encode


@adjudicate.command("auto")
@click.argument("project_name", metavar="PROJECT")
@click.option("--no-embeddings", is_flag=True,
              help="Group edits by span overlap only (skips loading the embedding model).")
@click.option("--dry-run", is_flag=True,
              help="Show what each rule would decide, unit by unit, and change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def auto(project_name, no_embeddings, dry_run, as_json):
    """Apply the project's automatic rules to every ready document of PROJECT.

    Freezes the candidate units and decides them by the project's edit rule (see
    `annotator adjudicate rules`): identical edits of every annotator (default) or an
    edit-level majority; resolves ratings by majority (Devaraj et al. 2022; ties and
    all-different items are left) and by third-annotator labels, and marks documents with
    nothing left as adjudicated. Every decision is recorded as automatic and can be undone.
    Prints, per edit type, the units accepted, merged, rejected and left, and every unit
    left for the lead with why (tie, type split, field conflict, ...).
    """
    from annotator.adjudication.automatic import adjudicate_project
    from annotator.adjudication.coverage import tally
    from annotator.adjudication.rules import RulesError
    from annotator.commands import progress_bar
    from annotator.operations import work

    embed = _embed(no_embeddings)
    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        with progress_bar("adjudicating") as progress:
            try:
                # The bar is on stderr; --json output stays one object.
                summary = adjudicate_project(session, project, embed=embed,
                                             progress=None if as_json else progress)
            except RulesError as exc:
                fail(str(exc))
        summary = {"dry_run": dry_run, **summary}
        if dry_run:
            session.rollback()  # nothing of the run is kept
    # Coverage per edit type (issue 42): what the rules decided and why each unit is left.
    summary.update(tally({"document": doc_id, **v} for doc_id, verdicts
                         in summary["verdicts"].items() for v in verdicts))
    if as_json:
        click.echo(json.dumps(summary, sort_keys=True))
        return
    verb = "would be" if dry_run else "were"
    click.echo(f"{project_name}: {summary['documents']} document(s) processed; "
               f"{summary['units_accepted']} unit(s) {verb} accepted "
               f"({summary['units_merged']} by merging), {summary['units_rejected']} rejected, "
               f"{summary['ratings_resolved']} rating item(s) resolved, {summary['completed']} "
               f"document(s) adjudicated" + (" (dry run: nothing changed)" if dry_run else ""))
    if dry_run:
        for doc_id, verdicts in summary["verdicts"].items():
            for v in verdicts:
                click.echo(f"  {doc_id} {v['unit']}: {v['action']}: {v['reason']}")
    for edit_type, counts in summary["by_type"].items():
        why = ", ".join(f"{n} {c}" for c, n in counts["why_left"].items())
        click.echo(f"  {edit_type}: {counts['accepted']} accepted, {counts['merged']} merged, "
                   f"{counts['rejected']} rejected, {counts['left']} left"
                   + (f" ({why})" if why else ""))
    for unit in summary["left_units"]:
        click.echo(f"  left unit: {unit['document']} {unit['unit']} ({unit['unit_type']}, "
                   f"{unit['category']}): {unit['reason']}")
    for left in summary["left"]:
        click.echo(f"  left for the lead: {left['id']}: {left.get('summary', left.get('reason'))}")
    if not summary["left"]:
        click.echo("  nothing left for the lead")


@adjudicate.command("rules")
@click.argument("project_name", metavar="PROJECT")
@click.option("--edit-rule", type=click.Choice(["identical", "majority"]),
              help="identical: every annotator marked the very same edit; majority: at least "
                   "--min-agree annotators marked an edit of the same type there.")
@click.option("--min-agree", type=click.IntRange(1), default=None,
              help="Annotators who must agree under the majority rule (default: more than "
                   "half of a document's annotators).")
@click.option("--minority", type=click.Choice(["reject", "leave"]),
              help="A unit outvoted by the annotators who marked nothing there: reject it "
                   "(default) or leave it to the lead.")
@click.option("--field", "fields", multiple=True, metavar="NAME=MODE",
              help="How a field is compared: compare, majority, median (ordinal) or ignore. "
                   "Repeatable. Defaults: text ignored, ordinal by median, choices compared.")
@click.option("--span-merge", metavar="RULE",
              help="Gold span of a unit marked at different granularity: majority_tokens "
                   "(tokens most agreeing annotators cover), union, intersection, "
                   "annotator:NAME (that annotator's spans) or base (the base edit's). "
                   "Stated in the release manifest.")
def rules(project_name, edit_rule, min_agree, minority, fields, span_merge):
    """Show, or change, the automatic adjudication rules of PROJECT."""
    from annotator.adjudication.rules import AutoRules, RulesError
    from annotator.operations import work
    from annotator.schemas.files import project_schema

    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        settings = dict(project.settings or {})
        current = dict(settings.get("adjudication") or {})
        changes = {"edit_rule": edit_rule, "min_agree": min_agree, "minority": minority,
                   "span_merge": span_merge}
        current.update({k: v for k, v in changes.items() if v is not None})
        modes = dict(current.get("fields") or {})
        # Only fields of the project's edit types are compared: a mistyped name would be
        # stored and silently never apply.
        known = sorted({f.name for e in project_schema(project).edit_types for f in e.fields})
        for item in fields:
            name, sep, mode = item.partition("=")
            if not sep or not name.strip():
                fail(f"--field {item!r}: expected NAME=MODE")
            if name.strip() not in known:
                fail(f"--field {item!r}: {name.strip()!r} is not a field of the project's "
                     f"edit types (" + (", ".join(known) or "it has none") + ")", 2)
            modes[name.strip()] = mode.strip()
        current["fields"] = modes
        named = (span_merge or "").partition("annotator:")[2].strip()
        if named and named not in _annotators(session, project):
            # Like a mistyped field: stored, it would silently never apply.
            fail(f"--span-merge {span_merge!r}: {named!r} is not an annotator of "
                 f"{project.name} (" + (", ".join(_annotators(session, project)) or "none yet")
                 + ")", 2)
        try:
            chosen = AutoRules.from_settings({"adjudication": current})
        except RulesError as exc:
            fail(str(exc))
        settings["adjudication"] = current
        project.settings = settings  # a new dict, so the JSON column is seen as changed
        click.echo(json.dumps(chosen.as_settings(), sort_keys=True))


def _annotators(session, project) -> list[str]:
    """Who annotates PROJECT: its annotator members and everyone with an assignment."""
    from sqlalchemy import select

    from annotator.models import Assignment, Document, ProjectMember, User

    members = session.scalars(select(User.username).join(
        ProjectMember, ProjectMember.user_id == User.id).where(
        ProjectMember.project_id == project.id, ProjectMember.role == "annotator"))
    assigned = session.scalars(select(User.username).join(
        Assignment, Assignment.user_id == User.id).join(Document).where(
        Document.project_id == project.id))
    return sorted(set(members) | set(assigned))


@adjudicate.command("status")
@click.argument("project_name", metavar="PROJECT")
def status(project_name):
    """The adjudication queue of PROJECT: ready documents, least agreement first (the
    stored queue the web page shows, entries left stale recomputed first)."""
    from annotator.adjudication.queue import refresh_stale, stored_queue
    from annotator.operations import work

    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        refresh_stale(session, project.id)  # a command may write; a page only reads
        page = stored_queue(session, project.id)
        for number in range(1, page.pages + 1):
            if number > 1:
                page = stored_queue(session, project.id, page=number)
            for e in page.entries:
                click.echo(f"{e.document.external_id}\t{e.status}\t"
                           f"agreement {e.agreement:.2f}\topen: {e.open['summary']}")
        if not page.total:
            click.echo("no document is ready: annotators mark documents done first")


@adjudicate.command("refresh-queue")
@click.argument("project_name", metavar="PROJECT")
@click.option("--background", is_flag=True,
              help="Queue it as a job for a worker (`annotator worker`, or the one "
              "`annotator serve` runs) instead of recomputing here.")
def refresh_queue(project_name, background):
    """Recompute PROJECT's adjudication queue entries left stale (every change recomputes
    its own document's entry when it commits; this repairs one that failed)."""
    from annotator.adjudication.queue import refresh_stale
    from annotator.operations import work
    from annotator.study import jobs

    database = open_database(upgrade=False)
    if background:
        with work.session(database) as session:
            project = project_or_exit(session, project_name)
            job = jobs.enqueue(session, "queue-refresh", project.id)
            click.echo(f"queue refresh of {project.name} queued (job {job.id})")
        return
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        count = refresh_stale(session, project.id)
    click.echo(f"{count} queue entr{'y' if count == 1 else 'ies'} recomputed for {project.name}")
