"""`annotator agreement` on the demo project after two annotators complete it."""

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from annotator.cli import main
from annotator.core.resources import demo_data_dir
from annotator.db import Database
from annotator.models import (
    Assignment,
    Document,
    Edit,
    Project,
    Span,
    Suggestion,
    SuggestionAction,
    User,
)
from annotator.operations.demo import create_demo


@pytest.fixture(scope="module")
def completed_demo(module_database_url, tmp_path_factory):
    """Built once for the module (its tests only read). The demo projects without the
    embedding model: the pre-highlighter precision needs suggestions, not the model, so
    three deletion suggestions are stored at planted deletions. ana marks every planted
    deletion exactly; ben marks the first half exactly and the rest one character short,
    so exact F1 for deletions is known in advance."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANNOTATOR_DATABASE_URL", module_database_url)
        env.setenv("ANNOTATOR_INSTANCE_PATH", str(tmp_path_factory.mktemp("instance")))
        database = Database(module_database_url)
        database.upgrade()
        planted = [p for p in json.loads((demo_data_dir() / "infolossqa_demo_planted.json")
                                         .read_text()) if p["kind"] == "deletion"]
        with database.session() as session:
            create_demo(session, with_work=False)  # the edits below are all the work
            project = session.scalar(select(Project).where(Project.name == "demo-infoloss"))
            documents = {d.external_id: d for d in session.scalars(
                select(Document).where(Document.project_id == project.id))}
            assignments = {
                (a.document.external_id, a.user.username): a
                for a in session.scalars(select(Assignment).join(Document).where(
                    Document.project_id == project.id))
            }
            for i, problem in enumerate(planted):
                start, end = problem["source_span"]
                for who, shift in (("ana", 0), ("ben", 0 if i < len(planted) // 2 else 1)):
                    session.add(Edit(assignment=assignments[(problem["id"], who)],
                                     edit_type="deletion",
                                     fields={"question": "What was lost?", "answer": "A detail."},
                                     spans=[Span(side="source", start=start, end=end - shift)]))
            for assignment in assignments.values():
                assignment.status = "done"
            # ana accepts two deletion suggestions and dismisses one: precision 2/3.
            ana = session.scalar(select(User).where(User.username == "ana"))
            for problem, action in zip(planted, ("accepted", "accepted", "dismissed")):
                suggestion = Suggestion(kind="deletion", source_spans=[problem["source_span"]],
                                        method="test", explanation="planted deletion",
                                        score=0.9)
                documents[problem["id"]].suggestions.append(suggestion)
                session.flush()
                session.add(SuggestionAction(suggestion_id=suggestion.id, user_id=ana.id,
                                             action=action))
        database.dispose()
        yield {"deletions": len(planted), "exact": len(planted) // 2}


def test_agreement_json_on_the_demo_project(completed_demo, tmp_path):
    html = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["agreement", "demo-infoloss", "--json", "--no-embeddings",
                                       "--bootstrap", "50", "--html", str(html)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["project"] == "demo-infoloss"
    assert report["prehighlighters"]["deletion"]["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["prehighlighters"]["deletion"]["accepted"] == 2
    assert report["counts"]["edits"] == 2 * completed_demo["deletions"]
    assert report["counts"]["documents_with_2plus_annotators"] == report["counts"]["documents"]
    source = report["spans"]["source"]
    assert source["labels"] == ["deletion", "oversimplification"]
    expected = completed_demo["exact"] / completed_demo["deletions"]
    assert source["exact"]["per_label"]["deletion"]["value"] == pytest.approx(expected)
    assert source["exact"]["counts"]["deletion"] == {
        "tp": completed_demo["exact"], "fp": completed_demo["deletions"] - completed_demo["exact"],
        "fn": completed_demo["deletions"] - completed_demo["exact"]}
    # One character short of a multi-word span still overlaps with token IoU >= 0.5.
    assert source["partial"]["per_label"]["deletion"]["value"] == pytest.approx(1.0)
    # Both annotators mark the same sentences, so sentence-level alpha is perfect.
    assert source["sentence_alpha"]["binary"]["value"] == pytest.approx(1.0)
    page = html.read_text()
    assert "<h2>Pre-highlighters</h2>" in page
    # The suggestions scored like one more annotator, beside the annotators, with a chart.
    section = report["prehighlights_as_annotator"]
    assert 0 < section["documents"] <= report["counts"]["documents_with_2plus_annotators"]
    assert "<h2>Pre-highlights as an annotator</h2>" in page
    as_annotator = page.split("<h2>Pre-highlights as an annotator</h2>")[1].split("<h2>")[0]
    ratio = section["overall"]["all"]["ratio"]
    assert f"<td class='num'>{ratio:.3f}</td>" in as_annotator
    assert "data:image/png;base64," in as_annotator
    assert page.startswith("<!doctype html>") or page.lower().startswith("<!doctype html>")
    assert "http://" not in page and "https://" not in page.replace("https://doi", "")


def test_agreement_summary_is_readable(completed_demo):
    result = CliRunner().invoke(main, ["agreement", "demo-infoloss", "--no-embeddings",
                                       "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("demo-infoloss: ")
    assert "sentence_alpha" in result.output
