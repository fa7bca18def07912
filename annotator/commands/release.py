"""`annotator release PROJECT --version V`: an immutable, versioned gold release."""

from __future__ import annotations

import click

from annotator.commands import fail, open_database
from annotator.config import Config
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
    """Cut a gold release (annotator release PROJECT --version V) or verify one
    (annotator release verify PROJECT VERSION)."""


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
    """Write exports/PROJECT/VERSION/ with the gold set, raw annotations, agreement report,
    schema, guideline and a MANIFEST.json of checksums (ANNOTATOR_EXPORTS_PATH moves
    exports/)."""
    from annotator.releases import ReleaseError, cut_release

    exports = Config.from_env().exports_path
    database = open_database()
    with database.session() as session:
        try:
            project = get_project(session, project_name)
            manifest = cut_release(session, project, version, exports_path=exports,
                                   notes=notes, require_complete=require_complete,
                                   bootstrap=bootstrap)
            slug = project.slug
        except (ProjectError, ReleaseError) as exc:
            fail(str(exc))
    counts = manifest["counts"]
    click.echo(f"release {version} of {project_name}: {counts['documents_released']} "
               f"document(s), {counts['gold_edits']} gold edit(s), {counts['gold_ratings']} "
               f"gold rating(s), {counts['documents_excluded']} excluded")
    for item in manifest["excluded"]:
        click.echo(f"  excluded {item['id']}: {item['reason']}")
    from annotator.releases.browse import release_folder

    click.echo(f"written to {release_folder(exports, slug, version)}")


@release.command("verify")
@click.argument("project_name", metavar="PROJECT")
@click.argument("version", metavar="VERSION")
def verify(project_name, version):
    """Compare every file of a release with the sha256 in its MANIFEST.json; exits 1 and
    lists each changed, missing or extra file if anything differs."""
    from annotator.releases import verify_release

    database = open_database()
    with database.session() as session:
        try:
            slug = get_project(session, project_name).slug
        except ProjectError as exc:
            fail(str(exc))
    result = verify_release(Config.from_env().exports_path, slug, version)
    for problem in result.problems:
        click.echo(f"MISMATCH {problem}", err=True)
    if not result.ok:
        fail(f"release {version} of {project_name}: {len(result.problems)} problem(s); "
             "do not use these files")
    click.echo(f"release {version} of {project_name}: {result.checked} file(s) match the "
               f"manifest (MANIFEST.json sha256 {result.manifest_sha256})")
