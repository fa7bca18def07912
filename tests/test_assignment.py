"""Each document goes to N different annotators, balanced across the pool."""

from collections import Counter

import pytest

from annotator.annotate.assignment import AssignmentError, assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, Document, Project
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.conftest import PASSWORD
from tests.helpers import pairs, write_jsonl


@pytest.fixture
def project_with_docs(database, tmp_path):
    def make(n_docs, n_annotators, per_doc=2):
        with database.session() as session:
            for i in range(n_annotators):
                create_user(session, f"a{i}", PASSWORD, "annotator")
            project = create_project(session, "p", "infolossqa", annotators_per_doc=per_doc)
            import_file(session, project, write_jsonl(tmp_path / "p.jsonl", pairs(n_docs)))
            return project.id
    return make


def assignments(database, project_id):
    with database.session() as session:
        return [(a.document_id, a.user_id) for a in session.query(Assignment).join(Document)
                .filter(Document.project_id == project_id)]


@pytest.mark.parametrize("n_docs, n_annotators, per_doc", [(13, 3, 2), (10, 5, 3), (7, 2, 2)])
def test_balanced_and_never_the_same_person_twice(database, project_with_docs, n_docs,
                                                  n_annotators, per_doc):
    project_id = project_with_docs(n_docs, n_annotators, per_doc)
    with database.session() as session:
        summary = assign_documents(session, session.get(Project, project_id))
    rows = assignments(database, project_id)
    assert summary.created == n_docs * per_doc == len(rows)
    assert len(set(rows)) == len(rows)  # no (document, annotator) twice
    per_document = Counter(doc for doc, _ in rows)
    assert set(per_document.values()) == {per_doc}
    load = Counter(user for _, user in rows)
    assert len(load) == n_annotators
    assert max(load.values()) - min(load.values()) <= 1
    assert sum(summary.load.values()) == n_docs * per_doc


def test_rerun_tops_up_only_new_documents(database, project_with_docs, tmp_path):
    project_id = project_with_docs(4, 3)
    with database.session() as session:
        assign_documents(session, session.get(Project, project_id))
    before = set(assignments(database, project_id))
    with database.session() as session:
        project = session.get(Project, project_id)
        import_file(session, project, write_jsonl(tmp_path / "more.jsonl", pairs(2, "new")))
        summary = assign_documents(session, project)
    after = set(assignments(database, project_id))
    assert summary.created == 4
    assert before < after and len(after) == 12
    load = Counter(user for _, user in after)
    assert max(load.values()) - min(load.values()) <= 1


def test_pool_smaller_than_n_is_refused(database, project_with_docs):
    project_id = project_with_docs(3, 1)
    with database.session() as session:
        with pytest.raises(AssignmentError, match="needs 2 annotators per document"):
            assign_documents(session, session.get(Project, project_id))
    assert assignments(database, project_id) == []


def test_named_pool_must_be_annotators(database, project_with_docs):
    project_id = project_with_docs(2, 2)
    with database.session() as session:
        create_user(session, "boss", PASSWORD, "lead")
        with pytest.raises(AssignmentError, match="'boss' is a lead"):
            assign_documents(session, session.get(Project, project_id), ["a0", "boss"])


def test_batches_give_what_one_pass_gives(database, project_with_docs, monkeypatch):
    """`assign` streams the documents BATCH at a time (issue 44); the loads carried from
    batch to batch keep the result that of one pass over every document."""
    from annotator.annotate import assignment

    project_id = project_with_docs(23, 3)
    with database.session() as session:  # equal positions across a batch boundary
        for document in session.query(Document).filter_by(project_id=project_id):
            document.position = document.position // 3
    monkeypatch.setattr(assignment, "BATCH", 4)
    with database.session() as session:
        streamed = assign_documents(session, session.get(Project, project_id))
    in_batches = sorted(assignments(database, project_id))
    with database.session() as session:
        session.query(Assignment).delete()
    monkeypatch.setattr(assignment, "BATCH", 1000)
    with database.session() as session:
        whole = assign_documents(session, session.get(Project, project_id))
    assert streamed.created == whole.created == 46
    assert in_batches == sorted(assignments(database, project_id))
    assert len(set(in_batches)) == 46
