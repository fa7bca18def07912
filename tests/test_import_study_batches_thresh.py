"""The InfoLossQA span study (Trienes et al. 2024, CC BY 4.0; tests/data/infolossqa-dev:
one Thresh export per annotator and document) imported as a study is run: each annotator's
documents spread over batch folders, one annotator joining late, some documents re-annotated
in a later batch (a first version without its last edit, then the published one). Batch by
batch with ``--update`` gives the same project as the published files at once: the same
span agreement (the README's reference figures) and the same files back. The same for this
tool's own JSONL, in one import or batch by batch."""

import json
import shutil
from collections import Counter

import pytest
from click.testing import CliRunner

from annotator.cli import main
from tests.helpers import INFOLOSSQA

SCHEMA = INFOLOSSQA / "config" / "thresh.yml"
ANNOTATORS = ("karim", "kathryn", "keziah")
PATTERN = "annotations-{annotator}/*.json"
BATCHES = 3


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def draft(path):
    """An earlier version of a published record: its last edit not made yet, less time."""
    records = json.loads(path.read_text(encoding="utf-8"))
    for record in records:
        record["edits"] = record["edits"][:-1]
        record["_seconds_spent"] = record.get("_seconds_spent", 0) // 2
    return json.dumps(records)


def split(root):
    """``batch<n>/annotations-<name>/``: karim round robin over the batches, kathryn in
    blocks, keziah (late) only in the last two; every 6th document of a batch after the first
    has a draft in the batch before. Returns how many documents are re-annotated."""
    rerated = 0
    for a, name in enumerate(ANNOTATORS):
        files = sorted((INFOLOSSQA / "annotations" / f"annotations-{name}").glob("*.json"))
        for i, path in enumerate(files):
            n = [i % BATCHES, i * BATCHES // len(files), 1 + i % 2][a] + 1
            folder = root / f"batch{n}" / f"annotations-{name}"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / path.name)
            if n > 1 and i % 6 == 0:
                earlier = root / f"batch{n - 1}" / f"annotations-{name}"
                earlier.mkdir(parents=True, exist_ok=True)
                (earlier / path.name).write_text(draft(path), encoding="utf-8")
                rerated += 1
    return rerated


def spans(project):
    report = json.loads(run("agreement", project, "--json", "--no-embeddings",
                            "--bootstrap", "0"))
    return report["spans"]


def by_annotator(folder):
    out = {}
    for path in sorted(folder.glob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            out[(path.stem, record["id"])] = record
    return out


@pytest.fixture
def projects(env, tmp_path):
    """``whole``: the published folders in one import; ``batches``: batch by batch."""
    rerated = split(tmp_path / "split")
    assert rerated >= 10
    run("project", "create", "whole", "--schema", SCHEMA)
    out = run("import", "whole", *[INFOLOSSQA / "annotations" / f"annotations-{name}"
                                   for name in ANNOTATORS],
              "--format", "thresh", "--annotator-from-filename", PATTERN)
    assert "imported 136 annotator-document records" in out
    run("project", "create", "batches", "--schema", SCHEMA)
    replaced = 0
    for n in range(1, BATCHES + 1):
        out = run("import", "batches", *sorted((tmp_path / "split" / f"batch{n}").iterdir()),
                  "--format", "thresh", "--annotator-from-filename", PATTERN, "--update")
        replaced += out.count("  replaced: ")
    assert replaced == rerated
    return tmp_path


def test_thresh_batches_with_a_late_annotator_equal_the_published_files(projects):
    assert spans("batches") == spans("whole")
    source = spans("batches")["source"]["exact"]
    # tests/data/infolossqa-dev/README.md: exact F1 macro with every evidence span.
    assert round(source["macro"]["value"], 4) == 0.1599
    run("export", "batches", "--format", "thresh", "--out", projects / "out")
    run("export", "whole", "--format", "thresh", "--out", projects / "out-whole")
    exported = by_annotator(projects / "out")
    assert exported == by_annotator(projects / "out-whole")
    for (name, doc_id), record in exported.items():
        published = INFOLOSSQA / "annotations" / f"annotations-{name}" / (
            f"{doc_id}-annotations.json")
        assert [record] == json.loads(published.read_text(encoding="utf-8"))


def test_own_jsonl_in_batches_equals_one_import(projects):
    tmp_path = projects
    run("export", "whole", "--format", "jsonl", "--out", tmp_path / "whole.jsonl")
    lines = (tmp_path / "whole.jsonl").read_text(encoding="utf-8").splitlines()
    batches = [[] for _ in range(BATCHES)]
    for i, line in enumerate(lines):
        batches[i % BATCHES].append(line)
        if i % 5 == 1:  # a first version in the batch before (wrapping: batch 3 -> 1)
            record = json.loads(line)
            record["edits"], record["status"] = record["edits"][:-1], "in_progress"
            batches[(i % BATCHES) - 1 if i % BATCHES else 0].insert(0, json.dumps(record))
    paths = []
    for n, batch in enumerate(batches, start=1):
        paths.append(tmp_path / f"jsonl-batch{n}.jsonl")
        paths[-1].write_text("\n".join(batch) + "\n", encoding="utf-8")

    def exported(project):
        run("export", project, "--format", "jsonl", "--out", tmp_path / f"{project}.jsonl")
        return Counter((tmp_path / f"{project}.jsonl").read_text(encoding="utf-8")
                       .splitlines())

    run("project", "create", "one", "--schema", SCHEMA)
    run("import", "one", *paths, "--format", "annotations-jsonl", "--update")
    run("project", "create", "steps", "--schema", SCHEMA)
    for path in paths:
        run("import", "steps", path, "--format", "annotations-jsonl", "--update")
    assert exported("one") == exported("steps") == Counter(lines)
