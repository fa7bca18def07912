"""A GET never writes (docs/architecture.md): the SQL the lead's data manager and the
adjudication pages send while answering a GET holds no INSERT, UPDATE or DELETE, on a
project whose documents are done and waiting for adjudication (the case that used to
recompute and commit queue entries inside the data manager's GET)."""

from __future__ import annotations

from sqlalchemy import event, update

from annotator.models import AdjudicationQueueEntry
from tests.adjudication_fixtures import qa_study  # noqa: F401  (fixture)
from tests.test_adjudication_web import lead_client, web_app  # noqa: F401  (fixture)

WRITES = ("INSERT", "UPDATE", "DELETE")


def test_get_routes_of_the_lead_send_no_writes(web_app, database, qa_study):  # noqa: F811
    pid, doc = qa_study["project_id"], qa_study["docs"]["q1"]
    client, _ = lead_client(web_app)
    with database.session() as session:  # entries waiting for recomputation
        session.execute(update(AdjudicationQueueEntry).values(stale=True))
        session.commit()
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    engine = web_app.extensions["annotator_db"].engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        for url in (f"/projects/{pid}/documents", f"/projects/{pid}/documents?sort=agreement",
                    f"/projects/{pid}/adjudicate", f"/projects/{pid}/adjudicate/{doc}/state"):
            answer = client.get(url)
            assert answer.status_code == 200, url
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert statements, "the pages were answered without reading the database"
    writes = [s for s in statements if s.lstrip().upper().startswith(WRITES)]
    assert writes == []
