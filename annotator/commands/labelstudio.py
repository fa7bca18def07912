"""`annotator labelstudio push|pull`: work with a running Label Studio server."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from annotator.commands import fail, open_database, project_or_exit
from annotator.config import current
from annotator.schemas.files import project_schema

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).

SERVER_OPTIONS = [
    click.option("--url", help="Label Studio address "
                 "(or LABEL_STUDIO_URL)."),
    click.option("--token", help="API token "
                 "(or LABEL_STUDIO_API_KEY)."),
]


def server_options(command):
    for option in reversed(SERVER_OPTIONS):
        command = option(command)
    return command


def connect(url, token):
    """A client for the server at ``url`` (default: LABEL_STUDIO_URL in the settings) with
    ``token`` (default: LABEL_STUDIO_API_KEY)."""
    from annotator.interop import labelstudio_server

    settings = current()
    try:
        return labelstudio_server.client(url or settings.label_studio_url,
                                         token or settings.label_studio_api_key)
    except RuntimeError as exc:
        fail(str(exc))


@click.group()
def labelstudio():
    """Send a project to a Label Studio server, or fetch its annotations back."""


@labelstudio.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--email-domain", help="E-mail of accounts that have none: NAME@DOMAIN "
              "(Label Studio files work under its members' e-mails).")
@server_options
def push(project_name, email_domain, url, token):
    """Create a Label Studio project from PROJECT: its labeling config, one task per
    document with every annotator's work (skipped work as cancelled annotations), the
    pre-highlights as predictions.

    Every annotator with work must be a member of the Label Studio server under their
    account's e-mail (or NAME@DOMAIN with --email-domain); otherwise nothing is created
    and the command names them."""
    from sqlalchemy import select

    from annotator.interop import labelstudio_server
    from annotator.interop.annotations_store import project_documents, project_records
    from annotator.interop.exporting import project_suggestions
    from annotator.interop.labelstudio_layout import layout
    from annotator.interop.labelstudio_tasks import to_tasks
    from annotator.models import User
    from annotator.operations import work

    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        schema = project_schema(project)
        records = project_records(session, project)
        names = sorted({r.annotator for r in records})
        accounts = dict(session.execute(select(User.username, User.email).where(
            User.username.in_(names))).all()) if names else {}
        emails, nameless = {}, []
        for name in names:
            email = accounts.get(name) or (f"{name}@{email_domain}" if email_domain else None)
            if email is None:
                nameless.append(name)
            emails[name] = email
        if nameless:
            fail("no e-mail for: " + ", ".join(nameless) + ". Label Studio files work under "
                 "its members' e-mails: set the accounts' e-mails or pass --email-domain; "
                 "nothing was created on the server.")
        tasks, notes = to_tasks(schema, project_documents(session, project), records,
                                project_suggestions(session, project), emails.get)
        config = layout(schema).xml
    ls = connect(url, token)
    try:
        with labelstudio_server.talking_to(url or current().label_studio_url):
            labelstudio_server.check_people(ls, emails)
            ls_id = labelstudio_server.push(ls, project_name, config, tasks)
    except (labelstudio_server.PushRefused, labelstudio_server.ServerUnreachable) as exc:
        fail(str(exc))
    click.echo(f"pushed {len(tasks)} tasks ({len(records)} annotator-document records) to "
               f"Label Studio project {ls_id}")
    for note in notes:
        click.echo(f"  not representable in Label Studio: {note}")


@labelstudio.command()
@click.argument("project_name", metavar="PROJECT")
@click.argument("ls_project", type=int, metavar="LABEL_STUDIO_PROJECT_ID")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False),
              help="Where to keep the downloaded export; default: a temporary file.")
@click.option("--import", "do_import", is_flag=True,
              help="Import the annotations into PROJECT (all or nothing). Work pulled "
              "before is updated, so a pull can follow a study while it runs.")
@click.option("--email-domain", help="Members with an e-mail NAME@DOMAIN are the accounts "
              "named NAME (as push --email-domain filed them).")
@click.option("--item-key", "item_key", metavar="FIELD[,FIELD]",
              help="The task data field(s) that identify a document, as for import.")
@click.option("--allow-deletions", is_flag=True,
              help="Accept a pull that deletes stored work: edits whose regions were "
              "deleted in Label Studio, and whole annotations no longer in the export; "
              "without it such a pull is refused and lists them.")
@click.option("--allow-incomplete", is_flag=True,
              help="Accept a pull that leaves finished work incomplete (e.g. a region "
              "relabelled so a required answer is missing): stored as in progress and "
              "listed; without it such a pull is refused naming task, region and what is "
              "missing.")
@click.option("--json", "as_json", is_flag=True,
              help="With --import: print what the pull did as one JSON object.")
@server_options
def pull(project_name, ls_project, out, do_import, email_domain, item_key, allow_deletions,
         allow_incomplete, as_json, url, token):
    """Download the JSON export of a Label Studio project, and optionally import it.

    Work is filed under the account with the Label Studio member's e-mail; submitted
    annotations are done, drafts in progress (a draft beside its member's submission is
    not imported, and said so), skipped (cancelled) ones skipped, and lead_time is the time
    spent. The pull merges into the stored work: edits Label Studio cannot hold (without a
    region) and edit metadata are kept, unchanged work is left alone (a second pull of the
    same export changes nothing), deleting stored work needs --allow-deletions and leaving
    finished work incomplete needs --allow-incomplete. It prints users created, drafts
    stored or not (and why), skips, deletions and work stored incomplete."""
    import json

    from annotator.ingest import IngestError
    from annotator.interop import labelstudio_server
    from annotator.interop.labelstudio_pull import pull_into
    from annotator.operations import work

    ls = connect(url, token)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            with labelstudio_server.talking_to(url or current().label_studio_url):
                path = labelstudio_server.pull(ls, ls_project,
                                               out or Path(tmp) / "export.json")
                users = labelstudio_server.server_users(ls) if do_import else {}
        except labelstudio_server.ServerUnreachable as exc:
            fail(str(exc))
        if not as_json:
            click.echo(f"downloaded the export of Label Studio project {ls_project}"
                       + (f" to {path}" if out else ""))
        if not do_import:
            if as_json:
                click.echo(json.dumps({"downloaded": str(path) if out else None}))
            return
        members = pull_identities(users, email_domain)
        keys = tuple(k.strip() for k in (item_key or "").split(",") if k.strip())
        database = open_database()
        try:
            with work.session(database) as session:
                project = project_or_exit(session, project_name)
                summary = pull_into(session, project, path, members=members, item_key=keys,
                                    allow_deletions=allow_deletions,
                                    allow_incomplete=allow_incomplete)
        except IngestError as exc:
            if as_json:
                click.echo(json.dumps({"refused": [str(p) for p in exc.problems]},
                                      ensure_ascii=False))
            fail(f"nothing was imported.\n{exc}", code=2)
    if as_json:
        click.echo(json.dumps(summary.as_json(), ensure_ascii=False, sort_keys=True))
        return
    for line in summary_lines(summary, project_name):
        click.echo(line)


def summary_lines(summary, project_name: str) -> list[str]:
    """What a pull did, for a lead: every count comes with the lines it counts."""
    report, merge = summary.report, summary.merge
    changed = report.records or report.documents_created or summary.cleared
    lines = [f"imported {report.records} annotations ({report.edits} edits, "
             f"{report.ratings} ratings) into {project_name}" if report.records else
             f"nothing imported into {project_name}" + (
                 "" if changed else ": the export matches the stored work"),
             f"{merge.unchanged} annotation(s) unchanged, left as stored; "
             f"{merge.kept_without_region} edit(s) without a region kept"]
    if report.documents_created:
        lines.append(f"documents created: {report.documents_created}")

    def section(title: str, items: list[str]) -> None:
        lines.append(f"{title}: {len(items)}")
        lines.extend(f"  {item}" for item in items)
    section("users created (inactive, no known password)", list(report.users_created))
    section("drafts stored as in progress", summary.drafts_stored)
    section("drafts unchanged, left as stored", summary.drafts_unchanged)
    section("drafts not imported", summary.drafts_ignored)
    section("skips stored", summary.skips_stored)
    section("skips unchanged", summary.skips_unchanged)
    section("deletions", list(merge.deletions))
    if summary.kept_frozen:
        section("deletions not made", summary.kept_frozen)
    section("stored as in progress (incomplete)", summary.incomplete)
    for note in summary.notes():
        lines.append(f"  note: {note}")
    return lines


def pull_identities(users: dict, email_domain: str | None) -> dict[str, str]:
    """Label Studio user id AND e-mail -> account name: a submission names its user by
    id, a draft by e-mail, and both must land on one account (NAME@DOMAIN is NAME with
    --email-domain)."""
    suffix = "@" + email_domain.lstrip("@") if email_domain else None
    names = {}
    for user_id, email in users.items():
        name = email[:-len(suffix)] if suffix and email.endswith(suffix) else email
        names[str(user_id)] = name
        names[email] = name
    return names
