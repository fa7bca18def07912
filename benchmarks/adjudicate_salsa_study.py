"""Measure the automatic adjudication on a three-annotator SALSA-shaped study (issue 42).

Run:  PYTHONPATH=. .venv/bin/python benchmarks/adjudicate_salsa_study.py [--records 50]
      [--span-merge majority_tokens]

Builds, in a fresh SQLite database, a study from the SALSA example that Thresh ships
(Heineman et al. 2023, Apache-2.0: ``thresh-salsa/salsa.json`` under the test data folder
``tests.helpers.SALSA``, tests/data) with three annotators per record. Each published edit is
given one *shape*, in turn:

- ``same``: all three mark the published edit;
- ``granularity``: ann_a marks it as published, ann_b as two edits (split at the middle
  token of each side), ann_c as one wider edit (a token more on each end);
- ``wider, one skips``: ann_a as published, ann_b wider, ann_c nothing;
- ``split, one skips``: ann_a as published, ann_b split, ann_c nothing;
- ``one marks``: ann_a alone.

Composites (structure, split) in turn: marked by all three, by two (ann_c skips), by one.
The reference adjudication is what the shapes make true: every change marked by two or
three annotators is one gold edit of the published type on the published tokens (a
composite: with its published constituents); a change marked by one is not in the gold.

The project uses the majority rule (2 of 3, SALSA's nested answers compared along their
path). The script runs ``annotator adjudicate auto --json`` and prints: the share of
documents the rules completed, the units left per category, the number of untrue reasons
(every automatic decision's note and every left unit's reason checked against the stored
edits by :func:`untrue_reasons`; must be 0), and per edit type the precision and recall of
the gold against the reference (a gold edit matches when its type and its tokens on each
side are the reference's).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANNOTATORS = ("ann_a", "ann_b", "ann_c")
SHAPES = ("same", "granularity", "wider, one skips", "split, one skips", "one marks")
COMPOSITE_SHAPES = ("all three", "two", "one")


def salsa_dir() -> Path:
    from tests.helpers import SALSA  # the example as the tests keep it (tests/data)

    return SALSA


# ---------------------------------------------------------------- the study


def _tokens(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def _inside(spans, text):
    """The tokens (start, end) of ``text`` within the character spans."""
    return [t for t in _tokens(text) if any(s <= t[0] and t[1] <= e for s, e in spans)]


def _split(spans, text):
    """Two halves of ``spans`` on one side at the middle token (None: one token only)."""
    tokens = _inside(spans, text)
    if len(tokens) < 2:
        return None
    middle = len(tokens) // 2
    first, second = tokens[:middle], tokens[middle:]
    return [[first[0][0], first[-1][1]]], [[second[0][0], second[-1][1]]]


def _wider(spans, text):
    """``spans`` widened by one token on each end, where the text has one."""
    tokens = _tokens(text)
    out = []
    for s, e in spans:
        before = [t for t in tokens if t[1] <= s]
        after = [t for t in tokens if t[0] >= e]
        out.append([before[-1][0] if before else s, after[0][1] if after else e])
    return out


def shaped(edit: dict, shape: str, record: dict) -> dict[str, list[dict]]:
    """Each annotator's edits for one published (plain) edit under ``shape``."""
    texts = {"input_idx": record["source"], "output_idx": record["target"]}
    sides = [k for k in texts if edit.get(k)]
    wide = copy.deepcopy(edit)
    for k in sides:
        wide[k] = _wider(edit[k], texts[k])
    halves = [copy.deepcopy(edit), copy.deepcopy(edit)]
    for k in sides:
        parts = _split(edit[k], texts[k])
        if parts is None:
            halves = [copy.deepcopy(edit)]
            break
        halves[0][k], halves[1][k] = parts
    split = halves if len(halves) == 2 else [copy.deepcopy(edit)]
    same = copy.deepcopy(edit)
    return {"same": {"ann_a": [edit], "ann_b": [same], "ann_c": [copy.deepcopy(edit)]},
            "granularity": {"ann_a": [edit], "ann_b": split, "ann_c": [wide]},
            "wider, one skips": {"ann_a": [edit], "ann_b": [wide], "ann_c": []},
            "split, one skips": {"ann_a": [edit], "ann_b": split, "ann_c": []},
            "one marks": {"ann_a": [edit], "ann_b": [], "ann_c": []}}[shape]


def study(published: list[dict]) -> tuple[list[dict], dict]:
    """(Thresh rows of the three annotators, reference: record id -> list of
    {type, source, target (token start offsets), constituents}, plus the shapes used)."""
    rows, reference = [], {}
    plain_count = composite_count = 0
    for n, record in enumerate(published):
        rid = f"s{n}"
        per: dict[str, list[dict]] = {a: [] for a in ANNOTATORS}
        expected = []
        for edit in record["edits"]:
            if edit.get("constituent_edits"):
                shape = COMPOSITE_SHAPES[composite_count % len(COMPOSITE_SHAPES)]
                composite_count += 1
                markers = {"all three": ANNOTATORS, "two": ANNOTATORS[:2],
                           "one": ANNOTATORS[:1]}[shape]
                for a in markers:
                    per[a].append(copy.deepcopy(edit))
                if len(markers) >= 2:
                    expected.append(_reference_item(edit, record, shape))
                continue
            shape = SHAPES[plain_count % len(SHAPES)]
            plain_count += 1
            for a, edits in shaped(edit, shape, record).items():
                per[a] += edits
            if shape != "one marks":
                expected.append(_reference_item(edit, record, shape))
        for a in ANNOTATORS:
            row = {k: copy.deepcopy(v) for k, v in record.items() if k != "edits"}
            row["id"], row["metadata"] = rid, {**record.get("metadata", {}), "annotator": a}
            row["edits"] = per[a]
            rows.append(row)
        reference[rid] = expected
    return rows, reference


def token_set(spans, text) -> frozenset:
    return frozenset(t[0] for t in _inside(spans, text))


def _reference_item(edit: dict, record: dict, shape: str) -> dict:
    parts = [(c["category"], token_set(c.get("input_idx") or [], record["source"]),
              token_set(c.get("output_idx") or [], record["target"]))
             for c in edit.get("constituent_edits") or []]
    return {"type": edit["category"], "shape": shape,
            "source": token_set(edit.get("input_idx") or [], record["source"]),
            "target": token_set(edit.get("output_idx") or [], record["target"]),
            "constituents": tuple(sorted(parts, key=repr))}


# ---------------------------------------------------------------- reasons checked


def _names(text: str) -> list[str]:
    return [n.strip() for n in re.split(r",\s*|\s+and\s+", text) if n.strip()]


def _touch(a, b, source, target) -> bool:
    for side, text in (("source", source), ("target", target)):
        ta = {t for s, x, y in a if s == side for t in _inside([(x, y)], text)}
        tb = {t for s, x, y in b if s == side for t in _inside([(x, y)], text)}
        if ta & tb:
            return True
    return False


def untrue_reasons(document, edits: list, reason: str, unit_ids: list[int]) -> list[str]:
    """The claims of ``reason`` about one unit (``unit_ids``) that the stored ``edits`` of
    the document (:class:`annotator.models.Edit`) contradict. Checked claims:
    "<names> marked no edit overlapping it" / "marked no edit overlapping it (<names>)",
    "marked no <type> overlapping it (<names>)", "<names> marked no <type> matching it",
    "N of M annotators marked <type> here (<names>...)", "only <name> (...) marked it",
    "N of M annotators marked the same <type> with the same constituents (<names>)",
    and every "<name> (<type>, <type> as K edits)": what that annotator has in the unit."""
    who = {e.id: e.assignment.user.username for e in edits}
    everyone = {e.assignment.user.username for e in edits} | {
        a.user.username for a in document.assignments}
    spans = {e.id: [(s.side, s.start, s.end) for s in e.spans] for e in edits}
    unit = [e for e in edits if e.id in set(unit_ids)]
    unit_spans = [s for e in unit for s in spans[e.id]]
    bad = []
    silent = re.findall(r"marked no edit overlapping it \(([^)]*)\)", reason)
    silent += re.findall(r"; ([\w, ]+?) marked no edit overlapping it", reason)
    for name in (n for group in silent for n in _names(group)):
        mine = [e for e in edits if who[e.id] == name]
        if any(_touch(spans[e.id], unit_spans, document.source, document.target)
               for e in mine):
            bad.append(f"{name} is said to have marked nothing overlapping, but did")
    for count, total, edit_type, listed in re.findall(
            r"(\d+) of (\d+) annotators marked (?:the same )?(\w+) (?:here|with the same "
            r"constituents) \(([^;]*)", reason):
        # "ann_a (deletion), ann_b (deletion as 2 edits)" or "ann_a and ann_b)"
        named = (re.findall(r"(\w+) \(", listed) if re.match(r"\w+ \(", listed)
                 else _names(listed.split(")")[0]))
        if int(total) != len(everyone):
            bad.append(f"{total} annotators said, {len(everyone)} assigned")
        if int(count) != len(named):
            bad.append(f"{count} annotators said, {len(named)} named")
        for name in named:
            if not any(who[e.id] == name and e.edit_type == edit_type for e in unit):
                bad.append(f"{name} is said to have marked {edit_type} in the unit")
    for listed, edit_type in re.findall(r"; ([\w, ]+?) marked no (\w+) matching it", reason):
        mine = [e for e in edits if who[e.id] in _names(listed) and e.edit_type == edit_type]
        theirs = [_parts(e, edits) for e in unit if e.edit_type == edit_type]
        if any(_parts(e, edits) in theirs for e in mine):
            bad.append(f"{listed} are said to have marked no matching {edit_type}, but did")
    for kinds, listed in re.findall(r"marked no ((?!edit )\w+(?: or \w+)*) overlapping it "
                                    r"\(([^)]*)\)", reason):
        for name in _names(listed):
            mine = [e for e in edits if who[e.id] == name and e.edit_type in kinds.split(" or ")]
            if any(_touch(spans[e.id], unit_spans, document.source, document.target)
                   for e in mine):
                bad.append(f"{name} is said to have marked no {kinds} overlapping, but did")
    top = [e for e in unit if e.parent_id not in set(unit_ids)]
    for name, listed in re.findall(r"(\w+) \((\w+(?: as \d+ edits)?(?:, \w+(?: as \d+ "
                                   r"edits)?)*)\)", reason):
        if name not in everyone:
            continue
        said = {}
        for item in listed.split(", "):
            kind, _, count = item.partition(" as ")
            said[kind] = int(count.split()[0]) if count else 1
        stored = {}
        for e in top:
            if who[e.id] == name:
                stored[e.edit_type] = stored.get(e.edit_type, 0) + 1
        if said != stored:
            bad.append(f"{name} is said to have marked {said} in the unit, stored {stored}")
    only = re.search(r"only (\w+) \(", reason)
    if only:
        others = {who[e.id] for e in unit} - {only.group(1)}
        if others or not any(who[e.id] == only.group(1) for e in unit):
            bad.append(f"only {only.group(1)} is said to have marked it; also {others}")
    return bad


def _parts(composite, edits) -> list:
    """A composite's constituents as sorted (type, spans), to compare two composites."""
    return sorted((c.edit_type, sorted((s.side, s.start, s.end) for s in c.spans))
                  for c in edits if c.parent_id == composite.id)


# ---------------------------------------------------------------- the run


def run(records: int, span_merge: str, workdir: Path) -> dict:
    from sqlalchemy import select

    from annotator.adjudication.gold import gold_record
    from annotator.db import Database
    from annotator.models import AdjudicationDecision, Assignment, Document, Project
    from annotator.operations import work
    from annotator.study.queue_marks import document_changed

    published = json.loads((salsa_dir() / "salsa.json").read_text(encoding="utf-8"))
    published = published[:records]
    rows, reference = study(published)
    data = workdir / "salsa-three.json"
    data.write_text(json.dumps(rows), encoding="utf-8")
    url = f"sqlite:///{workdir / 'study.sqlite3'}"
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": url, "HF_HUB_OFFLINE": "1"}
    cli = [sys.executable, "-m", "annotator"]

    def annotator(*args):
        done = subprocess.run(cli + [str(a) for a in args], env=env, capture_output=True,
                              text=True, check=False)
        if done.returncode:
            sys.exit(f"annotator {' '.join(map(str, args))}: {done.stderr or done.stdout}")
        return done.stdout

    annotator("project", "create", "salsa", "--schema", salsa_dir() / "salsa.yml")
    annotator("import", "salsa", data, "--format", "thresh")
    annotator("adjudicate", "rules", "salsa", "--edit-rule", "majority", "--span-merge",
              span_merge)
    database = Database(url)
    with work.session(database) as session:
        for a in session.scalars(select(Assignment)):
            a.status = "done"
        # Set directly (the study's own statuses are drafts): marked as a writer would.
        document_changed(session, *session.scalars(select(Assignment.document_id)))
    start = time.perf_counter()
    summary = json.loads(annotator("adjudicate", "auto", "salsa", "--no-embeddings", "--json"))
    seconds = time.perf_counter() - start
    untrue, checked = [], 0
    scores: dict[str, dict[str, int]] = {}
    shapes: dict[str, list[int]] = {}  # shape -> [gold edits matching, reference edits]
    with database.session() as session:
        project = session.scalars(select(Project).where(Project.name == "salsa")).one()
        for document in session.scalars(select(Document).where(
                Document.project_id == project.id)):
            edits = [e for a in document.assignments for e in a.edits]
            for d in session.scalars(select(AdjudicationDecision).where(
                    AdjudicationDecision.document_id == document.id,
                    AdjudicationDecision.automatic.is_(True),
                    AdjudicationDecision.kind.in_(["accept", "merge", "reject"]))):
                checked += 1
                untrue += [(document.external_id, d.item_key, p)
                           for p in untrue_reasons(document, edits, d.note, d.source_edit_ids)]
            for left in summary["left_units"]:
                if left["document"] == document.external_id:
                    checked += 1
                    ids = [int(i) for i in left["unit"].split(":")[1].split(",")]
                    untrue += [(document.external_id, left["unit"], p)
                               for p in untrue_reasons(document, edits, left["reason"], ids)]
            matched = _score(gold_record(session, document), reference[document.external_id],
                             document, scores)
            for item, hit in zip(reference[document.external_id], matched):
                shapes.setdefault(item["shape"], [0, 0])
                shapes[item["shape"]][0] += hit
                shapes[item["shape"]][1] += 1
    database.dispose()
    return {"summary": summary, "seconds": seconds, "untrue": untrue, "checked": checked,
            "scores": scores, "shapes": shapes, "reference": reference}


def _gold_items(gold: dict, document) -> list[dict]:
    by_source = {}
    items = []
    for e in gold["edits"]:
        if "constituent_of" in e["provenance"]:
            continue
        item = {"type": e["edit_type"],
                "source": token_set(e["spans"]["source"], document.source),
                "target": token_set(e["spans"]["target"], document.target), "parts": []}
        for s in e["provenance"]["source_edits"]:
            by_source[s["id"]] = item
        items.append(item)
    for e in gold["edits"]:
        for parent in e["provenance"].get("constituent_of", []):
            if parent in by_source:
                by_source[parent]["parts"].append(
                    (e["edit_type"], token_set(e["spans"]["source"], document.source),
                     token_set(e["spans"]["target"], document.target)))
    for item in items:
        item["constituents"] = tuple(sorted(item.pop("parts"), key=repr))
    return items


def _score(gold: dict, expected: list[dict], document, scores: dict) -> list[bool]:
    """Count, per type, gold edits matching a reference edit (type, tokens per side, and
    for a composite its constituents) one to one; returns which reference edits matched."""
    found = [_key(x) for x in _gold_items(gold, document)]
    matched = []
    for x in expected:
        row = scores.setdefault(x["type"], {"gold": 0, "reference": 0, "matched": 0})
        row["reference"] += 1
        hit = _key(x) in found
        if hit:
            found.remove(_key(x))
            row["matched"] += 1
        matched.append(hit)
    for item in _gold_items(gold, document):
        scores.setdefault(item["type"], {"gold": 0, "reference": 0, "matched": 0})["gold"] += 1
    return matched


def _key(x: dict) -> tuple:
    if x["constituents"]:
        return (x["type"], x["constituents"])
    return (x["type"], x["source"], x["target"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50,
                        help="SALSA example records used (50: all of them)")
    parser.add_argument("--span-merge", default="majority_tokens")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.records, args.span_merge, Path(tmp))
    s = result["summary"]
    print(f"SALSA-shaped study: {s['documents']} documents x 3 annotators, majority rule, "
          f"span rule {args.span_merge}; adjudicate auto {result['seconds']:.1f} s")
    print(f"documents completed by the rules: {s['completed']} of {s['documents']} "
          f"({s['completed'] / max(1, s['documents']):.0%})")
    print(f"reasons checked against the stored edits: {result['checked']}, untrue: "
          f"{len(result['untrue'])}")
    for doc, unit, problem in result["untrue"][:10]:
        print(f"  untrue: {doc} {unit}: {problem}")
    for edit_type, c in s["by_type"].items():
        why = ", ".join(f"{n} {k}" for k, n in c["why_left"].items())
        print(f"  units {edit_type}: {c['accepted']} accepted, {c['merged']} merged, "
              f"{c['rejected']} rejected, {c['left']} left" + (f" ({why})" if why else ""))
    for shape, (hit, total) in result["shapes"].items():
        print(f"  shape {shape!r}: {hit} of {total} reference edits in the gold")
    print("gold against the reference adjudication (exact tokens per side):")
    for edit_type, c in sorted(result["scores"].items()):
        p = c["matched"] / c["gold"] if c["gold"] else float("nan")
        r = c["matched"] / c["reference"] if c["reference"] else float("nan")
        print(f"  {edit_type:13s} precision {p:.2f} recall {r:.2f} "
              f"(gold {c['gold']}, reference {c['reference']}, matched {c['matched']})")


if __name__ == "__main__":
    main()
