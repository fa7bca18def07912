"""Lists stay paginated however large the study."""

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, User
from annotator.study.projects import create_project
from tests.conftest import login
from tests.helpers import pairs, write_jsonl


def test_my_documents_pages_in_document_order(client, database, users, tmp_path):
    with database.session() as session:
        project = create_project(session, "big", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "big.jsonl", pairs(120)))
        assign_documents(session, project, ["ana", "ben"])
        first = session.query(Assignment).filter_by(user_id=users["ana"]).order_by(
            Assignment.id).first()
        first.status = "done"
    login(client, "ana")
    page1 = client.get("/my").get_data(as_text=True)
    assert page1.count("<tr data-status=") == 50
    assert "1 of 120" in page1 and "page 1 of 3" in page1
    # A finished document stays where it is in document order, not moved to a later page.
    assert page1.index('data-status="done" data-document="d1"') < page1.index('data-document="d2"')
    page3 = client.get("/my?page=3").get_data(as_text=True)
    assert page3.count("<tr data-status=") == 20
    assert 'data-status="done"' not in page3
    todo = client.get("/my?show=todo").get_data(as_text=True)
    assert "119 document(s)" in todo and 'data-status="done"' not in todo

    login(client, "lee")
    overview = client.get(f"/projects/{project.id}").get_data(as_text=True)
    assert overview.count("ana · ") == 50 and "page 1 of 3" in overview
