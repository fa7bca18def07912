"""Setting up: the database, users and projects."""

from __future__ import annotations

import click

from annotator.commands import adopt_release_folders, fail, open_database
from annotator.models import ROLES
from annotator.schemas import SchemaError, builtin_names
from annotator.study.accounts import AccountError, create_user, find_user
from annotator.study.projects import ProjectError, create_project

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.command()
def init():
    """Create the database, or bring it up to date with the newest migrations.

    Safe to run again: existing data is kept.
    """
    database = open_database()
    adopt_release_folders(database)
    click.echo(f"database ready: {database.engine.url.render_as_string(hide_password=True)}")


@click.group()
def user():
    """Manage user accounts (admins, leads, annotators)."""


@user.command("add")
@click.argument("username")
@click.option("--role", type=click.Choice(ROLES), default="annotator", show_default=True,
              help="annotator: annotates assigned documents; lead: runs projects; admin: all.")
@click.option("--password", help="Leave out to be asked (not echoed).")
def user_add(username, role, password):
    """Add a user who can log in to the web app.

    \b
    Example:
      annotator user add ana --role annotator
    """
    from annotator.operations import work

    if password is None:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    database = open_database()
    try:
        with work.session(database) as session:
            create_user(session, username, password, role)
    except AccountError as exc:
        fail(str(exc))
    click.echo(f"added {role} {username}")


@user.command("password")
@click.argument("username")
@click.option("--password", help="Leave out to be asked (not echoed).")
def user_password(username, password):
    """Set a new password (and activate the account); every open session of the user ends."""
    from annotator.operations import work
    from annotator.study.accounts import find_user, set_password

    if password is None:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    database = open_database()
    try:
        with work.session(database) as session:
            found = find_user(session, username)
            if found is None:
                fail(f"no user named {username!r}")
            set_password(session, found, password)
            found.active = True
    except AccountError as exc:
        fail(str(exc))
    click.echo(f"password of {username} set; their open sessions ended")


@user.command("deactivate")
@click.argument("username")
def user_deactivate(username):
    """The user can no longer log in; every open session ends now."""
    from annotator.operations import work
    from annotator.study.accounts import deactivate, find_user

    database = open_database()
    with work.session(database) as session:
        found = find_user(session, username)
        if found is None:
            fail(f"no user named {username!r}")
        deactivate(session, found)
    click.echo(f"{username} deactivated; their open sessions ended")


@click.group()
def project():
    """Create and inspect projects."""


@project.command("create")
@click.argument("name")
@click.option("--schema", "schema", required=True,
              help=f"A built-in schema ({', '.join(builtin_names())}) or a schema file: this "
                   "tool's YAML, a Thresh typology (.yml with edits:) or a Label Studio "
                   "labeling config (.xml).")
@click.option("--annotators-per-doc", type=click.IntRange(1, 20), default=2, show_default=True,
              help="How many independent annotators see each document.")
@click.option("--lead", "leads", multiple=True, help="User name of a lead (repeatable).")
def project_create(name, schema, annotators_per_doc, leads):
    """Create a project NAME that annotates with a task schema.

    The schema is copied into the project, so later changes to the file do not alter a
    running study.

    \b
    Example:
      annotator project create trial-2026 --schema infolossqa --lead lee
    """
    from annotator.operations import work

    database = open_database()
    try:
        with work.session(database) as session:
            lead_users = []
            for name_ in leads:
                lead = find_user(session, name_)
                if lead is None or lead.role not in ("lead", "admin"):
                    fail(f"--lead {name_!r}: no lead or admin with that name")
                lead_users.append(lead)
            created = create_project(session, name, schema, annotators_per_doc=annotators_per_doc,
                                     leads=lead_users)
            click.echo(f"created project {created.name} (schema {created.schema_name})")
    except (ProjectError, SchemaError) as exc:
        fail(str(exc))


@project.command("schema")
@click.argument("project_name", metavar="PROJECT")
@click.argument("file", metavar="FILE")
@click.option("--all-errors", is_flag=True, help="List every annotation that would break "
              "(default: the first 20, and how many more).")
def project_schema_command(project_name, file, all_errors):
    """Replace the schema of PROJECT by FILE, if every stored annotation stays valid.

    Refused otherwise, listing every edit, rating or finished document that would break
    (with the stored value). The revision is recorded in the audit trail and listed in
    later releases' MANIFEST.json. In the browser: the project's settings page (Schema).

    \b
    Example: add an option, then check and apply
      annotator schema show my-schema.yaml
      annotator project schema trial my-schema.yaml
    """
    from annotator.commands import project_or_exit
    from annotator.operations import work
    from annotator.operations.schema_revision import SchemaRevisionRefused, revise_schema
    from annotator.schemas.files import load_schema

    try:
        new = load_schema(file)
    except SchemaError as exc:
        fail(str(exc))
    database = open_database()
    try:
        with work.session(database) as session:
            project_ = project_or_exit(session, project_name)
            revision = revise_schema(session, project_, new)
    except SchemaRevisionRefused as exc:
        shown = exc.problems if all_errors else exc.problems[:20]
        listing = "\n".join(f"  {p}" for p in shown)
        if len(exc.problems) > len(shown):
            listing += (f"\n  ... and {len(exc.problems) - len(shown)} more (--all-errors "
                        "lists every one)")
        fail(f"schema of {project_name} not changed: {exc}:\n{listing}")
    changes = "; ".join(revision.changes) or "no change in what is annotated"
    click.echo(f"revised the schema of {project_name} (now {new.name}): {changes}")
