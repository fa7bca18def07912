"""A real Label Studio study brought in: the InfoLossQA rating studies (Trienes et al. 2024,
CC BY 4.0; tests/data/infolossqa-dev), their labeling configs as schemas, both raters'
JSON-MIN exports of batch 1, Randolph's kappa per criterion, and the way back out."""

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.db import Database
from annotator.interop.labelstudio_layout import ANNOTATION_KEYS
from annotator.models import Assignment, Document, Project, Rating, User
from annotator.schemas.files import load_schema
from tests.helpers import INFOLOSSQA, INFOLOSSQA_CONFIG, INFOLOSSQA_FILES

STUDY, CONFIG, FILES = INFOLOSSQA, INFOLOSSQA_CONFIG, INFOLOSSQA_FILES
ITEM_KEY = {"accuracy": "edit_id", "recall": "reference_id,prediction_id"}


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def rows(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def test_the_two_configs_read_as_schemas_with_their_own_names_and_aliases():
    accuracy = load_schema(str(CONFIG["accuracy"]))
    assert {e.name: e.sides for e in accuracy.edit_types} == {
        "concept_missing": ("target",), "omission": ("source",),
        "concept": ("source", "target")}
    assert accuracy.edit_type("concept_missing").label == "concept (missing)"
    phrasing = accuracy.rating("givenness_phrasing", "document")
    assert phrasing.required and phrasing.option_values() == [
        "givenness_phrasing_1", "givenness_phrasing_2"]
    assert phrasing.options[1].label.startswith("Bad (e.g., new concepts")
    assert accuracy.rating("givenness_phrasing_rationale").type == "text"
    assert len([r for r in accuracy.ratings if r.type == "choice"]) == 9
    assert (accuracy.labelstudio["source"], accuracy.labelstudio["target"]) == (
        "source", "target")
    recall = load_schema(str(CONFIG["recall"]))
    assert recall.rating("rating").option_values() == ["aligned", "partial", "not_aligned"]
    # No <Text> is called source/target and no <Labels> says which: the first two texts.
    assert (recall.labelstudio["source"], recall.labelstudio["target"]) == (
        "reference_answer", "predicted_answer")


@pytest.fixture(scope="module")
def study(module_database_url, tmp_path_factory):
    """Both studies imported through the command line, as docs/interop.md shows. Built
    once for the module: its tests only read them (agreement, export to files)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANNOTATOR_DATABASE_URL", module_database_url)
        env.setenv("ANNOTATOR_INSTANCE_PATH", str(tmp_path_factory.mktemp("instance")))
        for name in ("accuracy", "recall"):
            code, out = run("project", "create", name, "--schema", CONFIG[name])
            assert code == 0, out
            for rater, path in FILES[name].items():
                code, out = run("import", name, path, "--format", "labelstudio-min",
                                "--item-key", ITEM_KEY[name], "--annotator", rater)
                assert code == 0, out
        database = Database(module_database_url)
        yield database
        database.dispose()


def test_both_raters_meet_on_every_item_with_every_answer_stored(study):
    with study.session() as session:
        for name in ("accuracy", "recall"):
            project = session.scalar(select(Project).where(Project.name == name))
            documents = session.scalars(select(Document).where(
                Document.project_id == project.id)).all()
            assert len(documents) == len(rows(FILES[name]["kathryn"]))
            per_doc = Counter(a.document_id for a in session.scalars(
                select(Assignment).join(Document).where(Document.project_id == project.id)))
            assert set(per_doc.values()) == {2}  # both raters on every item
            schema = load_schema(str(CONFIG[name]))
            answers = {r.name for r in schema.ratings}
            for rater, path in FILES[name].items():
                user = session.scalar(select(User).where(User.username == rater))
                for row in rows(path):
                    doc_id = row["edit_id"] if name == "accuracy" else \
                        f"{row['reference_id']}/{row['prediction_id']}"
                    a = session.scalar(select(Assignment).join(Document).where(
                        Document.project_id == project.id, Document.external_id == doc_id,
                        Assignment.user_id == user.id))
                    stored = {g.field: g.value for g in a.ratings}
                    assert stored == {k: v for k, v in row.items() if k in answers}
                    assert a.seconds_spent == pytest.approx(row["lead_time"])
                    assert a.status == "done"
                    assert a.meta["labelstudio"]["annotation_id"] == row["annotation_id"]
                    assert a.meta["labelstudio"]["annotator"] == row["annotator"]
        # Rationales are stored too (kathryn wrote 65 jargon rationales in batch 1).
        assert session.scalar(select(func.count()).select_from(Rating).join(Assignment).join(
            User).where(User.username == "kathryn",
                        Rating.field == "simplicity_jargon_rationale")) == 65


def randolph(pairs: list[tuple[str, str]], k: int) -> float:
    """Randolph (2005) free-marginal kappa for two raters: P_o = share of items where they
    agree, P_e = 1/k with k the number of categories offered."""
    p_o = sum(a == b for a, b in pairs) / len(pairs)
    return (p_o - 1 / k) / (1 - 1 / k)


def test_randolph_kappa_per_criterion_matches_an_independent_computation(study):
    for name in ("accuracy", "recall"):
        code, out = run("agreement", name, "--json")
        assert code == 0, out
        report = json.loads(out)
        schema = load_schema(str(CONFIG[name]))
        first, second = (rows(FILES[name][r]) for r in ("kathryn", "keziah"))
        key = (lambda r: r["edit_id"]) if name == "accuracy" else (
            lambda r: (r["reference_id"], r["prediction_id"]))
        other = {key(r): r for r in second}
        checked = 0
        for criterion in (r for r in schema.ratings if r.type == "choice"):
            pairs = [(r[criterion.name], other[key(r)][criterion.name]) for r in first
                     if r.get(criterion.name) and other[key(r)].get(criterion.name)]
            expected = randolph(pairs, len(criterion.options))
            got = report["fields"][criterion.name]["metrics"]["randolph"]["value"]
            assert got == pytest.approx(expected, abs=1e-9), criterion.name
            checked += 1
        assert checked == (9 if name == "accuracy" else 1)


def test_label_studio_to_us_to_label_studio_is_lossless(study, tmp_path):
    for name in ("accuracy", "recall"):
        code, out = run("export", name, "--format", "labelstudio-min", "--out",
                        tmp_path / name)
        assert code == 0, out
        for rater, path in FILES[name].items():
            original = {r["id"]: r for r in rows(path)}
            written = {r["id"]: r for r in rows(tmp_path / name / f"{rater}.json")}
            assert written == original


def test_a_snapshot_with_unannotated_tasks_imports_them_without_work(env, tmp_path):
    snapshot = rows(FILES["accuracy"]["kathryn"])[:10]
    controls = {r.name for r in load_schema(str(CONFIG["accuracy"])).ratings} | {
        "source_label", "target_label", "target_label_missing"}
    for row in snapshot[6:]:  # not started yet: Label Studio writes the task data only
        for k in list(row):
            if k in controls or (k in ANNOTATION_KEYS and k != "id"):
                del row[k]
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    assert run("project", "create", "acc", "--schema", CONFIG["accuracy"])[0] == 0
    code, out = run("import", "acc", path, "--format", "labelstudio-min", "--item-key",
                    "edit_id", "--annotator", "kathryn")
    assert code == 0, out
    assert "imported 6 annotator-document records" in out and "10 documents created" in out
    assert "4 task(s) without annotations" in out


def test_raters_named_by_a_user_id_map_or_refused_when_nobody_is_named(env, tmp_path):
    assert run("project", "create", "acc", "--schema", CONFIG["accuracy"])[0] == 0
    code, out = run("import", "acc", FILES["accuracy"]["kathryn"], "--format",
                    "labelstudio-min", "--item-key", "edit_id")
    assert code == 2 and "field 'annotator': Label Studio user 3 names nobody" in out
    mapping = tmp_path / "raters.txt"
    mapping.write_text("# Label Studio user id = name\n3=kathryn\n4=keziah\n")
    for rater in ("kathryn", "keziah"):
        code, out = run("import", "acc", FILES["accuracy"][rater], "--format",
                        "labelstudio-min", "--item-key", "edit_id", "--annotator-map",
                        mapping)
        assert code == 0, out
    db = Database(env["ANNOTATOR_DATABASE_URL"])
    with db.session() as session:
        names = session.scalars(select(User.username).join(Assignment).distinct()).all()
    assert sorted(names) == ["kathryn", "keziah"]
