"""Fixtures and builders of the adjudication and release tests (a pytest plugin loaded by
conftest.py: tests request the fixtures by name and import only the builders).

Two small studies: ``qa_study`` (InfoLossQA edits by ana and ben on three documents) and
``factuality_study`` (Devaraj-style ratings of sentence pairs by ana, ben and, on request,
a third annotator cy).
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.overview import apply_automatic, complete
from annotator.annotate.assignment import assign_documents
from annotator.annotate.store import create_edit, set_rating, set_status
from annotator.ingest import import_file
from annotator.models import Assignment, Document, Project, User
from annotator.operations import work
from annotator.releases import cut_release
from annotator.releases.browse import release_folder
from annotator.releases.export import export_folder
from annotator.releases.store import find_release
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.conftest import PASSWORD
from tests.helpers import write_jsonl

SOURCE = ("Patients received 2.5 mg/kg i.v. daily for 12 weeks. The trial was double-blind "
          "and placebo-controlled. Pain fell by 40% (p < 0.01).")
TARGET = "Patients got a drug every day. The study was fair. Pain went down a lot."


def phrase_span(text: str, phrase: str, side: str) -> dict:
    start = text.index(phrase)
    return {"side": side, "start": start, "end": start + len(phrase)}


def assignment_of(session, document: Document, username: str) -> Assignment:
    return session.scalar(select(Assignment).join(User).where(
        Assignment.document_id == document.id, User.username == username))


def qa_edit(session, document, username, edit_type, source_phrase, question,
                       answer="x", target_phrase=None, **fields):
    a = assignment_of(session, document, username)
    spans = [phrase_span(document.source, source_phrase, "source")]
    if target_phrase:
        spans.append(phrase_span(document.target, target_phrase, "target"))
    return create_edit(session, a, {"edit_type": edit_type, "spans": spans, "fields": {
        "question": question, "answer": answer, **fields}}, a.user_id)


def mark_done(session, document, *usernames):
    for name in usernames:
        a = assignment_of(session, document, name)
        assert set_status(session, a, "done", a.version, a.user_id) == []


@pytest.fixture
def qa_study(database, users, tmp_path):
    """Project 'qa' (lead lee), documents q1..q3 assigned to ana and ben. q1 carries a
    disagreement: overlapping dosage evidence with different questions, plus an edit only
    ben made; q2 has identical edits from both; q3 is not finished."""
    records = [{"id": f"q{i}", "source": SOURCE, "target": TARGET, "meta": {"system": "m"}}
               for i in (1, 2, 3)]
    with work.session(database) as session:
        lee = session.get(User, users["lee"])
        project = create_project(session, "qa", "infolossqa", leads=[lee])
        import_file(session, project, write_jsonl(tmp_path / "qa.jsonl", records))
        assign_documents(session, project, ["ana", "ben"])
        docs = {d.external_id: d for d in project.documents}
        q1, q2 = docs["q1"], docs["q2"]
        e1 = qa_edit(session, q1, "ana", "deletion", "2.5 mg/kg i.v. daily",
                      "How much of the drug did patients get?", severity=2)
        e2 = qa_edit(session, q1, "ben", "deletion", "2.5 mg/kg i.v.",
                      "What dose did patients receive?", severity=1)
        e3 = qa_edit(session, q1, "ben", "oversimplification", "double-blind",
                      "How was the study designed?", target_phrase="fair")
        e4 = qa_edit(session, q2, "ana", "deletion", "(p < 0.01)", "Was the change significant?")
        e5 = qa_edit(session, q2, "ben", "deletion", "(p < 0.01)", "Was the change significant?")
        mark_done(session, q1, "ana", "ben")
        mark_done(session, q2, "ana", "ben")
        return {"project_id": project.id, "docs": {k: d.id for k, d in docs.items()},
                "edits": {"e1": e1.id, "e2": e2.id, "e3": e3.id, "e4": e4.id, "e5": e5.id},
                "users": users}


def _rate(session, document, username, values: dict[tuple[int, str], int]):
    a = assignment_of(session, document, username)
    for (pair, field), value in values.items():
        set_rating(session, a, {"level": "pair", "item": str(pair), "field": field,
                                "value": value}, a.user_id)


@pytest.fixture
def factuality_study(database, users, tmp_path):
    """Project 'fact' (factuality schema, lead lee): document f1 with two sentence pairs,
    rated by ana and ben: pair 0 agrees everywhere, pair 1 disagrees on insertion (1 vs 2)
    and on deletion (0 vs 1). A third annotator, cy, exists but holds nothing."""
    records = [{"id": "f1", "sentences": [
        {"source": "Mice received 5 mg of drug X.", "target": "Mice got a drug."},
        {"source": "Tumours shrank by half.", "target": "Tumours grew, doctors said."}]}]
    with work.session(database) as session:
        cy = create_user(session, "cy", PASSWORD, "annotator")
        lee = session.get(User, users["lee"])
        project = create_project(session, "fact", "factuality", leads=[lee])
        import_file(session, project, write_jsonl(tmp_path / "fact.jsonl", records))
        assign_documents(session, project, ["ana", "ben"])
        f1 = project.documents[0]
        base = {(0, "insertion"): 0, (0, "deletion"): 1, (0, "substitution"): 0,
                (1, "substitution"): 2}
        _rate(session, f1, "ana", {**base, (1, "insertion"): 1, (1, "deletion"): 0})
        _rate(session, f1, "ben", {**base, (1, "insertion"): 2, (1, "deletion"): 1})
        mark_done(session, f1, "ana", "ben")
        return {"project_id": project.id, "document_id": f1.id, "cy": cy.id, "users": users}


def load(session, ids: dict, name: str) -> Document:
    return session.get(Document, ids["docs"][name])


def project_of(session, ids) -> Project:
    return session.get(Project, ids["project_id"])


@pytest.fixture
def adjudicated(database, qa_study):
    """q2 resolved by the automatic rules; q1 by the lead (accept ben's dose question,
    reject the design edit); q3 never finished."""
    with work.session(database) as session:
        lee = session.get(User, qa_study["users"]["lee"])
        apply_automatic(session, load(session, qa_study, "q2"))
        q1 = load(session, qa_study, "q1")
        units = store.current_units(session, q1)
        d.accept(session, q1, units[0].edit_ids, qa_study["edits"]["e2"], lee)
        d.reject(session, q1, units[1].edit_ids, lee, "design still stated")
        complete(session, q1, lee)
    return qa_study


def release(database, ids, exports=None, version="v1", **options):
    """Cut release ``version`` into the database; with ``exports``, also export it as the
    folder ``<exports>/<slug>/<version>/`` that tests read files from."""
    with work.session(database) as session:
        project = project_of(session, ids)
        manifest = cut_release(session, project, version, bootstrap=20, **options)
        if exports is not None:
            export_folder(session, find_release(session, project, version),
                          release_folder(exports, project.slug, version))
        return manifest
