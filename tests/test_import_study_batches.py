"""The InfoLossQA rating studies (Trienes et al. 2024, CC BY 4.0; tests/data/infolossqa-dev)
imported as they were run: in batches, one Label Studio project per rater per batch, items
spread over the batches and some re-rated in a later batch (the study's analysis keeps the
later rating). Batch by batch with ``--update`` gives the same Randolph kappa per criterion
as one import of the whole study with the later ratings in it."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.db import Database
from annotator.models import Assignment, AuditEvent, Document, Project, Rating, User
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA_CONFIG, INFOLOSSQA_FILES

ITEM_KEY = {"accuracy": "edit_id", "recall": "reference_id,prediction_id"}
RATERS = ("kathryn", "keziah")
BATCHES = 4


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def rows(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def item(study, row):
    return row["edit_id"] if study == "accuracy" else (
        f"{row['reference_id']}/{row['prediction_id']}")


def rerated(study, row, rater):
    """The same item rated again: another option for the first choice criterion answered,
    another annotation id and time, as a later Label Studio batch would export it."""
    schema = load_schema(str(INFOLOSSQA_CONFIG[study]))
    row = dict(row)
    for rating in (r for r in schema.ratings if r.type == "choice"):
        if row.get(rating.name):
            options = rating.option_values()
            row[rating.name] = options[(options.index(row[rating.name]) + 1) % len(options)]
            break
    row["annotation_id"] = row["annotation_id"] + 100000
    row["lead_time"] = row["lead_time"] + 1.5
    return row


def split_study(study, folder: Path, whole: Path):
    """``folder/batch<n>-<rater>.json``: kathryn's items round robin over the batches,
    keziah's in consecutive blocks (so the raters meet on an item in different batches);
    every 9th (kathryn) / 11th (keziah) item is re-rated in a later batch, with another
    answer. ``whole/<rater>.json``: the whole study with the later ratings kept."""
    folder.mkdir()
    whole.mkdir()
    later = {}
    for r, rater in enumerate(RATERS):
        data = rows(INFOLOSSQA_FILES[study][rater])
        batches = [[] for _ in range(BATCHES)]
        final = []
        for i, row in enumerate(data):
            first = i % BATCHES if r == 0 else i * BATCHES // len(data)
            batches[first].append(row)
            if i % (9 if r == 0 else 11) == 2 and first < BATCHES - 1:
                again = rerated(study, row, rater)
                batches[BATCHES - 1 if r == 0 else first + 1].append(again)
                later[(item(study, row), rater)] = again
                final.append(again)
            else:
                final.append(row)
        for n, batch in enumerate(batches, start=1):
            (folder / f"batch{n}-{rater}.json").write_text(json.dumps(batch), encoding="utf-8")
        (whole / f"{rater}.json").write_text(json.dumps(final), encoding="utf-8")
    return later


def kappas(project, study):
    code, out = run("agreement", project, "--json")
    assert code == 0, out
    fields = json.loads(out)["fields"]
    schema = load_schema(str(INFOLOSSQA_CONFIG[study]))
    return {r.name: fields[r.name]["metrics"]["randolph"]["value"]
            for r in schema.ratings if r.type == "choice"}


def randolph(first, second, criterion, k):
    """Randolph (2005) free-marginal kappa of two raters, independently of the tool."""
    pairs = [(first[i][criterion], second[i][criterion]) for i in first
             if first[i].get(criterion) and second.get(i, {}).get(criterion)]
    p_o = sum(a == b for a, b in pairs) / len(pairs)
    return (p_o - 1 / k) / (1 - 1 / k)


@pytest.mark.parametrize("study", ["accuracy", "recall"])
def test_a_study_imported_batch_by_batch_equals_the_whole_study_at_once(env, tmp_path, study):
    later = split_study(study, tmp_path / "batches", tmp_path / "whole")
    assert later  # the split re-rates items, in both raters' batches
    assert {rater for _, rater in later} == set(RATERS)
    config, key = INFOLOSSQA_CONFIG[study], ITEM_KEY[study]

    # The whole study at once, the later ratings in it.
    assert run("project", "create", "whole", "--schema", config)[0] == 0
    code, out = run("import", "whole", tmp_path / "whole" / "kathryn.json",
                    tmp_path / "whole" / "keziah.json", "--format", "labelstudio-min",
                    "--item-key", key, "--annotator-from-filename", "{annotator}.json")
    assert code == 0, out
    at_once = kappas("whole", study)

    # Batch by batch, as the study ran: batch 1 of both raters, then batch 2, ...
    assert run("project", "create", study, "--schema", config)[0] == 0
    replaced = 0
    for n in range(1, BATCHES + 1):
        code, out = run("import", study, *sorted((tmp_path / "batches").glob(f"batch{n}-*")),
                        "--format", "labelstudio-min", "--item-key", key,
                        "--annotator-from-filename", "batch*-{annotator}.json", "--update")
        assert code == 0, out
        replaced += out.count("  replaced: ")
    assert replaced == len(later)
    by_batch = kappas(study, study)
    assert by_batch == pytest.approx(at_once, abs=1e-12)

    # All batches in one import, the raters' files in the other order (keziah's batch
    # files first, then kathryn's): an item's later rating is the one of the later batch
    # of the same rater, so the order between raters does not matter.
    assert run("project", "create", "reversed", "--schema", config)[0] == 0
    files = sorted((tmp_path / "batches").iterdir(), key=lambda f: (
        f.name.split("-")[1] != "keziah.json", f.name))
    code, out = run("import", "reversed", *files, "--format", "labelstudio-min",
                    "--item-key", key, "--annotator-from-filename", "batch*-{annotator}.json",
                    "--update")
    assert code == 0, out
    assert out.count("  replaced: ") == len(later)
    assert kappas("reversed", study) == pytest.approx(at_once, abs=1e-12)

    # ... and both equal an independent computation on the final ratings.
    schema = load_schema(str(config))
    first, second = ({item(study, r): r for r in rows(tmp_path / "whole" / f"{rater}.json")}
                     for rater in RATERS)
    for criterion, value in by_batch.items():
        k = len(schema.rating(criterion).options)
        assert value == pytest.approx(randolph(first, second, criterion, k), abs=1e-9)

    with Database(env["ANNOTATOR_DATABASE_URL"]).session() as session:
        project = session.scalar(select(Project).where(Project.name == study))
        # Every item is one document, although many items share one abstract.
        assert session.scalar(select(func.count()).select_from(Document).where(
            Document.project_id == project.id)) == len(rows(INFOLOSSQA_FILES[study]["kathryn"]))
        # The later rating is the one stored, the earlier one is in the audit trail.
        (doc_id, rater), row = next(iter(later.items()))
        stored = {g.field: g.value for g in session.scalars(
            select(Rating).join(Assignment).join(Document).join(User).where(
                Document.project_id == project.id, Document.external_id == doc_id,
                User.username == rater))}
        answers = {r.name for r in schema.ratings}
        assert stored == {k: v for k, v in row.items() if k in answers}
        events = session.scalars(select(AuditEvent).where(
            AuditEvent.action == "annotations.replaced",
            AuditEvent.project_id == project.id)).all()
        assert len(events) == len(later)
        assert all(e.details["ratings"] for e in events)


def test_a_rerated_item_is_refused_without_update_naming_it(env, tmp_path):
    split_study("accuracy", tmp_path / "batches", tmp_path / "whole")
    assert run("project", "create", "acc", "--schema", INFOLOSSQA_CONFIG["accuracy"])[0] == 0
    batches = sorted((tmp_path / "batches").glob("batch*-kathryn.json"))
    args = ("--format", "labelstudio-min", "--item-key", "edit_id",
            "--annotator-from-filename", "batch*-{annotator}.json")
    for path in batches[:-1]:  # kathryn re-rates only in the last batch
        code, out = run("import", "acc", path, *args)
        assert code == 0, out
    code, out = run("import", "acc", batches[-1], *args)
    assert code == 2
    assert "already has annotations on document" in out and "--update" in out
    assert f"{batches[-1]}:" in out
    # All or nothing: the last batch's new items are not in the project either.
    with Database(env["ANNOTATOR_DATABASE_URL"]).session() as session:
        assert session.scalar(select(func.count()).select_from(Document)) == sum(
            len(rows(p)) for p in batches[:-1])

    # The whole study in one import (a folder, in name order): the re-rating inside the
    # import is refused the same way, and kept with --update.
    code, out = run("project", "create", "acc2", "--schema", INFOLOSSQA_CONFIG["accuracy"])
    code, out = run("import", "acc2", tmp_path / "batches", *args)
    assert code == 2 and "appears twice (first on " in out and "--update" in out
    code, out = run("import", "acc2", tmp_path / "batches", *args, "--update")
    assert code == 0, out
    assert "from 8 files" in out and "replaced" in out


def test_a_file_name_the_pattern_does_not_match_is_refused(env, tmp_path):
    split_study("recall", tmp_path / "batches", tmp_path / "whole")
    assert run("project", "create", "rec", "--schema", INFOLOSSQA_CONFIG["recall"])[0] == 0
    (tmp_path / "batches" / "notes-kathryn.json").write_text("[]", encoding="utf-8")
    code, out = run("import", "rec", tmp_path / "batches", "--format", "labelstudio-min",
                    "--item-key", ITEM_KEY["recall"], "--annotator-from-filename",
                    "batch*-{annotator}.json")
    assert code == 2
    assert "notes-kathryn.json: the file name does not match --annotator-from-filename" in out
    code, out = run("import", "rec", tmp_path / "batches", "--format", "labelstudio-min",
                    "--annotator-from-filename", "batch-*.json")
    assert code != 0 and "{annotator} once" in out
