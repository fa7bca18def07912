"""`annotator prehighlight PROJECT --learn`: the ranker refitted on a project's completed
documents re-ranks the suggestions of the open ones (real database, real MiniLM model)."""

import json

from click.testing import CliRunner
from sqlalchemy import select

from annotator.align.learning import LearningDocument, training_set
from annotator.align.loss_ranker import SentenceRow, default_ranker
from annotator.align.store import loss_suggestion_marks, prehighlight_project
from annotator.align.store.learning import learn_project, learning_documents
from annotator.annotate.assignment import assign_documents
from annotator.cli import main
from annotator.core.edit_match import Mark
from annotator.core.resources import demo_data_dir
from annotator.ingest import import_file
from annotator.models import (
    Document,
    Edit,
    Project,
    Span,
    Suggestion,
    SuggestionAction,
    User,
)
from annotator.study.projects import create_project

DONE = 9  # documents both annotators finish; the other 6 stay open


def _open_suggestions(session, project):
    rows = session.execute(select(Document.external_id, Suggestion.kind, Suggestion.source_spans,
                                  Suggestion.score).join(Document)
                           .where(Document.project_id == project.id, Document.position >= DONE)
                           .order_by(Document.position, Suggestion.id)).all()
    return [(d, k, json.dumps(s), round(p, 4)) for d, k, s, p in rows
            if k in ("deletion", "oversimplification")]


def test_learn_refits_on_completed_documents_and_reranks_open_ones(database, users, tmp_path):
    with database.session() as session:
        project = create_project(session, "learnt", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, demo_data_dir() / "infolossqa_demo.jsonl")
        assign_documents(session, project, ["ana", "ben"])
        prehighlight_project(session, project)
        before = _open_suggestions(session, project)
        assert before, "the shipped model suggests something on the open documents"
        # Boxes where both kinds are likely carry both (issue #29), stored with each kind's
        # probability, and count as marks of both kinds in the agreement report.
        both = session.scalars(select(Suggestion).where(Suggestion.kind_scores.is_not(None))
                               ).all()
        assert both, "the shipped model puts both kinds on some demo box"
        assert all(set(s.kind_scores) == {"deletion", "oversimplification"}
                   and s.kind_scores[s.kind] == s.score and " or " in s.explanation.split(":")[0]
                   for s in both)
        two_kind_marks = [m for v in loss_suggestion_marks(session, project).values() for m in v
                          if m.also]
        assert len(two_kind_marks) == len(both)
        # On the completed documents, both annotators mark the *last* sentence of the
        # original as a deletion and dismiss every suggestion: a project-specific habit
        # the shipped model does not know.
        docs = session.scalars(select(Document).where(Document.project_id == project.id)
                               .order_by(Document.position)).all()
        for doc in docs[:DONE]:
            start, end = doc.source_sentences[-1]
            for assignment in doc.assignments:
                assignment.status = "done"
                edit = Edit(assignment=assignment, edit_type="deletion",
                            fields={"question": "What was concluded?", "answer": "x"})
                edit.spans.append(Span(side="source", start=start, end=end))
                session.add(edit)
                for suggestion in doc.suggestions:
                    session.add(SuggestionAction(suggestion_id=suggestion.id,
                                                 user_id=assignment.user_id, action="dismissed"))
        session.commit()

        learning = learning_documents(session, project)
        assert len(learning) == DONE
        assert all(len(d.marks) == 2 and all(len(m) == 1 for m in d.marks.values())
                   for d in learning)
        assert sum(len(d.actions) for d in learning) > 0

        summary = learn_project(session, project)
        assert summary.documents == DONE and summary.annotations == 2 * DONE
        assert summary.refreshed == len(docs) - DONE
        model = project.settings["align"]["loss_model"]
        assert model["trained_on"] == f"{DONE} completed documents of project learnt"
        after = _open_suggestions(session, project)
        assert after != before, "learning must change what the open documents show"
        # The habit was learnt: more of the open documents' last sentences are now
        # suggested as deletions.
        last_flagged = lambda rows: sum(  # noqa: E731
            1 for d, k, spans, _ in rows if k == "deletion" and any(
                json.loads(spans)[0][1] >= doc.source_sentences[-1][0]
                for doc in docs if doc.external_id == d))
        assert last_flagged(after) > last_flagged(before)
        # Suggestions of completed documents (someone acted on them) are left alone.
        kept = session.scalar(select(SuggestionAction.id).limit(1))
        assert kept is not None
        marks = loss_suggestion_marks(session, project)
        assert all(isinstance(m, Mark) for v in marks.values() for m in v)


def test_training_set_from_edits_and_actions():
    ranker = default_ranker()
    row = SentenceRow((0, 20), ranker.mean.copy())
    other = SentenceRow((30, 50), ranker.mean.copy())
    doc = LearningDocument("1", "x" * 50, "y", marks={"ana": [Mark("deletion", ((5, 8),))]},
                           actions=[("oversimplification", [(35, 40)], False)])
    rows, labels, weights = training_set([doc], {"1": [row, other]}, action_weight=2.0)
    # ana on both sentences, then the dismissal on the second sentence only.
    assert [r.span for r in rows] == [(0, 20), (30, 50), (30, 50)]
    assert labels["deletion"].tolist() == [1.0, 0.0, 0.0]
    assert labels["oversimplification"].tolist() == [0.0, 0.0, 0.0]
    assert weights["oversimplification"].tolist() == [1.0, 1.0, 2.0]
    assert weights["deletion"].tolist() == [1.0, 1.0, 0.0]


def test_cli_learn_and_auto_learn_switch(env, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["demo", "--no-serve"]).exit_code == 0
    # A demo project nobody has completed a document of (demo-infoloss ships with work).
    name = "demo-factuality"
    result = runner.invoke(main, ["prehighlight", name, "--learn", "--workers", "1"])
    assert result.exit_code == 1 and "no completed documents" in result.output
    result = runner.invoke(main, ["prehighlight", name, "--auto-learn",
                                  "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "automatic learning on" in result.output
    assert "automatic learning skipped" in result.output  # nothing completed yet: says so
    from annotator.config import Config
    from annotator.db import Database

    database = Database(Config.from_env().database_url)
    with database.session() as session:
        project = session.scalar(select(Project).where(Project.name == name))
        assert project.settings["prehighlight"]["auto_learn"] is True
    database.dispose()
