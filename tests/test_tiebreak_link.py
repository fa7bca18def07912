"""A third annotator asked to break ties finds the task in their document list."""

from sqlalchemy import select

from annotator.adjudication.overview import apply_automatic
from annotator.adjudication.ratings import route_to_third
from annotator.models import Document, User
from tests.conftest import login


def test_routed_assignment_links_to_the_tiebreak_page(client, database, factuality_study):
    with database.session() as session:
        document = session.get(Document, factuality_study["document_id"])
        lee = session.get(User, factuality_study["users"]["lee"])
        apply_automatic(session, document, lee)
        assignment = route_to_third(session, document, ["pair|1|insertion"], lee)
        username = session.scalar(select(User.username).where(User.id == assignment.user_id))
        assignment_id = assignment.id
    login(client, username)
    page = client.get("/my").get_data(as_text=True)
    assert f'href="/tiebreak/{assignment_id}">Break ties</a>' in page
    assert client.get(f"/tiebreak/{assignment_id}").status_code == 200
