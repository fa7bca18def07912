"""The automatic refresh a lead switches on (issue #14): completing the Nth document through
the annotation API queues a refit job (issue 31) that a worker runs: it refits the
project's ranker and re-ranks the open documents' loss suggestions, keeping the ones an
annotator acted on. Real database (SQLite, or PostgreSQL with ANNOTATOR_TEST_POSTGRES_URL),
real MiniLM model, real app, real worker."""

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from annotator.align.embeddings import default_embedder
from annotator.align.learning import LearningDocument, document_rows
from annotator.align.loss_ranker import default_ranker, ranker_from_settings
from annotator.align.store import prehighlight_project
from annotator.align.store.auto_refresh import after_completion
from annotator.align.store.learning import (
    completed_document_count,
    last_fit,
    refit_every,
    set_auto_learn,
)
from annotator.annotate.assignment import assign_documents
from annotator.cli import main
from annotator.core.resources import demo_data_dir
from annotator.ingest import import_file
from annotator.models import (
    Assignment,
    AuditEvent,
    Document,
    Job,
    Project,
    Suggestion,
    SuggestionAction,
    User,
)
from annotator.operations.worker import Worker
from annotator.study.projects import create_project
from tests.api_helpers import Api
from tests.conftest import csrf_token, login

EVERY = 3
LOSS = ("deletion", "oversimplification")


@pytest.fixture
def project_id(database, users):
    """The 15 demo abstracts, pre-highlighted with the shipped model, each assigned to ana."""
    with database.session() as session:
        project = create_project(session, "auto", "infolossqa", annotators_per_doc=1,
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, demo_data_dir() / "infolossqa_demo.jsonl")
        assign_documents(session, project, ["ana"])
        prehighlight_project(session, project)
        return project.id


def _assignments(database, project_id):
    with database.session() as session:
        rows = session.execute(select(Assignment.id, Document.id, Document.source_sentences)
                               .join(Document).where(Document.project_id == project_id)
                               .order_by(Document.position)).all()
        return [(a, d, sents) for a, d, sents in rows]


def _loss_suggestions(database, document_ids):
    with database.session() as session:
        rows = session.execute(select(Suggestion.id, Suggestion.document_id, Suggestion.kind,
                                      Suggestion.source_spans, Suggestion.score)
                               .where(Suggestion.document_id.in_(document_ids),
                                      Suggestion.kind.in_(LOSS))
                               .order_by(Suggestion.document_id, Suggestion.id)).all()
        return {r[0]: (r[1], r[2], json.dumps(r[3]), r[4]) for r in rows}


def _complete(api, assignment_id, sentences):
    """ana marks the last sentence of the original as a deletion (a habit the shipped
    model does not have) and marks the document done."""
    start, end = sentences[-1]
    response = api.send("POST", f"/api/assignments/{assignment_id}/edits", {
        "edit_type": "deletion", "fields": {"question": "What did they conclude?",
                                            "answer": "That it works."},
        "spans": [{"side": "source", "start": start, "end": end}]})
    assert response.status_code == 201, response.get_json()
    version = response.get_json()["assignment"]["version"]
    response = api.send("POST", f"/api/assignments/{assignment_id}/status",
                        {"status": "done", "version": version})
    assert response.status_code == 200, response.get_json()


def _refits(database, project_id):
    with database.session() as session:
        return session.scalars(select(AuditEvent).where(
            AuditEvent.project_id == project_id, AuditEvent.action == "prehighlight.learn")
            .order_by(AuditEvent.id)).all()


def _refit_jobs(database, project_id):
    """(state, attempts) of the project's refit jobs, oldest first."""
    with database.session() as session:
        return [(j.state, j.attempts) for j in session.scalars(select(Job).where(
            Job.project_id == project_id, Job.kind == "refit").order_by(Job.id))]


def test_completing_the_nth_document_refits_and_reranks_open_documents(
        app, database, users, project_id):
    with database.session() as session:
        project = session.get(Project, project_id)
        set_auto_learn(session, project, True, EVERY, user_id=users["lee"])
    rows = _assignments(database, project_id)
    open_ids = [d for _, d, _ in rows[EVERY:]]
    before = _loss_suggestions(database, open_ids)
    assert before, "the shipped model suggests something on the open documents"

    # On an open document ana has already dismissed one suggestion: it must survive as is.
    kept_id = next(iter(before))
    kept_doc = before[kept_id][0]
    with database.session() as session:
        assignment = session.scalar(select(Assignment).where(Assignment.document_id == kept_doc))
        session.add(SuggestionAction(suggestion_id=kept_id, user_id=assignment.user_id,
                                     action="dismissed"))

    # The Nth save comes back with a refit queued, not run: the save does not wait for it.
    api = Api(app, "ana")
    for k, (assignment_id, _, sentences) in enumerate(rows[:EVERY]):
        _complete(api, assignment_id, sentences)
        if k < EVERY - 1:
            assert _refit_jobs(database, project_id) == [], "no refit before the Nth document"
    assert _refit_jobs(database, project_id) == [("queued", 0)]
    assert _refits(database, project_id) == []
    with database.session() as session:
        # A second completion while the refit waits queues nothing more (one per project).
        job = after_completion(session, session.get(Project, project_id))
        assert job is not None and job.state == "queued"
    assert _refit_jobs(database, project_id) == [("queued", 0)]
    # Two jobs: the import's pre-highlighting (the fixture did it already: nothing left),
    # then the refit.
    assert Worker(database, poll_seconds=0.1).run(once=True) == 2
    assert _refit_jobs(database, project_id) == [("done", 1)]

    refits = _refits(database, project_id)
    assert len(refits) == 1
    assert refits[0].details["trigger"] == "auto-refresh"
    assert refits[0].details["documents"] == EVERY
    assert refits[0].details["refreshed"] == len(open_ids)
    with database.session() as session:
        project = session.get(Project, project_id)
        assert project.settings["align"]["loss_model"]["trained_on"] == \
            f"{EVERY} completed documents of project auto"
        assert last_fit(project)["completed"] == EVERY == completed_document_count(session,
                                                                                  project)
    after = _loss_suggestions(database, open_ids)
    assert after[kept_id] == before[kept_id], "a dismissed suggestion stays as it was"
    changed = {i for i in before if i in after and after[i] != before[i]}
    gone_or_new = set(before) ^ set(after)
    assert changed or gone_or_new, "the refit must change the open documents' suggestions"
    # The learnt habit: the project's model gives the open documents' last sentences a
    # higher deletion probability than the shipped model did.
    with database.session() as session:
        learnt = ranker_from_settings(session.get(Project, project_id).settings["align"]
                                      ["loss_model"])
        open_docs = [LearningDocument(str(d.id), d.source, d.target) for d in
                     session.scalars(select(Document).where(Document.id.in_(open_ids)))]
    last_rows = [document_rows(d, default_embedder())[-1] for d in open_docs]
    assert learnt.probabilities(last_rows)["deletion"].mean() > \
        default_ranker().probabilities(last_rows)["deletion"].mean()

    # One more completed document is not enough for another refit.
    assignment_id, _, sentences = rows[EVERY]
    _complete(api, assignment_id, sentences)
    assert _refit_jobs(database, project_id) == [("done", 1)]
    assert len(_refits(database, project_id)) == 1


def test_switched_off_nothing_happens(app, database, users, project_id):
    rows = _assignments(database, project_id)
    api = Api(app, "ana")
    for assignment_id, _, sentences in rows[:EVERY]:
        _complete(api, assignment_id, sentences)
    assert _refit_jobs(database, project_id) == []
    assert _refits(database, project_id) == []
    # Switched on later, the documents completed meanwhile count: the next one refits.
    with database.session() as session:
        set_auto_learn(session, session.get(Project, project_id), True, EVERY + 1,
                       user_id=users["lee"])
    assignment_id, _, sentences = rows[EVERY]
    _complete(api, assignment_id, sentences)
    assert Worker(database, poll_seconds=0.1).run(once=True) == 2  # the import's, the refit
    assert _refit_jobs(database, project_id) == [("done", 1)]
    assert [e.details["documents"] for e in _refits(database, project_id)] == [EVERY + 1]


def test_settings_page_switches_it_and_audits(app, database, users, project_id):
    client = app.test_client()
    login(client, "lee")
    page = client.get(f"/projects/{project_id}/settings")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="auto-learn"' in html and "checked" not in html.split('id="auto-learn"')[1][:20]
    assert f"/projects/{project_id}/settings" in client.get(f"/projects/{project_id}").get_data(
        as_text=True)
    token = csrf_token(client, f"/projects/{project_id}/settings")
    url = f"/projects/{project_id}/settings/prehighlight"
    response = client.post(url, data={"csrf_token": token, "auto_learn": "on",
                                      "refit_every": "7"}, follow_redirects=True)
    assert "Automatic refresh on: refit after every 7 newly completed documents." in \
        response.get_data(as_text=True)
    refused = client.post(url, data={"csrf_token": token, "refit_every": "0"},
                          follow_redirects=True).get_data(as_text=True)
    assert "expected a whole number of at least 1, got &#39;0&#39;" in refused
    with database.session() as session:
        project = session.get(Project, project_id)
        assert project.settings["prehighlight"]["auto_learn"] is True
        assert refit_every(project) == 7
        events = session.scalars(select(AuditEvent).where(
            AuditEvent.action == "prehighlight.auto_learn")).all()
        assert len(events) == 1 and events[0].user_id == users["lee"]
        assert events[0].details["after"] == {"auto_learn": True, "refit_every": 7}
    client.post(url, data={"csrf_token": token, "refit_every": "7"})  # box unticked: off
    with database.session() as session:
        assert session.get(Project, project_id).settings["prehighlight"]["auto_learn"] is False
    # Annotators (and leads of other projects) do not see the page.
    other = app.test_client()
    login(other, "ana")
    assert other.get(f"/projects/{project_id}/settings").status_code == 403
    assert other.post(url, data={"csrf_token": csrf_token(other, "/my"),
                                 "auto_learn": "on", "refit_every": "2"}).status_code == 403


def test_cli_switch_with_refit_every(env, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["demo", "--no-serve"]).exit_code == 0
    result = runner.invoke(main, ["prehighlight", "demo-infoloss", "--auto-learn",
                                  "--refit-every", "2", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "automatic learning on for demo-infoloss (refit after every 2" in result.output
    result = runner.invoke(main, ["prehighlight", "demo-infoloss", "--refit-every", "0"])
    assert result.exit_code == 2 and "--refit-every" in result.output
    from annotator.config import Config
    from annotator.db import Database

    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == "demo-infoloss"))
        assert project.settings["prehighlight"]["refit_every"] == 2
        assert session.scalar(select(AuditEvent.id).where(
            AuditEvent.action == "prehighlight.auto_learn"))
    database.dispose()
