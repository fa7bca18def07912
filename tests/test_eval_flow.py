"""Evaluation modes through the database, the API and the commands: import with invalid
records flagged, sample, assignment, ratings via the API, "done" rules, results, exports
and the release hook."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.core.records import IngestError
from annotator.core.resources import demo_data_dir
from annotator.evaluation.qa_import import import_predictions, import_references
from annotator.evaluation.results import project_results
from annotator.evaluation.store import assign_items, draw_sample, mine_recall
from annotator.models import Assignment, EvalQAItem, EvalRecallPair, User
from annotator.releases import release_file
from annotator.study.projects import create_project
from tests.conftest import csrf_token, login


def _project(session, users, name, schema):
    from annotator.ingest import import_file

    project = create_project(session, name, schema, leads=[session.get(User, users["lee"])])
    import_file(session, project, demo_data_dir() / "eval_demo.jsonl")
    return project


def test_import_flags_invalid_spans_then_samples_and_assigns(database, users):
    with database.session() as session:
        project = _project(session, users, "qa", "qa-quality")
        report = import_predictions(session, project, demo_data_dir() / "qa_demo_predictions.json")
        assert report.stored == 11 and report.models == {"model-a": 5, "model-b": 6}
        assert len(report.invalid) == 1 and "does not occur" in report.invalid[0]["reason"]
        bad = session.scalar(select(EvalQAItem).where(EvalQAItem.valid.is_(False)))
        assert bad.question == "What was the dose of the calls?" and bad.problem
        chosen = draw_sample(session, project, per_model=2, seed=0)
        assert len(chosen) == 4 and bad.id not in chosen
        assert chosen == draw_sample(session, project, per_model=2, seed=0)
        created = assign_items(session, project, ["ana", "ben"])
        docs = {i.document_id for i in session.scalars(select(EvalQAItem).where(
            EvalQAItem.sampled.is_(True)))}
        assert created == 2 * len(docs)


def _rate_all(client, assignment_id, items, token, value="good", rationale=None):
    versions = {(r["item"], r["field"]): r["version"] for r in client.get(
        f"/eval/api/assignments/{assignment_id}").get_json()["ratings"]}
    for item in items:
        for field, v in (("givenness", value), ("localization", "good"), ("jargon", "none"),
                         ("standalone", "yes"), ("answerable_original", "single"),
                         ("answerable_simplification", "not"), ("answer_accuracy", "yes"),
                         ("evidence_accuracy", "yes"), ("hallucination", "none")):
            r = client.put(f"/api/assignments/{assignment_id}/ratings", headers={
                "X-CSRFToken": token}, json={"level": "qa", "item": str(item), "field": field,
                                             "value": v, "rationale": rationale,
                                             "version": versions.get((str(item), field))})
            assert r.status_code == 200, r.get_json()


def test_rating_page_payload_done_rule_and_results(app, client, database, users):
    with database.session() as session:
        project = _project(session, users, "qa", "qa-quality")
        import_predictions(session, project, demo_data_dir() / "qa_demo_predictions.json")
        draw_sample(session, project, per_model=1, seed=3)
        assign_items(session, project, ["ana", "ben"])
        pid = project.id
        mine = session.scalars(select(Assignment).join(User).where(User.username == "ana")
                               ).first()
        aid, doc = mine.id, mine.document_id
    login(client, "ana")
    assert client.get(f"/assignments/{aid}").headers["Location"].endswith(
        f"/eval/assignments/{aid}")
    data = client.get(f"/eval/api/assignments/{aid}").get_json()
    assert data["mode"] == "qa-quality" and data["items"]
    assert "model" not in data["items"][0]  # raters judge blind to the system
    items = [i["id"] for i in data["items"]]
    token = csrf_token(client, f"/eval/assignments/{aid}")
    status = lambda: client.post(f"/eval/api/assignments/{aid}/status",  # noqa: E731
                                 headers={"X-CSRFToken": token},
                                 json={"status": "done", "version": version()})
    version = lambda: client.get(f"/eval/api/assignments/{aid}").get_json()[  # noqa: E731
        "assignment"]["version"]
    assert client.post(f"/eval/api/assignments/{aid}/status", json={"status": "done"}
                       ).status_code == 400  # no CSRF header: refused
    _rate_all(client, aid, items, token, value="bad")
    refused = status()
    assert refused.status_code == 422
    assert "give a rationale" in refused.get_json()["missing"][0]["message"]
    _rate_all(client, aid, items, token, value="bad", rationale="uses 'ferritin', not in the text")
    assert status().status_code == 200
    login(client, "lee")
    overview = client.get(f"/projects/{pid}").get_data(as_text=True)
    assert f'href="/eval/projects/{pid}/results">Results</a>' in overview
    page = client.get(f"/eval/projects/{pid}/results").get_data(as_text=True)
    assert "Randolph" in page and "model-" in page
    with database.session() as session:
        from annotator.models import Project
        r = project_results(session, session.get(Project, pid))
    model = next(m for m in r["results"]["models"])
    assert r["results"]["by_model"][model]["givenness"]["good"] == 0.0
    assert r["items"]["model-b"]["invalid"] == 1
    csv_text = client.get(f"/eval/projects/{pid}/results.csv").get_data(as_text=True)
    assert csv_text.startswith("key,value\n") and "agreement.givenness.k,2" in csv_text
    with database.session() as session:  # the page offered only this document's items
        assert set(session.scalars(select(EvalQAItem.document_id).where(
            EvalQAItem.id.in_(items)))) == {doc}


def test_recall_mining_results_and_command(env, database, users, tmp_path):
    from annotator.align.embeddings import HashingEmbedder

    with database.session() as session:
        project = _project(session, users, "rc", "qa-recall")
        import_predictions(session, project, demo_data_dir() / "qa_demo_predictions.json")
        refs = import_references(session, project, demo_data_dir() / "qa_recall_demo_gold.jsonl")
        assert refs.stored == 4
        summary = mine_recall(session, project, HashingEmbedder(), threshold=0.2)
        pairs = session.scalars(select(EvalRecallPair)).all()
        # 4 references x the valid model QAs of their document: 2x4 + 1x4 + 1x2 = 14 pairs
        assert summary["pairs"] == len(pairs) == 14
        assert summary["saved"] == 1 - summary["candidates"] / 14
        assign_items(session, project, ["ana", "ben"])
        a = session.scalars(select(Assignment)).first()
        pair = next(p for p in pairs if p.candidate and p.document_id == a.document_id)
        from annotator.annotate.store import set_rating
        set_rating(session, a, {"level": "qa", "item": f"p{pair.id}", "field": "recall",
                                "value": "fully"}, a.user_id)
        r = project_results(session, project)
        assert r["recall"]["overall"]["fully"] == 0.25  # one of four references
        assert r["mining"]["pairs"] == 14
    out = CliRunner().invoke(main, ["results", "rc", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["recall"]["overall"]["fully"] == 0.25


def test_plaba_results_and_release_carries_them(env, database, users, config):
    from annotator.adjudication.overview import complete
    from annotator.annotate.assignment import assign_documents
    from annotator.annotate.store import set_rating
    from annotator.ingest import import_file
    from annotator.releases import cut_release

    with database.session() as session:
        project = create_project(session, "pl", "plaba", leads=[session.get(User, users["lee"])])
        import_file(session, project, demo_data_dir() / "plaba_demo.jsonl")
        assign_documents(session, project, ["ana", "ben"])
        for a in session.scalars(select(Assignment)):
            for i in range(len(a.document.target_sentences)):
                for axis in ("SIM", "ACC", "COM", "BRV"):
                    set_rating(session, a, {"level": "sentence", "item": str(i), "field": axis,
                                            "value": 1 if a.user.username == "ana" else 0},
                               a.user_id)
            a.status = "done"
        r = project_results(session, project)
        # ana always 1, ben always 0: mean 0.5 -> 75 on every axis, FIN 75
        assert r["scores"]["all"]["FIN"] == 75.0 and r["scores"]["model-a"]["SIM"] == 75.0
        from annotator.adjudication.ratings import apply_rating_rules
        from annotator.models import Document
        lee = session.get(User, users["lee"])
        docs = session.scalars(select(Document).where(Document.project_id == project.id)).all()
        for d in docs:
            apply_rating_rules(session, d, lee)
            for key in [i.key for i in __import__("annotator.adjudication.ratings", fromlist=[
                    "rating_items"]).rating_items(session, d) if i.gold is None]:
                from annotator.adjudication.ratings import resolve_rating
                resolve_rating(session, d, key, 1, lee)
            complete(session, d, lee)
        manifest = cut_release(session, project, "v1", bootstrap=0)
        results = release_file(session, project, "v1", "results/results.json")
    assert "results/results.json" in manifest["files"]
    assert json.loads(results)["scores"]["all"]["FIN"] == 75.0


def test_qa_files_are_read_strictly_with_file_and_line(database, users, tmp_path):
    """The QA importers use the importers' one strict reader: NaN, a lone surrogate or a
    NUL is refused naming file and line and nothing is stored; U+2028 inside a string is
    not a line break."""
    bad = {"qa.jsonl": '{"id": "x", "score": NaN}\n',
           "surrogate.jsonl": '\n{"id": "x\\ud800"}\n',
           "nul.jsonl": '{"id": "x\\u0000"}\n'}
    with database.session() as session:
        project = _project(session, users, "qa", "qa-quality")
        for name, text in bad.items():
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            with pytest.raises(IngestError) as refused:
                import_predictions(session, project, path)
            message = str(refused.value)
            assert f"{path}:{2 if name == 'surrogate.jsonl' else 1}" in message, message
            gold = tmp_path / f"gold-{name}"
            gold.write_text(text, encoding="utf-8")
            with pytest.raises(IngestError):
                import_references(session, project, gold)
        assert session.scalar(select(func.count()).select_from(EvalQAItem)) == 0
        spaced = tmp_path / "sep.jsonl"
        spaced.write_text('{"id": "not-here", "edits": [], "note": "a\u2028b"}\n',
                          encoding="utf-8")
        with pytest.raises(IngestError) as refused:  # one record, one line: no JSON error
            import_references(session, project, spaced)
        assert "not valid JSON" not in str(refused.value)
        assert f"{spaced}:1" in str(refused.value) and "not-here" in str(refused.value)


def test_align_command_refuses_nan_and_lone_surrogates_naming_line_and_field(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a", "source": "x", "target": "y"}\n'
                    '{"id": "b", "source": "x", "target": "y", "meta": {"p": NaN}}\n',
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["align", str(path), "--no-embeddings"])
    assert result.exit_code == 2 and f"{path}:2:" in result.output and "NaN" in result.output
    path.write_text('{"id": "a", "source": "x\\ud800", "target": "y"}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["align", str(path), "--no-embeddings"])
    assert result.exit_code == 2 and f"{path}:1: field 'source'" in result.output
    assert "lone surrogate" in result.output


@pytest.mark.parametrize("edits, field, message", [
    ('"oops"', "edits", "must be a list of edits"),
    ('["oops"]', "edits[0]", "must be an object"),
    ('[{"edit_type": ["x"], "fields": {"question": "Q?"}}]', "edits[0].edit_type",
     "must be a string"),
    ('[{"edit_type": "deletion", "fields": "Q?"}]', "edits[0].fields", "must be an object"),
    ('[{"edit_type": "deletion", "fields": {"question": 7}}]', "edits[0].fields.question",
     "must be a string"),
    ('[{"edit_type": "deletion", "fields": {"question": "Q?"}, "spans": [[1, 2]]}]',
     "edits[0].spans", "source/target"),
    ('[{"edit_type": "deletion", "fields": {"question": "Q?"}, "spans": {"source": [[1, 2, 3]]}}]',
     "edits[0].spans.source[0]", "[start, end]"),
    ('[{"edit_type": "deletion", "fields": {"question": "Q?"}, "spans": {"target": "1-2"}}]',
     "edits[0].spans.target", "list of [start, end]"),
])
def test_import_references_refuses_a_malformed_gold_record_naming_file_line_and_field(
        env, database, users, tmp_path, edits, field, message):
    """`eval import-references` reads gold records through the importers' boundary checks: a
    malformed record is FILE:LINE: field, exit 2, nothing stored (it was a traceback)."""
    with database.session() as session:
        _project(session, users, "rc", "qa-recall")
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "ev-01", "edits": []}\n'
                    f'{{"id": "ev-02", "edits": {edits}}}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "import-references", "rc", str(gold)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{gold}:2: field '{field}'" in result.output and message in result.output, result.output
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(EvalQAItem)) == 0


def test_import_references_keeps_a_span_outside_its_text_as_invalid_with_the_reason(
        database, users, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "ev-01", "edits": [{"edit_type": "deletion", "fields": '
                    '{"question": "How many?", "answer": "180."}, '
                    '"spans": {"source": [[5, 999999]], "target": []}}]}\n', encoding="utf-8")
    with database.session() as session:
        project = _project(session, users, "rc", "qa-recall")
        assert import_references(session, project, gold).stored == 1
        item = session.scalar(select(EvalQAItem))
        assert item.valid is False and item.evidence_spans == []
        assert "[5, 999999] lies outside the source text" in item.problem
