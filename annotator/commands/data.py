"""Getting data in: importing document pairs and assigning them to annotators."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.commands import fail, open_database, progress_bar, project_or_exit
from annotator.config import current
from annotator.core.problems import MAX_PROBLEMS_SHOWN
from annotator.core.records import FORMATS
from annotator.ingest import IngestError
from annotator.interop import ANNOTATION_FORMATS

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).


@click.command("import")
@click.argument("project_name", metavar="PROJECT")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path),
                metavar="FILE_OR_FOLDER...")
@click.option("--format", "fmt", type=click.Choice(FORMATS + ANNOTATION_FORMATS),
              help="Input format; by default taken from the file name ending (documents).")
@click.option("--update", is_flag=True,
              help="Documents: replace documents whose ids exist already, if nobody "
              "annotated them yet. Annotations: an annotator's later annotation of an item "
              "(a later file, or the project's earlier import) replaces the earlier one; "
              "audited and counted (refused for adjudicated items until reopened).")
@click.option("--annotator", help="Whose annotations these are, when the file does not say "
              "(Thresh files, InfoLossQA predictions: the system name).")
@click.option("--annotator-from-filename", "name_pattern", metavar="PATTERN",
              help="Annotations: take the annotator from each file's name where the format "
              "does not say, e.g. 'batch*-{annotator}.json' or 'annotations-{annotator}/*.json'"
              " (* any characters; matched against as many trailing path parts as it has).")
@click.option("--map", "mappings", multiple=True, metavar="CATEGORY=TYPE",
              help="Thresh: read this category as this edit type of the schema (repeatable).")
@click.option("--ignore", "ignore", multiple=True, metavar="FIELD",
              help="Annotations: drop this key of every record (dotted path, e.g. _modified, "
                   "metadata.system, edits.annotation.comment); the only way to drop one "
                   "(repeatable; the report counts what was dropped).")
@click.option("--clip-spans", is_flag=True,
              help="Annotations: clip spans that run past the end of their text (each one "
                   "is listed) instead of refusing the file.")
@click.option("--accept-incomplete", is_flag=True,
              help="Annotations: keep work the file marks done as done even when required "
                   "values are missing (default: imported as in progress, with a warning).")
@click.option("--all-errors", is_flag=True,
              help=f"List every problem (default: the first {MAX_PROBLEMS_SHOWN}, and how many "
                   "more).")
@click.option("--item-key", "item_key", metavar="FIELD[,FIELD]",
              help="Label Studio: the task data field(s) that identify an item across "
              "per-rater projects (task ids differ there), e.g. edit_id.")
@click.option("--annotator-map", "annotator_map", type=click.Path(path_type=Path,
              dir_okay=False), help="Label Studio: a file naming each user id, as a JSON "
              "object {\"3\": \"kathryn\"} or ID=NAME lines.")
def import_command(project_name, files, fmt, update, annotator, name_pattern, mappings,
                   ignore, clip_spans, accept_incomplete, all_errors, item_key, annotator_map):
    """Import original/simplified pairs, or annotations made elsewhere, into PROJECT.

    \b
    Document pairs: JSONL (one record per line), a JSON array, or CSV with a header row:
      {"id": "d1", "source": "original text", "target": "simplified text",
       "meta": {"system": "gpt-4o", "section": "Methods"}}
    Sentence-aligned input gives a list of pairs instead of source/target:
      {"id": "d2", "sentences": [{"source": "...", "target": "..."}]}

    \b
    Annotations (documents are created when the project does not have them yet):
      --format thresh             a Thresh file, or a folder with one file per annotator
                                  (the file name is the annotator unless the records say)
      --format labelstudio        a Label Studio JSON export (tasks with annotations)
      --format labelstudio-min    a Label Studio JSON-MIN export
      --format infolossqa         a folder with documents.json + questions.json
      --format annotations-jsonl  this tool's own export (annotator export --format jsonl)
      --format annotations-csv    this tool's own CSV export
    Several files or folders (a folder: its files in name order) are ONE import, all or
    nothing; --annotator-from-filename 'batch*-{annotator}.json' names the annotator
    where the format does not. An item re-rated by the same annotator (in a later file, or
    after an earlier import) is refused unless --update keeps the later rating:
      annotator import acc ratings/ --format labelstudio-min --item-key edit_id
        --annotator-from-filename 'batch*-{annotator}.json' --update
    A record that names its item (id, --item-key) is that item; only a record without an
    id (Thresh) joins a document with the same two texts.
    Each annotator gets a completed assignment with their edits, spans, fields, ratings
    and time. People who have no account yet get one that cannot log in (inactive, no
    known password); the command lists them.

    Every key of an annotation record is stored or refused; --ignore FIELD drops one on
    purpose. Spans past the end of their text are refused (--clip-spans clips them). Work
    marked done with required values missing is imported as in progress, with a warning
    (--accept-incomplete keeps it done when the file says done).

    All or nothing: if any record is wrong, nothing is imported and the problems are
    listed as FILE:LINE: field 'NAME': what is wrong (got VALUE); --all-errors lists every
    one.
    """

    for file in files:
        if not file.exists():
            fail(f"{file}: no such file or folder")
    if fmt in ANNOTATION_FORMATS:
        from annotator.interop.records import ImportOptions

        options = ImportOptions(ignore=tuple(ignore), clip_spans=clip_spans,
                                accept_incomplete=accept_incomplete, update=update)
        keys = tuple(k.strip() for k in (item_key or "").split(",") if k.strip())
        _import_annotations(project_name, list(files), fmt, annotator, mappings, options,
                            all_errors, keys,
                            read_annotator_map(annotator_map) if annotator_map else None,
                            name_pattern=name_pattern)
        return
    if len(files) > 1 or name_pattern:
        fail("documents come from one file; several files and --annotator-from-filename "
             "are for annotation formats (--format thresh, labelstudio, ...)")
    file = files[0]
    if file.is_dir():
        fail(f"{file} is a folder; documents come from one file (folders are for "
             "--format thresh or infolossqa)")
    try:
        result = _import_documents(project_name, file, fmt, update)
    except IngestError as exc:
        fail(f"nothing was imported.\n{problem_list(exc, all_errors)}", code=2)
    click.echo(f"imported {result.created} new and {result.updated} updated documents "
               f"into {project_name}")
    if result.prehighlight_job is not None:
        click.echo(f"pre-highlighting queued ({result.prehighlight_chunks} chunk"
                   f"{'' if result.prehighlight_chunks == 1 else 's'} from job "
                   f"{result.prehighlight_job}): each running "
                   "`annotator worker` or `annotator serve` does it; `annotator prehighlight "
                   f"{project_name}` does it now")


def _import_documents(project_name: str, file: Path, fmt: str | None, update: bool):
    """New documents on a SQLite file go the direct way (no SQLAlchemy: start-up is most
    of a small import, issue 44); anything else, or what the direct way declines, through
    the ORM, which migrates, reports and replaces (annotator.ingest.sqlite_import). The
    direct way takes at most one batch (1,000 documents, a fraction of a second) and shows
    no progress bar: tqdm's import alone (it looks up its own version in the installed
    packages' metadata) was a third of such an import's time."""
    from annotator.ingest.sqlite_import import NotDirect, import_documents

    outcome = NotDirect()
    if not update:
        outcome = import_documents(current().database_url, project_name, file, fmt)
    if not isinstance(outcome, NotDirect):
        return outcome
    from annotator.ingest.store import import_file
    from annotator.operations import work

    database = open_database()
    with work.session(database) as session:
        project = project_or_exit(session, project_name)
        with progress_bar("importing") as progress:
            return import_file(session, project, file, fmt, update=update, progress=progress,
                               in_batches=True, records=outcome.records)


def read_annotator_map(path: Path) -> dict[str, str]:
    """``{"3": "kathryn"}`` or ``3=kathryn`` lines -> user id (as text) -> name."""
    from annotator.core import strict_json
    from annotator.core.records import read_text
    from annotator.core.shown import got

    if not path.is_file():
        fail(f"--annotator-map {path}: no such file")
    try:
        text = read_text(path)  # UTF-8 refused byte by byte, with the file named
    except IngestError as exc:
        fail(str(exc), 2)
    if text.lstrip().startswith("{"):
        # The importers' strict reader: NaN, huge integers, NUL, lone surrogates refused.
        try:
            data = strict_json.loads(text)
        except strict_json.StrictJSONError as exc:
            fail(f"{path}: {exc}", 2)
        if not isinstance(data, dict):
            fail(f"{path}: expected one JSON object of user id -> name", 2)
        for key, value in data.items():
            if not isinstance(value, str) or not value.strip() or strict_json.value_problem(
                    value):
                fail(f"{path}: field {key!r}: every user id must map to a name (a "
                     "non-empty string)" + got(value), 2)
        return {str(k): v.strip() for k, v in data.items()}
    found = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        user_id, _, name = line.partition("=")
        if not user_id.strip() or not name.strip():
            fail(f"{path}:{number}: expected ID=NAME, got {line.strip()!r}", 2)
        found[user_id.strip()] = name.strip()
    return found


def problem_list(exc: IngestError, all_errors: bool) -> str:
    """Every problem with --all-errors, else the first ones and how many more there are."""
    problems = exc.problems
    shown = problems if all_errors else problems[:MAX_PROBLEMS_SHOWN]
    lines = [str(p) for p in shown]
    if len(problems) > len(shown):
        lines.append(f"... and {len(problems) - len(shown)} more problems "
                     f"({len(problems)} in all; --all-errors lists every one)")
    return "\n".join(lines)


def _import_annotations(project_name, paths, fmt, annotator, mappings, options, all_errors,
                        item_key=(), annotator_map=None, name_pattern=None):
    from annotator.interop.batches import annotation_files
    from annotator.interop.importing import import_annotation_files
    from annotator.operations import work

    category_map = {}
    for item in mappings:
        category, _, edit_type = item.partition("=")
        if not category or not edit_type:
            fail(f"--map {item!r}: expected CATEGORY=TYPE")
        category_map[category.strip()] = edit_type.strip()
    if annotator and name_pattern:
        fail("--annotator and --annotator-from-filename: give one of them")
    try:
        files, problems = annotation_files(paths, fmt, annotator, name_pattern)
    except ValueError as exc:
        fail(str(exc))
    if problems:
        fail(f"nothing was imported.\n{problem_list(IngestError(problems), all_errors)}",
             code=2)
    database = open_database()
    try:
        with work.session(database) as session:
            project = project_or_exit(session, project_name)
            report = import_annotation_files(session, project, files, fmt,
                                             category_map=category_map, options=options,
                                             item_key=item_key, annotator_map=annotator_map)
    except IngestError as exc:
        fail(f"nothing was imported.\n{problem_list(exc, all_errors)}", code=2)
    click.echo(f"imported {report.records} annotator-document records ({report.edits} edits, "
               f"{report.ratings} ratings) into {project_name}; "
               f"{report.documents_created} documents created"
               + (f" from {len(files)} files" if len(files) > 1 else "")
               + (f"; replaced {len(report.replaced)}" if options.update else ""))
    for line in report.replaced:
        click.echo(f"  replaced: {line}")
    if report.users_created:
        click.echo("created users who cannot log in yet (inactive, no known password): "
                   + ", ".join(report.users_created))
    for note in report.notes:
        click.echo(f"  note: {note}")
    for path, count in report.ignored.items():
        click.echo(f"  ignored (--ignore {path}): {count} values"
                   + ("; no record has this key" if not count else ""))
    for line in report.clipped:
        click.echo(f"  clipped: {line}")
    for line in report.incomplete:
        click.echo(f"  warning: {line}")


@click.command()
@click.argument("project_name", metavar="PROJECT")
@click.option("--annotators", help="Comma-separated user names; default: the project's "
              "annotators, or every annotator if the project has none yet.")
@click.option("--per-document", type=click.IntRange(1, 20),
              help="Annotators per document; default: the project's setting.")
def assign(project_name, annotators, per_document):
    """Give every document of PROJECT to N different annotators, balanced.

    Running it again only tops up documents that have fewer than N annotators (for
    example after a new import); existing assignments are never moved.
    """
    from annotator.annotate.assignment import AssignmentError, assign_documents
    from annotator.operations import work

    database = open_database()
    names = [n.strip() for n in annotators.split(",") if n.strip()] if annotators else None
    try:
        with work.session(database) as session:
            project = project_or_exit(session, project_name)
            summary = assign_documents(session, project, names, per_document=per_document)
    except AssignmentError as exc:
        fail(str(exc))
    click.echo(f"created {summary.created} assignments in {project_name}")
    width = max((len(n) for n in summary.load), default=0)
    for username, count in summary.load.items():
        click.echo(f"  {username:<{width}}  {count} documents")
