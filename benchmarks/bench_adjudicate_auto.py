"""Benchmark: `annotator adjudicate auto` on a three-annotator SALSA-shaped study.

Run:  .venv/bin/python benchmarks/bench_adjudicate_auto.py [--documents 280] [--no-embeddings]

Builds, in a fresh SQLite database under a temporary folder, a study in the shape of the
published SALSA data (Heineman et al. 2023): the sentence pairs and edits of the SALSA
example that Thresh ships (``tests/data/thresh-salsa/salsa.json``, kept with the tests),
cycled to ``--documents`` documents, each annotated by three annotators: the
published annotator's edits, and two more annotators derived from them with a fixed seed
(an edit dropped with probability 0.2, its span end moved by one token with probability
0.3, its subtype changed with probability 0.15, an extra one-token deletion added with
probability 0.2). The project uses the edit-level majority rule (2 of 3, free text
ignored). The command then runs in a child process, as a user runs it, and the benchmark
prints its wall time, its peak resident memory (the child's ``ru_maxrss``), and how many
documents the rules completed (releasable) versus left for the lead. The issue's bound:
280 documents under 10 s and 300 MB with the embedding model loaded once.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUBTYPES = {
    "deletion": ("deletion_type", ["good_deletion", "trivial_deletion", "bad_deletion"],
                 ["source"]),
    "insertion": ("insertion_type", ["elaboration", "trivial_insertion", "repetition",
                                     "contradiction", "facutal_error", "irrelevant"], ["target"]),
    "substitution": ("substitution_info_change", ["same", "less", "more", "different"],
                     ["source", "target"]),
    "reorder": ("reorder_level", ["word_level", "component_level"], ["source", "target"]),
    "structure": ("structure_type", ["voice", "pos", "tense", "grammar_number", "clausal",
                                     "transition"], ["source", "target"]),
}


# Thresh's SALSA example as the tests keep it (tests/data/README.md: source and licence).
SALSA_JSON = Path(__file__).resolve().parents[1] / "tests" / "data" / "thresh-salsa" / "salsa.json"


def salsa_file() -> Path:
    if not SALSA_JSON.is_file():
        sys.exit(f"{SALSA_JSON}: not found (the SALSA example is part of the repository)")
    return SALSA_JSON


def schema_yaml() -> str:
    lines = ["name: salsa-bench", "title: SALSA-shaped benchmark", "unit: sentence",
             "edit_types:"]
    for name, (field, options, sides) in SUBTYPES.items():
        lines += [f"  - name: {name}", f"    sides: [{', '.join(sides)}]", "    fields:",
                  f"      - name: {field}", "        type: choice",
                  "        options: [" + ", ".join(f"{{value: {o}, label: {o}}}"
                                                   for o in options) + "]",
                  "      - {name: comment, type: text}"]
    return "\n".join(lines) + "\n"


def published_edits(record: dict) -> list[dict]:
    """The record's edits as (type, subtype, spans) with a structure edit's constituent
    spans as its own."""
    out = []
    for e in record["edits"]:
        if e["category"] not in SUBTYPES:
            continue
        field = SUBTYPES[e["category"]][0]
        answer = (e.get("annotation") or {}).get(field)
        value = answer.get("val") if isinstance(answer, dict) else answer
        spans = []
        for part in [e] + list(e.get("constituent_edits") or []):
            for side, key in (("source", "input_idx"), ("target", "output_idx")):
                spans += [{"side": side, "start": s, "end": t} for s, t in part.get(key) or []]
        if spans and value in SUBTYPES[e["category"]][1]:
            out.append({"edit_type": e["category"], "fields": {field: value}, "spans": spans})
    return out


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def variant(edits: list[dict], source: str, target: str, rng: random.Random) -> list[dict]:
    """Another annotator's plausible take on the same pair."""
    texts = {"source": source, "target": target}
    out = []
    for e in edits:
        if rng.random() < 0.2:
            continue
        spans = []
        for s in e["spans"]:
            end = s["end"]
            if rng.random() < 0.3:
                later = [b for a, b in _tokens(texts[s["side"]]) if a >= end]
                end = later[0] if later else end
            spans.append({**s, "end": end})
        fields = dict(e["fields"])
        if rng.random() < 0.15:
            name = next(iter(fields))
            fields[name] = rng.choice(SUBTYPES[e["edit_type"]][1])
        out.append({"edit_type": e["edit_type"], "fields": fields, "spans": spans})
    if rng.random() < 0.2 and _tokens(source):
        a, b = rng.choice(_tokens(source))
        out.append({"edit_type": "deletion", "fields": {"deletion_type": "bad_deletion"},
                    "spans": [{"side": "source", "start": a, "end": b}]})
    return out


def build(database_url: str, folder: Path, documents: int) -> None:
    from annotator.annotate.assignment import assign_documents
    from annotator.db import Database
    from annotator.ingest import import_file
    from annotator.models import Assignment, Edit, Span, User
    from annotator.operations import work
    from annotator.study.accounts import create_user
    from annotator.study.projects import create_project
    from annotator.study.queue_marks import document_changed

    records = json.loads(salsa_file().read_text(encoding="utf-8"))
    schema = folder / "salsa-bench.yaml"
    schema.write_text(schema_yaml(), encoding="utf-8")
    rows = [{"id": f"d{i}", "source": records[i % len(records)]["source"],
             "target": records[i % len(records)]["target"]} for i in range(documents)]
    data = folder / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    database = Database(database_url)
    database.upgrade()
    rng = random.Random(0)
    names = ("ann_a", "ann_b", "ann_c")
    with work.session(database) as session:
        for name in names:
            create_user(session, name, "benchmark-password", "annotator")
        project = create_project(session, "salsa", str(schema), annotators_per_doc=3)
        project.settings = {"adjudication": {"edit_rule": "majority", "min_agree": 2}}
        import_file(session, project, data)
        assign_documents(session, project, list(names))
        users = {u.id: u.username for u in session.query(User)}
        for doc in project.documents:
            record = records[int(doc.external_id[1:]) % len(records)]
            base = published_edits(record)
            done = {"ann_a": base, "ann_b": variant(base, doc.source, doc.target, rng),
                    "ann_c": variant(base, doc.source, doc.target, rng)}
            for a in session.query(Assignment).filter_by(document_id=doc.id):
                for e in done[users[a.user_id]]:
                    session.add(Edit(assignment=a, edit_type=e["edit_type"], fields=e["fields"],
                                     spans=[Span(**s) for s in e["spans"]]))
                a.status = "done"
        # Rows written directly (the fastest way to a large study): their entries marked
        # here, as a writer function would, and settled when the block commits.
        document_changed(session, *(doc.id for doc in project.documents))
    database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=280)
    parser.add_argument("--no-embeddings", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'bench.sqlite3'}"
        start = time.perf_counter()
        build(url, folder, args.documents)
        print(f"built {args.documents} documents x 3 annotators in "
              f"{time.perf_counter() - start:.1f} s")
        env = {**os.environ, "ANNOTATOR_DATABASE_URL": url, "HF_HUB_OFFLINE": "1",
               "ANNOTATOR_INSTANCE_PATH": str(folder / "instance")}
        command = [sys.executable, "-m", "annotator", "adjudicate", "auto", "salsa", "--json"]
        if args.no_embeddings:
            command.append("--no-embeddings")
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode:
            sys.exit(done.stderr)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        summary = json.loads(done.stdout)
        print(f"adjudicate auto ({'no embeddings' if args.no_embeddings else 'embeddings'}): "
              f"{elapsed:.2f} s, peak memory {peak_mb:.0f} MB")
        print(f"  {summary['documents']} documents: {summary['completed']} adjudicated by "
              f"the majority rule ({summary['completed'] / max(1, summary['documents']):.0%}), "
              f"{len(summary['left'])} left for the lead; {summary['units_merged']} units "
              f"merged, {summary['units_accepted'] - summary['units_merged']} accepted, "
              f"{summary['units_rejected']} rejected")
        why: dict[str, int] = {}
        for counts in summary["by_type"].values():
            for category, n in counts["why_left"].items():
                why[category] = why.get(category, 0) + n
        print("  units left, by why: " + (", ".join(f"{n} {c}" for c, n in sorted(
            why.items(), key=lambda kv: -kv[1])) or "none"))


if __name__ == "__main__":
    main()
