"""A pull from a real Label Studio server merges into the stored work (issue 32): what Label
Studio cannot hold (an edit without a region, edit metadata) survives, unchanged work keeps
its version and completed_at, and deleting a region needs --allow-deletions."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.models import Assignment, Document, Edit, User
from tests import test_labelstudio_live as live
from tests.test_labelstudio_live import _push, _tasks, run

server, study = live.server, live.study  # the live tests' fixtures: one server, one study

pytestmark = pytest.mark.labelstudio


def _ana(session, project_id) -> Assignment:
    return session.scalar(select(Assignment).join(Document).join(User).where(
        Document.project_id == project_id, Document.external_id == "d1",
        User.username == "ana"))


def _pull(server, ls_id, *extra):
    return run(server, "labelstudio", "pull", "trial", ls_id, "--import",
               "--email-domain", "example.org", *extra)


def test_pull_keeps_what_label_studio_cannot_hold_and_leaves_unchanged_work(server, study):
    database, project_id = study
    with database.session() as session:
        ana = _ana(session, project_id)
        deletion = next(e for e in ana.edits if e.edit_type == "deletion")
        deletion.meta = {**(deletion.meta or {}), "id": "thresh-7", "output_idx": [3]}
        # A document-level remark: no region, so Label Studio cannot hold it.
        session.add(Edit(assignment=ana, edit_type="deletion",
                         fields={"comment": "the whole summary drops the dose"}, spans=[]))
        session.commit()
        before = (ana.version, ana.completed_at, len(ana.edits))
    ls_id = _push(server)
    for _ in range(2):
        code, out = _pull(server, ls_id)
        assert code == 0, out
        with database.session() as session:
            ana = _ana(session, project_id)
            assert (ana.version, ana.completed_at, len(ana.edits)) == before
            deletion = next(e for e in ana.edits if e.spans and e.edit_type == "deletion")
            assert deletion.meta["id"] == "thresh-7" and deletion.meta["output_idx"] == [3]
            assert [e.fields for e in ana.edits if not e.spans] == [
                {"comment": "the whole summary drops the dose"}]

    # ana's oversimplification region is deleted in the page: refused, then allowed.
    task = _tasks(server, ls_id)["d1"]
    [annotation] = server["http"].get(f"/api/tasks/{task['id']}/annotations/").json()
    gone = {r["id"] for r in annotation["result"]
            if r.get("value", {}).get("labels") == ["oversimplification"]}
    kept = [r for r in annotation["result"] if r["type"] != "relation" and r["id"] not in gone]
    server["http"].patch(f"/api/annotations/{annotation['id']}/",
                         json={"result": kept}).raise_for_status()
    code, out = _pull(server, ls_id)
    assert code == 2 and f"task {task['id']}" in out and "oversimplification" in out
    assert "--allow-deletions" in out
    with database.session() as session:
        assert len(_ana(session, project_id).edits) == before[2]
    code, out = _pull(server, ls_id, "--allow-deletions")
    assert code == 0, out
    with database.session() as session:
        ana = _ana(session, project_id)
        assert sorted(e.edit_type for e in ana.edits) == ["deletion", "deletion"]
        assert [e.fields for e in ana.edits if not e.spans] == [
            {"comment": "the whole summary drops the dose"}]
