"""Done-when checks on real, published study files (read-only; see tests/data/*/README.md).

- InfoLossQA development data (Trienes et al. 2024, CC BY 4.0): 68 documents, one Thresh
  export per annotator and document, three annotators, two per document. It imports as it
  is into the built-in ``infolossqa`` schema and into a project made from the authors' own
  typology (``config/thresh.yml``); ``annotator agreement --json`` then gives the README's
  reference span figures, and Thresh -> us -> Thresh gives the files back unchanged.
- Thresh's SALSA example (Heineman et al. 2023, Apache-2.0): 50 records by 4 annotators
  with nested answers, composite ``structure`` edits and no record ids, imported into a
  project made from its typology ``salsa.yml`` and exported back identical.

Record order is not meaningful in Thresh (our export writes one file per annotator in the
project's document order, the SALSA example is one file for all; Thresh's own position,
``_thresh_id``, is kept where a file has it), so records are compared as a multiset, per
annotator. Edit order within a record, span order within an edit and every value are
compared exactly; key order inside a JSON object is not meaningful (objects are compared as
objects).
"""

import json
from collections import Counter

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.config import Config
from annotator.db import Database
from annotator.models import Assignment, Edit, User
from tests.helpers import INFOLOSSQA, SALSA

ANNOTATORS = ("karim", "kathryn", "keziah")
# tests/data/infolossqa-dev/README.md, "Reference figures for these 68 documents".
REFERENCE = {
    "first": {"exact": (0.1923, 0.1464, 0.1694), "partial": (0.3590, 0.3473, 0.3531),
              "alpha": 0.5359},
    "all": {"exact": (0.1875, 0.1323, 0.1599), "partial": (0.3500, 0.3327, 0.3414),
            "alpha": 0.5242},
}


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def canonical(record) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def original_infolossqa() -> dict[tuple[str, int], dict]:
    records = {}
    for name in ANNOTATORS:
        for path in sorted((INFOLOSSQA / "annotations" / f"annotations-{name}").glob("*.json")):
            for record in json.loads(path.read_text(encoding="utf-8")):
                records[(name, record["id"])] = record
    return records


def test_shared_data_is_found_beside_the_repository():
    assert (INFOLOSSQA / "README.md").is_file() and (SALSA / "salsa.json").is_file()


@pytest.mark.parametrize("schema, labels", [
    ("infolossqa", ("deletion", "oversimplification")),
    (str(INFOLOSSQA / "config" / "thresh.yml"), ("omission", "concept")),
])
def test_infolossqa_dev_imports_as_it_is_and_gives_the_reference_figures(env, tmp_path, schema,
                                                                        labels):
    run("project", "create", "ilq", "--schema", schema)
    for name in ANNOTATORS:
        out = run("import", "ilq", INFOLOSSQA / "annotations" / f"annotations-{name}",
                  "--format", "thresh", "--annotator", name)
        assert "nothing was imported" not in out and "warning" not in out
    originals = original_infolossqa()
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        assert session.scalar(select(func.count(Assignment.id))) == len(originals) == 136
        assert session.scalar(select(func.count(Edit.id))) == 652
        # The authors' document-level comments (no spans) are kept as edits of their own.
        assert session.scalar(select(func.count(Edit.id)).where(
            Edit.edit_type == "comment")) == 18
        seconds = session.scalar(select(func.sum(Assignment.seconds_spent)))
        assert seconds == sum(r.get("_seconds_spent", 0) for r in originals.values())
    database.dispose()

    for mode, flags in (("all", ()), ("first", ("--first-span-only",))):
        report = json.loads(run("agreement", "ilq", "--json", "--no-embeddings",
                                "--bootstrap", "0", *flags))
        assert report["counts"]["documents_with_2plus_annotators"] == 68
        source = report["spans"]["source"]
        for kind in ("exact", "partial"):
            got = [source[kind]["per_label"][label]["value"] for label in labels]
            got.append(source[kind]["macro"]["value"])
            assert [round(v, 4) for v in got] == list(REFERENCE[mode][kind]), (mode, kind)
        # Sentence alpha depends on the sentence splitter: ours (annotator.align.text, which
        # keeps "vs." and "i.e." inside a sentence) gives 0.5265 / 0.5333; NLTK's untrained
        # Punkt, the README's convention, gives its figures exactly.
        alpha = source["sentence_alpha"]["binary"]["value"]
        assert round(alpha, 4) == {"all": 0.5265, "first": 0.5333}[mode]
        punkt = json.loads(run("agreement", "ilq", "--json", "--no-embeddings",
                               "--bootstrap", "0", "--sentences", "punkt", *flags))
        alpha = punkt["spans"]["source"]["sentence_alpha"]["binary"]["value"]
        assert round(alpha, 4) == REFERENCE[mode]["alpha"]

    # Thresh -> us -> Thresh: every record back as the authors' files have it.
    run("export", "ilq", "--format", "thresh", "--out", tmp_path / "out")
    exported = {}
    for name in ANNOTATORS:
        for record in json.loads((tmp_path / "out" / f"{name}.json").read_text()):
            exported[(name, record["id"])] = record
    assert exported.keys() == originals.keys()
    changed = [key for key in originals if originals[key] != exported[key]]
    assert changed == []


def test_salsa_example_imports_as_published_and_exports_back_identical(env, tmp_path):
    run("project", "create", "salsa", "--schema", SALSA / "salsa.yml")
    out = run("import", "salsa", SALSA / "salsa.json", "--format", "thresh")
    assert "imported 50 annotator-document records (415 edits, 0 ratings)" in out
    assert "48 documents created" in out  # records without id meet on their texts
    published = json.loads((SALSA / "salsa.json").read_text(encoding="utf-8"))
    database = Database(Config.from_env().database_url)
    with database.session() as session:
        users = session.scalars(select(User.username).order_by(User.username)).all()
        assert users == ["annotator_0", "annotator_1", "annotator_2", "annotator_3"]
        composites = session.scalars(select(Edit).where(Edit.edit_type == "structure")).all()
        assert len(composites) == 56 and all(not e.spans for e in composites)
        constituents = session.scalars(select(Edit).where(Edit.parent_id.is_not(None))).all()
        assert len(constituents) == 96 and all(e.spans for e in constituents)
        assert Counter(e.edit_type for e in constituents) == Counter(
            substitution=54, deletion=17, reorder=14, insertion=11)
        first = session.scalar(select(Edit).where(Edit.edit_type == "deletion")
                               .order_by(Edit.id))
        # Nested answers stored flat; the edit's own id kept.
        assert first.fields == {"deletion_type": "good_deletion",
                                "deletion_type.good_deletion": "a lot",
                                "coreference": "no", "grammar_error": "no"}
        assert first.meta["thresh"]["id"] == 1
        meta = session.scalar(select(Assignment.meta).order_by(Assignment.id))
        assert meta["thresh"]["metadata"] == published[0]["metadata"]
    database.dispose()

    run("export", "salsa", "--format", "thresh", "--out", tmp_path / "out")
    exported = []
    for path in sorted((tmp_path / "out").glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        mine = [r for r in published if r["metadata"]["annotator"] == path.stem]
        assert Counter(map(canonical, records)) == Counter(map(canonical, mine))
        exported += records
    assert Counter(map(canonical, exported)) == Counter(map(canonical, published))


def test_schema_show_prints_what_the_salsa_typology_says():
    out = run("schema", "show", SALSA / "salsa.yml")
    assert out.startswith("Thresh typology: salsa")
    assert "  structure (Structure): document-level (no spans), composite" in out
    assert "  substitution (Substitution): original + simplification, several spans" in out
    # Unquoted yes/no options stay the strings Thresh writes, never booleans.
    assert "insertion_type.trivial_insertion: choice ['yes', 'no']  (asked when " \
           "insertion_type is 'trivial_insertion')" in out
    assert "True" not in out
