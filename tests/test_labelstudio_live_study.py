"""The "done when" of issue 32, against a real Label Studio server with a real study: the
InfoLossQA development slice (tests/data/infolossqa-dev: 136 Thresh records by three
annotators, 652 edits, 18 of them document-level comments Label Studio cannot hold) in a
project made from the authors' own typology.

Pushed to Label Studio; there, through the API as the labeling page sends it, two regions
are relabelled (the page keeps their answers in the old label's boxes), an edit is added
(a region on each side, linked, with its question and answer), a region is deleted, and an
annotator who joined through the invite link saves a draft. Pulled twice. The edit counts
move by exactly those changes, the comments and every edit's Thresh metadata are intact, a
Thresh export equals the one before except for the changes (compared record by record,
edit by edit), each person is one account, and work nobody touched keeps its version and
completion time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.models import Assignment, Document, Edit, User
from annotator.study.accounts import create_user
from tests import test_labelstudio_live as live
from tests.helpers import INFOLOSSQA
from tests.test_labelstudio_live import _tasks, run

server = live.server  # the live tests' server fixture: one server for every module

pytestmark = pytest.mark.labelstudio

PEOPLE = ("karim", "kathryn", "keziah")
DRAFTER = "karim"  # joins Label Studio through the invite link and saves a draft there


def cli(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def member(server, name: str) -> httpx.Client:
    """A client acting as the member NAME@example.org, signed up through the invite link
    as an invited annotator would (or logged in, when a run before did that)."""
    email, password = f"{name}@example.org", f"{name}-ls-password-1234"
    browser = httpx.Client(base_url=server["url"], follow_redirects=True, timeout=60)
    known = {u["email"] for u in server["http"].get("/api/users/").json()}
    page = (server["http"].get("/api/invite").raise_for_status().json()["invite_url"]
            if email not in known else "/user/login/")
    browser.get(page).raise_for_status()
    browser.post(page, data={"email": email, "password": password, "how_find_us": "Other",
                             "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
                 headers={"Referer": server["url"] + page}).raise_for_status()
    answer = browser.get("/api/current-user/token")
    assert answer.status_code == 200, f"cannot act as {email}: {answer.text}"
    token = answer.json()["token"]
    browser.close()
    return httpx.Client(base_url=server["url"], headers={"Authorization": f"Token {token}"},
                        timeout=60)


def thresh_export(folder: Path) -> dict[tuple[str, str], dict]:
    cli("export", "ilq", "--format", "thresh", "--out", folder)
    return {(path.stem, str(record["id"])): record for path in sorted(folder.glob("*.json"))
            for record in json.loads(path.read_text(encoding="utf-8"))}


def work(database, project_id) -> dict[tuple[str, str], tuple]:
    """(document, annotator) -> what a pull must leave alone on unchanged work."""
    with database.session() as session:
        return {(a.document.external_id, a.user.username): (
            a.version, a.completed_at, a.status, a.seconds_spent, len(a.edits))
            for a in session.scalars(select(Assignment).join(Document).where(
                Document.project_id == project_id))}


def regions_of(annotation: dict, label: str) -> list[dict]:
    return [r for r in annotation["result"] if r["type"] == "labels"
            and r["value"]["labels"] == [label]]


def annotation_of(server, task: dict, user_id: int) -> dict:
    found = [a for a in server["http"].get(f"/api/tasks/{task['id']}/annotations/").json()
             if a["completed_by"] == user_id]
    assert len(found) == 1, (task["id"], user_id)
    return found[0]


def save(server, annotation: dict) -> None:
    """What the labeling page sends when an annotation is updated."""
    server["http"].patch(f"/api/annotations/{annotation['id']}/",
                         json={"result": annotation["result"]}).raise_for_status()


def pull(server, ls_id: int, *extra) -> tuple[int, str]:
    return run(server, "labelstudio", "pull", "ilq", ls_id, "--import",
               "--email-domain", "example.org", *extra)


@pytest.fixture
def ilq(env, database, tmp_path):
    """The slice imported as the authors' Thresh files have it; the lead's account carries
    the e-mail Label Studio knows the lead by."""
    cli("project", "create", "ilq", "--schema", INFOLOSSQA / "config" / "thresh.yml")
    for name in PEOPLE:
        cli("import", "ilq", INFOLOSSQA / "annotations" / f"annotations-{name}",
            "--format", "thresh", "--annotator", name)
    with database.session() as session:
        lead = create_user(session, "lee", "pw-lee-123456", "lead")
        lead.email = os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_EMAIL",
                                         "lead@annotator.test")
        session.commit()
        project_id = session.scalar(select(Document.project_id))
        assert session.scalar(select(func.count(Edit.id))) == 652
    return database, project_id


def test_the_infolossqa_slice_through_label_studio_and_back(server, ilq, tmp_path):
    database, project_id = ilq
    before = thresh_export(tmp_path / "before")
    stored = work(database, project_id)
    assert len(before) == 136
    counts = {name: sum(n for (_, who), (*_, n) in stored.items() if who == name)
              for name in PEOPLE}
    assert counts == {"karim": 130, "kathryn": 274, "keziah": 248}

    drafter = member(server, DRAFTER)
    for name in PEOPLE:
        if name != DRAFTER and f"{name}@example.org" not in {
                u["email"] for u in server["http"].get("/api/users/").json()}:
            server["http"].post("/api/users/", json={"email": f"{name}@example.org",
                                                     "username": name}).raise_for_status()
    code, out = run(server, "labelstudio", "push", "ilq", "--email-domain", "example.org")
    assert code == 0, out
    assert out.count("not representable in Label Studio") == 18, out
    ls_id = int(out.split("Label Studio project ")[1].split()[0])
    tasks = _tasks(server, ls_id)
    # The generated config (per-label Question/Answer boxes on both texts) is one the server
    # accepts for this project's annotations, not only when the project is created.
    config = server["http"].get(f"/api/projects/{ls_id}").json()["label_config"]
    checked = server["http"].post(f"/api/projects/{ls_id}/validate/",
                                  json={"label_config": config})
    assert checked.status_code == 200, checked.text
    assert 'name="target_concept_question"' in config and 'whenLabelValue="concept"' in config
    ids = {u["email"].split("@")[0]: u["id"] for u in server["http"].get("/api/users/").json()
           if u["email"].endswith("@example.org")}

    def first_with(name: str, label: str, comment: bool = False) -> str:
        """The first document (by id) where NAME has an edit with LABEL (and a comment)."""
        return next(doc for (who, doc), record in sorted(before.items())
                    if who == name and any(e["category"] == label for e in record["edits"])
                    and (not comment or any(e["category"] == "comment"
                                            for e in record["edits"])))

    # 1. Relabel: kathryn's (in a record with a document-level comment) and keziah's first
    # omission become fuzzy concepts; the page keeps the answers under source_omission_*.
    # A fuzzy concept needs its simplification side: a region there, linked.
    relabelled = {}
    for name, doc in (("kathryn", first_with("kathryn", "omission", comment=True)),
                      ("keziah", first_with("keziah", "omission"))):
        annotation = annotation_of(server, tasks[doc], ids[name])
        region = regions_of(annotation, "omission")[0]
        region["value"]["labels"] = ["concept"]
        target = tasks[doc]["data"]["simplification"]
        annotation["result"] += [
            {"id": "relabel-tgt", "from_name": "target_labels", "to_name": "target",
             "type": "labels", "value": {"start": 0, "end": 5, "text": target[:5],
                                         "labels": ["concept"]}},
            {"type": "relation", "from_id": region["id"], "to_id": "relabel-tgt",
             "direction": "right"}]
        save(server, annotation)
        relabelled[(name, doc)] = [[region["value"]["start"], region["value"]["end"]]]
    # 2. Add: keziah marks a new fuzzy concept in another document, a region on each side
    # linked, the question and answer on the original's region.
    added_doc = next(doc for (who, doc) in sorted(before) if who == "keziah"
                     and (who, doc) not in relabelled)
    annotation = annotation_of(server, tasks[added_doc], ids["keziah"])
    data = tasks[added_doc]["data"]
    source, target = data["original"], data["simplification"]
    added = {"category": "concept", "annotation": {"question": "What does it mean?",
                                                   "answer": "It means this."},
             "input_idx": [[0, 11]], "output_idx": [[0, 8]]}
    annotation["result"] += [
        {"id": "new-src", "from_name": "source_labels", "to_name": "source", "type": "labels",
         "value": {"start": 0, "end": 11, "text": source[:11], "labels": ["concept"]}},
        {"id": "new-tgt", "from_name": "target_labels", "to_name": "target", "type": "labels",
         "value": {"start": 0, "end": 8, "text": target[:8], "labels": ["concept"]}},
        {"type": "relation", "from_id": "new-src", "to_id": "new-tgt", "direction": "right"},
        {"id": "new-src", "from_name": "source_concept_question", "to_name": "source",
         "type": "textarea", "value": {"text": ["What does it mean?"]}},
        {"id": "new-src", "from_name": "source_concept_answer", "to_name": "source",
         "type": "textarea", "value": {"text": ["It means this."]}}]
    save(server, annotation)
    # 3. Delete: karim's first omission region, and its answers with it.
    deleted_doc = first_with("karim", "omission")
    annotation = annotation_of(server, tasks[deleted_doc], ids["karim"])
    region = regions_of(annotation, "omission")[0]
    deleted = [[region["value"]["start"], region["value"]["end"]]]
    annotation["result"] = [r for r in annotation["result"] if r.get("id") != region["id"]]
    save(server, annotation)
    # 4. kathryn rewrites a fuzzy concept's answer on its simplification region, which
    # shows the edit's answers as the original's region does; the original's keeps the
    # old copy, and the pull takes the changed one.
    answered_doc = next(doc for (who, doc), record in sorted(before.items())
                        if who == "kathryn" and ("kathryn", doc) not in relabelled
                        and any(e["category"] == "concept" for e in record["edits"]))
    annotation = annotation_of(server, tasks[answered_doc], ids["kathryn"])
    head = next(r for r in regions_of(annotation, "concept") if r["to_name"] == "target")
    answers = {r["from_name"]: r for r in annotation["result"] if r.get("id") == head["id"]}
    source_head = next(r for r in annotation["result"] if r.get("id") == next(
        x["from_id"] for x in annotation["result"]
        if x["type"] == "relation" and x["to_id"] == head["id"]) and r["type"] == "textarea"
        and r["from_name"] == "source_concept_answer")
    assert answers["target_concept_answer"]["value"] == source_head["value"]
    answers["target_concept_answer"]["value"]["text"] = ["A clearer answer."]
    save(server, annotation)
    answered = [[head["value"]["start"], head["value"]["end"]]]
    # 5. A draft: karim starts a document he has not annotated.
    draft_doc = next(doc for doc in sorted(tasks) if (DRAFTER, doc) not in before)
    text = tasks[draft_doc]["data"]["original"]
    response = drafter.post(f"/api/tasks/{tasks[draft_doc]['id']}/drafts", json={
        "lead_time": 42.0, "result": [
            {"id": "d1", "from_name": "source_labels", "to_name": "source", "type": "labels",
             "value": {"start": 0, "end": 10, "text": text[:10], "labels": ["omission"]}},
            {"id": "d1", "from_name": "source_omission_question", "to_name": "source",
             "type": "textarea", "value": {"text": ["What is left out?"]}}]})
    assert response.status_code in (200, 201), response.text

    # Deleting needs --allow-deletions: refused naming the task, nothing written.
    code, out = pull(server, ls_id)
    assert code == 2, out
    assert f"task {tasks[deleted_doc]['id']}" in out and "omission edit" in out, out
    assert "--allow-deletions" in out
    assert work(database, project_id) == stored

    changed = set(relabelled) | {("keziah", added_doc), ("karim", deleted_doc),
                                 ("kathryn", answered_doc)}
    for attempt in range(2):
        code, out = pull(server, ls_id, "--allow-deletions")
        assert code == 0, out
        now = work(database, project_id)
        # One account per person: the draft is karim's, no e-mail-named account.
        with database.session() as session:
            assert sorted(session.scalars(select(User.username))) == [*PEOPLE, "lee"]
            comments = session.scalar(select(func.count(Edit.id)).where(
                Edit.edit_type == "comment"))
        assert comments == 18
        assert now[(draft_doc, DRAFTER)][2:] == ("in_progress", 42.0, 1)
        assert set(now) == set(stored) | {(draft_doc, DRAFTER)}
        counts = {name: sum(n for (_, who), (*_, n) in now.items() if who == name)
                  for name in PEOPLE}
        assert counts == {"karim": 130 - 1 + 1, "kathryn": 274, "keziah": 248 + 1}
        untouched = {key for key in stored if (key[1], key[0]) not in changed}
        assert {k: now[k] for k in untouched} == {k: stored[k] for k in untouched}
        if attempt == 0:
            first = now
        else:  # the second pull changes nothing at all
            assert now == first, "a second pull changed stored work"

        after = thresh_export(tmp_path / f"after-{attempt}")
        assert set(after) == set(before) | {(DRAFTER, draft_doc)}
        draft = after[(DRAFTER, draft_doc)]
        assert [(e["category"], e["input_idx"], e["annotation"]) for e in draft["edits"]] == [
            ("omission", [[0, 10]], {"question": "What is left out?"})]
        assert draft["_status"] == "in_progress"
        expected = {key: json.loads(json.dumps(record)) for key, record in before.items()}
        for key, spans in relabelled.items():
            [edit] = [e for e in expected[key]["edits"]
                      if e["category"] == "omission" and e["input_idx"] == spans]
            # A relabelled edit takes the next id of its new category (issue 43).
            edit["category"], edit["output_idx"] = "concept", [[0, 5]]
            edit["id"] = next_id(expected[key]["edits"], "concept")
        [edit] = [e for e in expected[("kathryn", answered_doc)]["edits"]
                  if e["category"] == "concept" and e["output_idx"][0] == answered[0]]
        edit["annotation"]["answer"] = "A clearer answer."
        edits = expected[("karim", deleted_doc)]["edits"]
        edits.remove(next(e for e in edits if e["category"] == "omission"
                          and e["input_idx"] == deleted))
        grown = expected[("keziah", added_doc)]["edits"]
        grown.append({**added, "id": next_id(grown, "concept")})
        differing = sorted(key for key in before if after[key] != expected[key])
        assert differing == [], [(k, difference(expected[k], after[k])) for k in differing]
        # Thresh ids: unique (category, id) in every record, the authors' 1-based numbering
        # continued by the edits added in Label Studio (issue 43).
        for key, record in after.items():
            ids = [(e["category"], e["id"]) for e in record["edits"]]
            assert len(ids) == len(set(ids)), (key, ids)


def next_id(edits: list[dict], category: str) -> int:
    """The id Thresh gives the next edit of CATEGORY in a record: after its highest."""
    return max((e["id"] for e in edits if e["category"] == category), default=0) + 1


def difference(expected: dict, got: dict) -> list:
    """Where two Thresh records differ: record keys, then edits (position, expected, got)."""
    found = [(k, expected.get(k), got.get(k)) for k in sorted(set(expected) | set(got))
             if k != "edits" and expected.get(k) != got.get(k)]
    a, b = expected["edits"], got["edits"]
    found += [(i, a[i] if i < len(a) else None, b[i] if i < len(b) else None)
              for i in range(max(len(a), len(b)))
              if (a[i] if i < len(a) else None) != (b[i] if i < len(b) else None)]
    return found
