"""`annotator release PROJECT --version V`: an immutable, versioned gold release, stored in
the database; `release list`, `release verify` and `release export` read it back."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import adopt_release_folders, fail, open_database
from annotator.study.projects import ProjectError, get_project

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


class ReleaseGroup(click.Group):
    """``annotator release PROJECT --version V`` cuts a release (the ``cut`` subcommand is
    implied); ``annotator release verify PROJECT VERSION`` checks one."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["cut", *args]
        return super().parse_args(ctx, args)


@click.group(cls=ReleaseGroup)
def release():
    """Cut a gold release (annotator release PROJECT --version V), list, verify or export
    one. Releases are stored in the database, so every server on it sees them."""


def _database():
    """The database, with release folders cut on disk before issue 31 stored in it."""
    database = open_database()
    adopt_release_folders(database)
    return database


@release.command("cut")
@click.argument("project_name", metavar="PROJECT")
@click.option("--version", "version", required=True, help="Release version, e.g. v1.0 "
              "(letters, digits, '.', '_', '-'); an existing version is refused.")
@click.option("--notes", default="", help="Release notes, stored in MANIFEST.json.")
@click.option("--require-complete", is_flag=True,
              help="Refuse the release when any document is not fully adjudicated "
                   "(default: leave such documents out and list them in the manifest).")
@click.option("--bootstrap", default=None, type=click.IntRange(0, 100_000),
              help="Bootstrap resamples for the agreement report's intervals (default: the "
                   "project's setting, 1000 unless changed with `annotator agreement "
                   "PROJECT --bootstrap N --save-settings`).")
def cut(project_name, version, notes, require_complete, bootstrap):
    """Store a release of PROJECT in the database (short: annotator release PROJECT
    --version V).

    The gold set, raw annotations, agreement report, schema, guideline and a MANIFEST.json
    of checksums; `annotator release export` writes it as a folder."""
    from annotator.operations import work
    from annotator.releases import ReleaseError, cut_release

    database = _database()
    with work.session(database) as session:
        try:
            project = get_project(session, project_name)
            manifest = cut_release(session, project, version, notes=notes,
                                   require_complete=require_complete, bootstrap=bootstrap)
        except (ProjectError, ReleaseError) as exc:
            fail(str(exc))
    counts = manifest["counts"]
    click.echo(f"release {version} of {project_name}: {counts['documents_released']} "
               f"document(s), {counts['gold_edits']} gold edit(s), {counts['gold_ratings']} "
               f"gold rating(s), {counts['documents_excluded']} excluded")
    for item in manifest["excluded"]:
        click.echo(f"  excluded {item['id']}: {item['reason']}")
    click.echo(f"stored in the database; `annotator release export {project_name} {version} "
               "DIR` writes it as a folder")


@release.command("list")
@click.argument("project_name", metavar="PROJECT")
def list_command(project_name):
    """List the releases of PROJECT, newest first: version, date, documents, notes."""
    from annotator.operations import work
    from annotator.releases import list_releases

    database = _database()
    with work.session(database) as session:
        try:
            found = list_releases(session, get_project(session, project_name))
        except ProjectError as exc:
            fail(str(exc))
    for manifest in found:
        counts = manifest.get("counts", {})
        click.echo(f"{manifest['version']}\t{manifest.get('created_at', '')}\t"
                   f"{counts.get('documents_released', '?')} document(s)\t"
                   f"{manifest.get('notes', '')}")
    if not found:
        click.echo(f"no release of {project_name} yet")


class VerifyCommand(click.Command):
    """Its usage line names the two exclusive forms, so neither the help nor the README's
    command table (scripts/command_table.py) shows a combination the command refuses, as
    ``verify PROJECT VERSION [--folder FOLDER]`` did."""

    def collect_usage_pieces(self, ctx):
        return ["(PROJECT VERSION | --folder DIR)"]


@release.command("verify", cls=VerifyCommand)
@click.argument("project_name", metavar="PROJECT", required=False)
@click.argument("version", metavar="VERSION", required=False)
@click.option("--folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path),
              help="Verify an exported release folder instead (no database needed).")
def verify(project_name, version, folder):
    """Compare every file of release VERSION of PROJECT (or of an exported --folder) with the
    sha256 in its MANIFEST.json; exits 1 and lists each changed, missing or extra file if
    anything differs."""
    from annotator.operations import work
    from annotator.releases import verify_folder, verify_release

    if folder is not None:
        if project_name or version:
            fail("give PROJECT VERSION (a release in the database) or --folder DIR, not both")
        result = verify_folder(folder)
        what = str(folder)
    else:
        if not (project_name and version):
            fail("give PROJECT VERSION (a release in the database) or --folder DIR")
        database = _database()
        with work.session(database) as session:
            try:
                result = verify_release(session, get_project(session, project_name), version)
            except ProjectError as exc:
                fail(str(exc))
        what = f"release {version} of {project_name}"
    for problem in result.problems:
        click.echo(f"MISMATCH {problem}", err=True)
    if not result.ok:
        fail(f"{what}: {len(result.problems)} problem(s); do not use these files")
    click.echo(f"{what}: {result.checked} file(s) match the manifest "
               f"(MANIFEST.json sha256 {result.manifest_sha256})")


@release.command("export")
@click.argument("project_name", metavar="PROJECT")
@click.argument("version", metavar="VERSION")
@click.argument("target", metavar="DIR", type=click.Path(path_type=Path))
def export(project_name, version, target):
    """Write release VERSION of PROJECT as the read-only folder DIR (which must not exist):
    MANIFEST.json and every file it lists, checked against the manifest first."""
    from annotator.operations import work
    from annotator.releases import verify_release
    from annotator.releases.export import ExportError, export_folder
    from annotator.releases.store import find_release

    database = _database()
    with work.session(database) as session:
        try:
            project = get_project(session, project_name)
        except ProjectError as exc:
            fail(str(exc))
        stored = find_release(session, project, version)
        if stored is None:
            fail(f"release {version!r} of {project_name}: no such release "
                 "(`annotator release list PROJECT` lists them)")
        result = verify_release(session, project, version)
        if not result.ok:
            fail(f"release {version} of {project_name} no longer matches its manifest, "
                 "not exported: " + "; ".join(result.problems))
        try:
            export_folder(session, stored, target)
        except (ExportError, OSError) as exc:
            fail(str(exc))
    click.echo(f"release {version} of {project_name}: {result.checked} file(s) and "
               f"MANIFEST.json written to {target}")
