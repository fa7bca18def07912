"""Every writer of what a document's adjudication queue entry depends on leaves the stored
entry up to date when its transaction commits: after each one, each stored entry of the
project equals a fresh recomputation (:func:`annotator.adjudication.overview.document_entry`)
and none is stale. The writers walked: an annotator's edits (create, update, delete),
ratings and status; the lead's bulk reopen, extra annotator and reassignment; decisions
(accept, undo, complete, reopen); the automatic rules over a project; gold ratings and the
third-annotator route; a schema revision. Each runs in ``operations.work.session``, the
unit of work commands use: the writers mark, the commit helper settles (no Session hook);
the web pages commit through ``web.commits.commit_work`` alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select, update

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.automatic import adjudicate_project
from annotator.adjudication.overview import apply_automatic, complete, document_entry
from annotator.adjudication.queue import refresh_stale as store_refresh_stale
from annotator.adjudication.ratings import resolve_rating, route_to_third
from annotator.annotate import bulk
from annotator.annotate.store import create_edit, delete_edit, set_rating, set_status, update_edit
from annotator.models import AdjudicationQueueEntry, Document, Edit, Project, User
from annotator.operations import work
from annotator.operations.schema_revision import revise_schema
from annotator.schemas import parse_schema
from annotator.schemas.files import load_schema
from annotator.study.accounts import create_user
from annotator.study.projects import add_member
from tests.adjudication_fixtures import assignment_of, load, phrase_span
from tests.conftest import PASSWORD


def stored_equals_fresh(database, project_id: int) -> list[str]:
    """The external ids of the documents whose stored entry is stale or differs from a
    fresh recomputation (read in a session that is rolled back)."""
    wrong = []
    with database.sessions() as session:
        documents = session.scalars(select(Document).where(
            Document.project_id == project_id).order_by(Document.position)).all()
        for document in documents:
            fresh = document_entry(session, document)
            stored = session.get(AdjudicationQueueEntry, document.id)
            if stored is None or stored.stale or stored.computed != stored.changes:
                wrong.append(f"{document.external_id}: stale")
                continue
            expected = (False,) if fresh is None else (
                True, fresh.status == "complete", round(fresh.agreement, 9),
                fresh.open["total"], fresh.open["summary"],
                "|" + "".join(f"{n}|" for n in fresh.annotators),
                "|" + "".join(f"{n}|" for n in fresh.fields_in_dispute))
            got = (False,) if not stored.ready else (
                True, stored.complete, round(stored.agreement, 9), stored.open_total,
                stored.open_summary, stored.annotators, stored.disputed)
            if got != expected:
                wrong.append(f"{document.external_id}: stored {got} != fresh {expected}")
        session.rollback()
    return wrong


def _changes(database, document_id: int) -> int:
    with database.session() as session:
        return session.get(AdjudicationQueueEntry, document_id).changes


def test_each_writer_leaves_the_stored_entries_equal_to_a_fresh_computation(database,
                                                                              qa_study):
    project_id = qa_study["project_id"]
    q1 = qa_study["docs"]["q1"]
    assert stored_equals_fresh(database, project_id) == []

    def step(name, action, document_id=q1):
        before = _changes(database, document_id)
        with work.session(database) as session:
            action(session)
        assert _changes(database, document_id) > before, f"{name}: the entry was not marked"
        assert stored_equals_fresh(database, project_id) == [], name

    def lee(session):
        return session.get(User, qa_study["users"]["lee"])

    def project(session):
        return session.get(Project, project_id)

    step("bulk reopen", lambda s: bulk.reopen(s, project(s), [q1], username="ana"))

    def new_edit(s):
        document = load(s, qa_study, "q1")
        a = assignment_of(s, document, "ana")
        create_edit(s, a, {"edit_type": "deletion", "spans": [
            phrase_span(document.source, "placebo-controlled", "source")],
            "fields": {"question": "Was there a placebo?", "answer": "yes"}}, a.user_id)

    step("create an edit", new_edit)

    def change_edit(s):
        edit = s.get(Edit, qa_study["edits"]["e1"])
        update_edit(s, edit, {"version": edit.version, "fields": {
            **edit.fields, "question": "What dose, how often?"}}, edit.assignment.user_id)

    step("update an edit", change_edit)

    def remove_edit(s):
        edit = s.scalars(select(Edit).where(Edit.fields["question"].as_string()
                                            == "Was there a placebo?")).one()
        delete_edit(s, edit, edit.version, edit.assignment.user_id)

    step("delete an edit", remove_edit)

    def done(s):
        a = assignment_of(s, load(s, qa_study, "q1"), "ana")
        assert set_status(s, a, "done", a.version, a.user_id) == []

    step("mark done", done)

    def extra_annotator(s):
        cy = create_user(s, "cy", PASSWORD, "annotator")
        add_member(s, project(s), cy, "annotator")
        create_user(s, "di", PASSWORD, "annotator")
        add_member(s, project(s), s.scalar(select(User).where(User.username == "di")),
                   "annotator")
        bulk.assign_to(s, project(s), [q1], "cy")

    step("give to an extra annotator", extra_annotator)
    step("reassign", lambda s: bulk.reassign(s, project(s), [q1], "cy", "di"))

    def di_done(s):
        a = assignment_of(s, load(s, qa_study, "q1"), "di")
        assert set_status(s, a, "done", a.version, a.user_id) == []

    step("a third annotator's work done", di_done)

    q2 = qa_study["docs"]["q2"]
    decided = {}

    def accept(s):
        document = load(s, qa_study, "q2")
        (unit,) = store.current_units(s, document)
        decided["id"] = d.accept(s, document, unit.edit_ids, unit.edit_ids[0], lee(s)).id

    step("accept", accept, q2)
    step("undo", lambda s: d.undo(s, load(s, qa_study, "q2"), decided["id"], lee(s)), q2)
    step("automatic rules over the project", lambda s: adjudicate_project(s, project(s)), q2)
    step("reopen", lambda s: d.reopen(s, load(s, qa_study, "q2"), lee(s), "again"), q2)
    step("complete", lambda s: complete(s, load(s, qa_study, "q2"), lee(s)), q2)

    def revise(s):
        text = load_schema("infolossqa").source_text.replace(
            "prehighlighters:", "  - name: praise\n    sides: [target]\nprehighlighters:")
        revise_schema(s, project(s), parse_schema(text, "revised.yaml"))

    step("schema revision", revise)


def test_gold_ratings_and_the_third_annotator_route_keep_the_entry_current(database,
                                                                           factuality_study):
    project_id, f1 = factuality_study["project_id"], factuality_study["document_id"]
    assert stored_equals_fresh(database, project_id) == []

    def step(name, action):
        before = _changes(database, f1)
        with work.session(database) as session:
            document = session.get(Document, f1)
            lee = session.get(User, factuality_study["users"]["lee"])
            action(session, document, lee)
        assert _changes(database, f1) > before, f"{name}: the entry was not marked"
        assert stored_equals_fresh(database, project_id) == [], name

    step("automatic", lambda s, doc, lee: apply_automatic(s, doc, lee))
    step("route to a third annotator", lambda s, doc, lee: route_to_third(
        s, doc, ["pair|1|insertion", "pair|1|deletion"], lee))

    def third_rates(s, doc, lee):
        a = assignment_of(s, doc, "cy")
        for field in ("insertion", "deletion"):
            set_rating(s, a, {"level": "pair", "item": "1", "field": field, "value": 2},
                       a.user_id)

    step("the third annotator's ratings", third_rates)
    step("gold rating", lambda s, doc, lee: resolve_rating(s, doc, "pair|1|deletion", 1, lee))


@pytest.mark.parametrize("column", ["agreement", "open_total"])
def test_the_comparison_sees_a_wrong_stored_entry(database, qa_study, column):
    """The check above can fail: a stored entry changed behind the queue's back differs."""
    q1 = qa_study["docs"]["q1"]
    table = AdjudicationQueueEntry.__table__
    with database.engine.begin() as connection:  # plain SQL: no session, no queue code
        connection.execute(update(table).where(table.c.document_id == q1).values(
            {column: table.c[column] + 1}))
    (wrong,) = stored_equals_fresh(database, qa_study["project_id"])
    assert wrong.startswith("q1: stored")


def test_a_writer_without_the_commit_helper_leaves_the_entry_stale_not_wrong(database,
                                                                           qa_study):
    """Committing through the storage-only ``Database.session()`` marks but does not settle:
    the entry is stale (the queue page counts it) until ``refresh_stale`` recomputes it."""
    project_id = qa_study["project_id"]
    with database.session() as session:
        bulk.reopen(session, session.get(Project, project_id), [qa_study["docs"]["q1"]],
                    username="ana")
    assert stored_equals_fresh(database, project_id) == ["q1: stale"]
    with work.session(database) as session:
        assert store_refresh_stale(session, project_id) == 1
    assert stored_equals_fresh(database, project_id) == []


def test_the_web_pages_commit_only_through_the_commit_helper():
    """A bare commit in a view would skip settling the queue (web/commits.py)."""
    web = Path(__file__).resolve().parents[1] / "annotator" / "web"
    bare = [f"{path.name}:{number}" for path in sorted(web.glob("*.py"))
            if path.name != "commits.py"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"\.commit\(\)", line)]
    assert bare == []
    assert "commit_work()" in (web / "api.py").read_text(encoding="utf-8")


# The models a queue entry is computed from (annotator.study.queue_marks).
QUEUE_INPUTS = {"Assignment", "Edit", "Span", "Rating", "AdjudicationDecision",
                "AdjudicationState", "GoldEdit", "GoldRating", "TieBreakRequest"}
# Calling one of these marks the document (store.record / store.recorded call
# document_changed: every decision, and the gold and tie-breaks made with it).
MARKING_CALLS = {"document_changed", "project_changed", "record", "recorded"}
MARKING_MODULES = {"annotator.study.queue_marks", "annotator.adjudication.queue",
                   "annotator.adjudication.store"}
# Modules that build a queue input without changing what the entry reads: the view's
# default state of a document nobody adjudicated yet is never added to the session.
BUILDS_WITHOUT_CHANGING = {"adjudication/view.py"}


def _unmarked_writers() -> list[str]:
    """Modules that construct a queue input model (or run a bulk insert, update or delete
    on one) and call nothing that marks the document."""
    import ast

    package = Path(__file__).resolve().parents[1] / "annotator"
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name in BUILDS_WITHOUT_CHANGING or "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        models = {a.asname or a.name for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module == "annotator.models"
                  for a in node.names if a.name in QUEUE_INPUTS}
        marking = {a.asname or a.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.module in MARKING_MODULES
                   for a in node.names if a.name in MARKING_CALLS}
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        called = {c.func.id for c in calls if isinstance(c.func, ast.Name)} & marking
        called |= {f"{c.func.value.id}.{c.func.attr}" for c in calls
                   if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                   and c.func.value.id in ("store", "queue") and c.func.attr in MARKING_CALLS}
        writes = any(isinstance(c.func, ast.Name) and (
            c.func.id in models or (c.func.id in ("insert", "update", "delete") and c.args
                                    and isinstance(c.args[0], ast.Name)
                                    and c.args[0].id in models)) for c in calls)
        if writes and not called:
            found.append(name)
    return found


def test_every_module_writing_a_queue_input_marks_the_document():
    """Forgetting the mark cannot pass silently: a module that builds or bulk-writes an
    assignment, edit, span, rating, decision, state, gold or tie-break row calls
    ``document_changed`` (or a function that does)."""
    assert _unmarked_writers() == []


def test_the_writer_scan_finds_a_module_that_forgets(monkeypatch):
    """The scan above can fail: without its marking call the bulk module is reported."""
    original = Path.read_text

    def without_marks(path, *args, **kwargs):
        text = original(path, *args, **kwargs)
        if path.name == "bulk.py" and path.parent.name == "annotate":
            text = text.replace("document_changed(", "print(")
        return text

    monkeypatch.setattr(Path, "read_text", without_marks)
    assert _unmarked_writers() == ["annotate/bulk.py"]
