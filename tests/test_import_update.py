"""``annotator import --update``: an annotator's later annotation of an item replaces the
earlier one, audited with what it replaced and counted; refused while the item's
adjudication has started (the work is frozen) or is complete, accepted once the lead
reopens it."""

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.adjudication.decisions import reopen
from annotator.adjudication.store import record, state_of
from annotator.cli import main
from annotator.db import Database
from annotator.models import AuditEvent, Document, Edit, Span, User
from tests.helpers import infolossqa_pair
from tests.test_import_identity import thresh_record


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def test_update_replaces_audits_and_respects_adjudication(env, tmp_path):
    text = infolossqa_pair("1774569")
    for n, start in ((1, 0), (2, 30)):
        (tmp_path / f"batch{n}-ana.json").write_text(
            json.dumps([thresh_record("q1", *text, start)]), encoding="utf-8")
    assert run("project", "create", "p", "--schema", "infolossqa")[0] == 0
    args = ("--format", "thresh", "--annotator-from-filename", "batch?-{annotator}.json")
    assert run("import", "p", tmp_path / "batch1-ana.json", *args)[0] == 0
    database = Database(env["ANNOTATOR_DATABASE_URL"])

    def lead(step):
        """One step of the lead's on q1, then the re-rating imported with --update."""
        with database.session() as session:
            step(session, session.scalar(select(Document).where(
                Document.external_id == "q1")))
        return run("import", "p", tmp_path / "batch2-ana.json", *args, "--update")

    # The lead started adjudicating q1 (a decision on ana's edit): her work is frozen.
    code, out = lead(lambda session, document: record(
        session, document, "reject", None, source_edit_ids=list(session.scalars(
            select(Edit.id)))))
    assert code == 2
    assert "batch2-ana.json:1: field 'id': adjudication has started on document 'q1', so " \
        "the annotators' work is frozen: reopen its adjudication" in out
    # The lead completed the adjudication of q1: the re-rating is refused, naming why.
    code, out = lead(lambda session, document: setattr(state_of(session, document),
                                                        "status", "complete"))
    assert code == 2
    assert "batch2-ana.json:1: field 'id': document 'q1' is adjudicated: reopen its " \
        "adjudication before --update replaces the annotation by 'ana'" in out
    # Reopened: the later annotation replaces the earlier.
    code, out = lead(lambda session, document: reopen(session, document, None,
                                                      "ana re-annotated q1"))
    assert code == 0, out
    assert "; replaced 1" in out
    assert "batch2-ana.json:1: ana on q1 replaces the project's earlier annotation" in out
    assert "document q1 has adjudication decisions on ana's replaced work: review them" in out
    with database.session() as session:
        starts = session.scalars(select(Span.start).join(Edit).join(Edit.assignment).join(
            User).where(User.username == "ana")).all()
        assert starts == [30]  # the later annotation, the earlier one gone
        event = session.scalars(select(AuditEvent).where(
            AuditEvent.action == "annotations.replaced")).one()
        assert event.details["document"] == "q1" and event.details["annotator"] == "ana"
        assert event.details["edits"][0]["spans"][0]["start"] == 0  # what was replaced
        imported = session.scalars(select(AuditEvent).where(
            AuditEvent.action == "annotations.imported")).all()
        assert imported[-1].details["replaced"] == 1
    database.dispose()
