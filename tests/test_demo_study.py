"""Issue 47 item 3: the demo comes with a study under way. The demo is built in a fresh
database by its own builder (what `annotator demo` runs before pre-highlighting and
serving), and every promise of the README's five-minute tour is checked against the work
files, the database and the pages: the work is stored as the files say, the agreement
report has numbers, the adjudication queue holds what the rules leave of the data, release
v0.1 holds what they settled, and a lead's next release and the backup recipe's snapshot
release can be cut."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.adjudication.overview import open_items
from annotator.adjudication.queue import stored_queue
from annotator.app import create_app
from annotator.cli import main
from annotator.config import Config
from annotator.core.resources import demo_data_dir
from annotator.db import Database
from annotator.interop.annotations_store import project_records
from annotator.models import (
    AdjudicationDecision,
    AdjudicationState,
    Assignment,
    AuditEvent,
    Document,
    Project,
    User,
)
from annotator.operations.demo import DEMO_PROJECTS, DEMO_USERS, create_demo
from annotator.operations.demo_work import DEMO_RELEASE, DEMO_WORK
from annotator.releases import release_file
from tests.conftest import csrf_token

PASSWORDS = {name: password for name, _, password in DEMO_USERS}

# What the automatic rules leave of the work files, worked out by hand from them (the
# README's tour tells the same): document -> (queue status, open units, open rating items,
# units decided by rule). demo-infoloss decides by the majority rule (2 of 3, or 2 of 2),
# demo-overgeneration by the default rule (identical edits of both annotators).
EXPECTED_QUEUE = {
    "demo-infoloss": {
        # dose, NRS scale (ana's and ben's oversimplification against cas's deletion) and
        # CI merged by 2-3 of 3; ana's "double-blind", which nobody else marked, rejected.
        "demo-01": ("complete", 0, 0, 4),
        # "by 4.8 points": ana's deletion, ben's oversimplification, cas nothing: left.
        # Dose and relative risk merged; three findings of one annotator each rejected.
        "demo-02": ("open", 1, 0, 5),
        "demo-03": ("complete", 0, 0, 3),  # design, dose, relative risk merged
        "demo-04": ("open", 1, 0, 0),  # ana's "overall score" alone; ben marked nothing
        # ana marked both doses as one edit, ben as two: one unit by the change (issue 42),
        # merged with both doses; design, CI and potassium merged; ben's washout, which ana
        # did not mark, left (1 of 2 is no majority).
        "demo-05": ("open", 1, 0, 4),
    },
    "demo-overgeneration": {
        "og-01": ("complete", 0, 0, 1),  # the same leaked instruction, both "yes"
        "og-02": ("open", 1, 0, 0),  # same span, categories differ
        "og-03": ("complete", 0, 0, 0),  # nothing marked, both "no"
        "og-04": ("complete", 0, 0, 1),  # the same repeated sentence
        "og-05": ("open", 1, 1, 0),  # ben's "really" alone; "yes" against "no"
        "og-06": ("open", 1, 0, 0),  # the leaked preamble, with and without its colon
    },
}
UNIT_DECISIONS = ("accept", "merge", "reject", "keep_both")


def work_records(project_name: str) -> list[dict]:
    file_name, _rules = DEMO_WORK[project_name]
    return [json.loads(line) for line in
            (demo_data_dir() / file_name).read_text(encoding="utf-8").splitlines()]


def done_by_two(project_name: str) -> set[str]:
    done = Counter(r["document_id"] for r in work_records(project_name) if r["status"] == "done")
    return {doc for doc, n in done.items() if n >= 2}


def cli(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def build_demo(monkeypatch, database_url: str, folder) -> Database:
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", database_url)
    monkeypatch.setenv("ANNOTATOR_INSTANCE_PATH", str(folder / "instance"))
    monkeypatch.setenv("ANNOTATOR_EXPORTS_PATH", str(folder / "exports"))
    database = Database(database_url)
    database.upgrade()
    with database.session() as session:
        create_demo(session)
    return database


@pytest.fixture(scope="module")
def demo(module_database_url, tmp_path_factory):
    """One demo for the module's read-only tests (the CLI reads the same database)."""
    with pytest.MonkeyPatch.context() as env:
        database = build_demo(env, module_database_url, tmp_path_factory.mktemp("demo"))
        yield database
        database.dispose()


def lead_client(database_url: str, folder, username: str = "lee"):
    app = create_app(Config.from_env({}, instance_path=folder / "instance",
                                     database_url=database_url, secret_key="test-secret",
                                     exports_path=folder / "exports"))
    app.config["ADJUDICATION_EMBEDDINGS"] = False
    client = app.test_client()
    answer = client.post("/login", data={"username": username, "password": PASSWORDS[username],
                                         "csrf_token": csrf_token(client)})
    assert answer.status_code == 302, answer.get_data(as_text=True)
    return client


def project_id(database: Database, name: str) -> int:
    with database.session() as session:
        return session.scalar(select(Project.id).where(Project.name == name))


def test_the_work_is_stored_as_its_files_say(demo):
    """Every record of the work files is an assignment with that status, time, edits and
    ratings, imported by the annotations import (its audit event), and nothing else is;
    start and completion times are the build's, set only where the status says so."""
    with demo.session() as session:
        for name in DEMO_WORK:
            project = session.scalar(select(Project).where(Project.name == name))
            records = work_records(name)
            stored = {(r.document_id, r.annotator): r for r in project_records(session, project)}
            assert set(stored) == {(r["document_id"], r["annotator"]) for r in records}
            for r in records:
                got = stored[(r["document_id"], r["annotator"])]
                assert (got.status, got.seconds_spent) == (r["status"], r["seconds_spent"])
                assert [(e.edit_type, e.fields, [{"side": s.side, "start": s.start,
                                                  "end": s.end} for s in e.spans])
                        for e in got.edits] == [(e["edit_type"], e["fields"], e["spans"])
                                                for e in r["edits"]]
                assert [(g.level, g.item, g.field, g.value, g.rationale) for g in got.ratings
                        ] == [(g["level"], g["item"], g["field"], g["value"], g["rationale"])
                              for g in r["ratings"]]
            (event,) = session.scalars(select(AuditEvent).where(
                AuditEvent.project_id == project.id, AuditEvent.action == "annotations.imported"))
            assert event.details["records"] == len(records)
            assert event.details["format"] == "annotations-jsonl"
            for a in session.scalars(select(Assignment).join(Document).where(
                    Document.project_id == project.id)):
                assert (a.completed_at is not None) == (a.status == "done")
                assert (a.started_at is not None) == (a.status != "assigned")
        # ana has work left: documents nobody has touched yet.
        untouched = session.scalar(select(func.count()).select_from(Assignment).join(User).where(
            User.username == "ana", Assignment.status == "assigned"))
        assert untouched > 0


def test_every_span_of_the_work_lies_on_word_boundaries():
    """The offsets of the hand-written work cut no word in two (a mistyped offset would)."""
    for name in DEMO_WORK:
        data = next(f for project, _schema, f in DEMO_PROJECTS if project == name)
        texts = {d["id"]: d for d in map(json.loads, (demo_data_dir() / data).read_text(
            encoding="utf-8").splitlines())}
        spans = [(r["document_id"], s) for r in work_records(name) for e in r["edits"]
                 for s in e["spans"]]
        assert spans
        for doc_id, s in spans:
            text = texts[doc_id][s["side"]]
            assert 0 <= s["start"] < s["end"] <= len(text)
            assert s["start"] == 0 or not text[s["start"] - 1].isalnum(), (doc_id, s)
            assert s["end"] == len(text) or not text[s["end"]].isalnum(), (doc_id, s)
            assert not text[s["start"]].isspace() and not text[s["end"] - 1].isspace()


def test_the_agreement_report_has_numbers(demo, tmp_path):
    """Alpha, kappas and span F1 on both projects with work, over the documents two
    annotators finished in the files; the project page and the report page show them."""
    client = lead_client(str(demo.engine.url.render_as_string(hide_password=False)), tmp_path)
    for name in DEMO_WORK:
        report = json.loads(cli("agreement", name, "--json", "--no-embeddings",
                                "--bootstrap", "20"))
        counts = report["counts"]
        assert counts["documents_with_2plus_annotators"] == len(done_by_two(name)) > 0
        assert counts["edits"] == sum(len(r["edits"]) for r in work_records(name))
        assert counts["annotators"] == len({r["annotator"] for r in work_records(name)})
        if name == "demo-infoloss":
            fields = [report["edit_fields"][f"{kind}.severity"]["metrics"]
                      for kind in ("deletion", "oversimplification")]
            side = report["spans"]["source"]
        else:
            fields = [report["fields"]["overgenerated"]["metrics"],
                      report["edit_fields"]["overgeneration.category"]["metrics"]]
            side = report["spans"]["target"]
        for metrics in fields:
            for key in ("alpha_nominal", "fleiss", "randolph"):
                assert metrics[key]["value"] is not None, (name, key)
            assert metrics["cohen"]["pairs"]["ana|ben"]["kappa"]["value"] is not None
        exact, partial = side["exact"]["macro"]["value"], side["partial"]["macro"]["value"]
        assert 0 < exact <= partial <= 1

        pid = project_id(demo, name)
        overview = client.get(f"/projects/{pid}").get_data(as_text=True)
        assert (f"{counts['documents_with_2plus_annotators']} of {counts['documents']} "
                f"documents done by two or more annotators · {counts['edits']} edits") in overview
        page = client.get(f"/projects/{pid}/agreement").get_data(as_text=True)
        assert "Krippendorff" in page and "Cohen" in page and "Fleiss" in page
        assert f"{exact:.3f}" in page and f"{partial:.3f}" in page


def test_the_queue_holds_what_the_rules_leave(demo, tmp_path):
    """The stored queue, the decisions and the queue page against EXPECTED_QUEUE: open
    units and rating items left for the lead, units decided by rule, documents adjudicated;
    documents not every annotator finished (a skip, work in progress) are not in it."""
    client = lead_client(str(demo.engine.url.render_as_string(hide_password=False)), tmp_path)
    for name, expected in EXPECTED_QUEUE.items():
        pid = project_id(demo, name)
        assert set(expected) == done_by_two(name) & {
            r["document_id"] for r in work_records(name)
            if all(o["status"] == "done" for o in work_records(name)
                   if o["document_id"] == r["document_id"])}
        with demo.session() as session:
            page = stored_queue(session, pid)
            found = {e.document.external_id: (e.status, e.open["total"]) for e in page.entries}
            left = {d.external_id: open_items(session, d) for d in session.scalars(
                select(Document).where(Document.project_id == pid,
                                       Document.external_id.in_(list(found))))}
            decided = Counter(session.scalars(
                select(Document.external_id).join(AdjudicationDecision).where(
                    Document.project_id == pid, AdjudicationDecision.kind.in_(UNIT_DECISIONS))))
            assert session.scalar(select(func.count()).select_from(AdjudicationDecision).join(
                Document).where(Document.project_id == pid,
                                AdjudicationDecision.automatic.is_(False))) == 0
            complete = set(session.scalars(select(Document.external_id).join(
                AdjudicationState).where(Document.project_id == pid,
                                         AdjudicationState.status == "complete")))
        assert found == {doc: (v[0], v[1] + v[2]) for doc, v in expected.items()}
        assert {doc: (o["units"], o["ratings"]) for doc, o in left.items()} == {
            doc: v[1:3] for doc, v in expected.items()}
        assert dict(decided) == {doc: v[3] for doc, v in expected.items() if v[3]}
        assert complete == {doc for doc, v in expected.items() if v[0] == "complete"}

        html = client.get(f"/projects/{pid}/adjudicate").get_data(as_text=True)
        rows = re.findall(r'<tr data-document="([^"]+)" data-status="([^"]+)">\s*<td>[^<]*</td>'
                          r'\s*<td>[^<]*</td>\s*<td>[^<]*</td>\s*<td class="open-count">(\d+)',
                          html)
        assert {doc: (status, int(n)) for doc, status, n in rows} == {
            doc: (v[0], v[1] + v[2]) for doc, v in expected.items()}
        # Open ones first, least agreement first: what the tour opens first is on top.
        assert [status for _, status, _ in rows] == sorted(
            (s for _, s, _ in rows), key=lambda s: s == "complete")


def test_release_v01_holds_what_the_rules_settled(demo, tmp_path):
    client = lead_client(str(demo.engine.url.render_as_string(hide_password=False)), tmp_path)
    for name, expected in EXPECTED_QUEUE.items():
        settled = sorted(doc for doc, v in expected.items() if v[0] == "complete")
        with demo.session() as session:
            project = session.scalar(select(Project).where(Project.name == name))
            manifest = json.loads(release_file(session, project, DEMO_RELEASE, "MANIFEST.json"))
            gold = [json.loads(line)["id"] for line in release_file(
                session, project, DEMO_RELEASE, "gold.jsonl").decode().splitlines()]
            documents = session.scalar(select(func.count()).select_from(Document).where(
                Document.project_id == project.id))
        assert sorted(gold) == settled
        assert manifest["counts"]["documents_excluded"] == documents - len(settled)
        assert "match the manifest" in cli("release", "verify", name, DEMO_RELEASE)
        page = client.get(f"/projects/{project.id}/releases").get_data(as_text=True)
        assert f'data-version="{DEMO_RELEASE}"' in page
        assert f"{len(settled)} of {documents} documents" in page


def test_the_backup_recipe_and_the_tour_work_on_a_fresh_demo(database_url, tmp_path,
                                                              monkeypatch):
    """On first start: the README's backup recipe (backup, export, `release --version
    snapshot-DATE`); then the tour's lead decides demo-04's open unit, marks it adjudicated
    and cuts the next release, and ana's page lists the work she has left."""
    database = build_demo(monkeypatch, database_url, tmp_path)
    (tmp_path / "backup").mkdir()
    cli("backup", tmp_path / "backup" / f"annotator-{date.today():%Y-%m-%d}.backup")
    cli("export", "demo-infoloss", "--format", "jsonl", "--out",
        tmp_path / "backup" / "trial-annotations.jsonl")
    snapshot = f"snapshot-{date.today():%Y-%m-%d}"
    cli("release", "demo-infoloss", "--version", snapshot)
    settled = sorted(doc for doc, v in EXPECTED_QUEUE["demo-infoloss"].items()
                     if v[0] == "complete")
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "demo-infoloss"))
        gold = release_file(session, project, snapshot, "gold.jsonl").decode().splitlines()
        assert sorted(json.loads(line)["id"] for line in gold) == settled
        doc = session.scalar(select(Document).where(Document.project_id == project.id,
                                                    Document.external_id == "demo-04"))
        pid, doc_id = project.id, doc.id

    client = lead_client(database_url, tmp_path)
    view = client.get(f"/projects/{pid}/adjudicate/{doc_id}/state").get_json()
    (unit,) = [u for u in view["units"] if not u["decision"]]
    assert unit["annotators"] == ["ana"]
    (edit,) = [e for e in view["edits"] if e["id"] in unit["edit_ids"]]
    (span,) = edit["spans"]
    assert view["document"]["source"][span["start"]:span["end"]] == "overall score"
    token = csrf_token(client, f"/projects/{pid}/adjudicate/{doc_id}")
    for body in ({"action": "accept", "edit_ids": unit["edit_ids"], "edit_id": edit["id"]},
                 {"action": "complete"}):
        answer = client.post(f"/projects/{pid}/adjudicate/{doc_id}/decisions", json=body,
                             headers={"X-CSRFToken": token})
        assert answer.status_code == 200, answer.get_json()
    output = cli("release", "demo-infoloss", "--version", "v0.2")
    assert f"{len(settled) + 1} document" in output

    ana = lead_client(database_url, tmp_path, "ana")
    my = ana.get("/my").get_data(as_text=True)
    with database.session() as session:
        statuses = Counter(session.scalars(select(Assignment.status).join(User).join(Document)
                                           .where(User.username == "ana",
                                                  Document.project_id == pid)))
    row = re.search(r'<tr data-project="demo-infoloss">(.*?)</tr>', my, re.S).group(1)
    cells = re.findall(r"<td>([^<]*)</td>", row)
    assert cells[:4] == [f"{statuses['done']} of {sum(statuses.values())}",
                         str(statuses["in_progress"]), str(statuses["assigned"]),
                         str(statuses["skipped"])]
    assert statuses["in_progress"] + statuses["assigned"] > 0
    database.dispose()
