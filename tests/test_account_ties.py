"""Who may manage an account follows every tie between the person and a project
(annotator.study.account_ties, issue 41 finding 3): membership, documents still held,
tie-break assignments, adjudication work. The walk makes and removes each kind of tie and
checks, after every step, which lead may manage the person, through the rule and through
the users page's own routes."""

from __future__ import annotations

from sqlalchemy import delete, select

from annotator.adjudication.overview import apply_automatic
from annotator.adjudication.ratings import resolve_rating, route_to_third
from annotator.annotate import bulk
from annotator.ingest import import_file
from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.study.account_ties import may_manage, tied_projects
from annotator.study.accounts import authenticate, create_user, set_role
from annotator.study.projects import add_member, create_project
from tests.conftest import PASSWORD, csrf_token, login
from tests.helpers import pairs, write_jsonl


def post(client, path, **form):
    token = csrf_token(client, "/users/")
    return client.post(path, data={"csrf_token": token, **form}, follow_redirects=True)


def _second_project(database, tmp_path, lead_name: str, project_name: str) -> int:
    with database.session() as session:
        lead = create_user(session, lead_name, PASSWORD, "lead")
        project = create_project(session, project_name, "infolossqa", leads=[lead])
        import_file(session, project, write_jsonl(tmp_path / f"{project_name}.jsonl",
                                                  pairs(2, prefix=project_name)))
        return project.id


def _managers(database, name: str) -> set[str]:
    """The leads (of lee, lia) the rule lets manage ``name``."""
    with database.session() as session:
        user = session.scalar(select(User).where(User.username == name))
        return {lead for lead in ("lee", "lia") if may_manage(
            session, session.scalar(select(User).where(User.username == lead)), user)}


def _user_id(database, name: str) -> int:
    with database.session() as session:
        return session.scalar(select(User.id).where(User.username == name))


def _page_allows(client, lead: str, name: str) -> bool:
    """Whether ``lead`` sees ``name`` on the users page and may change their e-mail there
    (the same rule as the password reset; an e-mail change leaves the password alone)."""
    login(client, lead)
    listed = f'data-user="{name}"' in client.get("/users/").get_data(as_text=True)
    answer = post(client, f"/users/{_user_id(database_of(client), name)}/email", email="")
    assert listed == (answer.status_code == 200)
    return listed


def database_of(client):
    return client.application.extensions["annotator_db"]


def test_every_tie_made_and_removed_moves_who_may_manage(client, database, factuality_study,
                                                         tmp_path):
    other = _second_project(database, tmp_path, "lia", "other")
    fact = factuality_study["project_id"]
    steps = []

    def check(step: str, expected: set[str], ties: set[int]):
        with database.session() as session:
            found = tied_projects(session, [factuality_study["cy"]])[factuality_study["cy"]]
        steps.append(step)
        assert found == ties, step
        assert _managers(database, "cy") == expected, step
        for lead in ("lee", "lia"):
            assert _page_allows(client, lead, "cy") == (lead in expected), (step, lead)

    check("no tie yet: any lead may add cy", {"lee", "lia"}, set())
    with database.session() as session:
        add_member(session, session.get(Project, other), session.get(
            User, factuality_study["cy"]), "annotator")
    check("member of other", {"lia"}, {other})
    login(client, "lia")
    post(client, f"/users/{factuality_study['cy']}/projects/{other}/remove")
    check("removed from other, holding nothing", {"lee", "lia"}, set())
    with database.session() as session:
        project = session.get(Project, other)
        documents = [d.id for d in project.documents]
        bulk.assign_to(session, project, documents, "cy")
    check("assigned other's documents (and so a member)", {"lia"}, {other})
    login(client, "lia")
    post(client, f"/users/{factuality_study['cy']}/projects/{other}/remove")
    check("removed from other, still holding its documents", {"lia"}, {other})
    with database.session() as session:
        project = session.get(Project, other)
        create_user(session, "dan", PASSWORD, "annotator")
        add_member(session, project, session.get(User, factuality_study["cy"]), "annotator")
        bulk.reassign(session, project, documents, "cy", "dan")
        session.execute(delete(ProjectMember).where(
            ProjectMember.user_id == factuality_study["cy"]))
    check("documents reassigned to dan, membership removed", {"lee", "lia"}, set())
    with database.session() as session:
        document = session.get(Document, factuality_study["document_id"])
        lee = session.get(User, factuality_study["users"]["lee"])
        apply_automatic(session, document, lee)
        routed = route_to_third(session, document, ["pair|1|insertion"], lee, username="cy")
        routed_id = routed.id
    check("given fact's tie to break (never a member)", {"lee"}, {fact})
    with database.session() as session:
        session.execute(delete(Assignment).where(Assignment.id == routed_id))
    check("tie-break assignment gone", {"lee", "lia"}, set())


def test_adjudication_work_ties_a_former_lead_to_the_project(client, database,
                                                             factuality_study, tmp_path):
    """An admin turns a lead of 'fact' who adjudicated there into an annotator and removes
    her membership: her decisions and completed documents still tie her to 'fact'."""
    _second_project(database, tmp_path, "lia", "other")
    with database.session() as session:
        fact = session.get(Project, factuality_study["project_id"])
        root = session.get(User, factuality_study["users"]["root"])
        deb = create_user(session, "deb", PASSWORD, "lead")
        add_member(session, fact, deb, "lead")
        document = session.get(Document, factuality_study["document_id"])
        apply_automatic(session, document, deb)
        resolve_rating(session, document, "pair|1|insertion", 1, deb)
        set_role(session, deb, "annotator", by=root.id)
        session.execute(delete(ProjectMember).where(ProjectMember.user_id == deb.id))
    assert _managers(database, "deb") == {"lee"}
    assert _page_allows(client, "lia", "deb") is False
    assert _page_allows(client, "lee", "deb") is True


def test_a_lead_cannot_take_over_an_annotator_another_lead_just_removed(
        client, database, tmp_path):
    """The probe of issue 41: lead B removes b2, who still holds B's documents; lead A may
    not reset b2's password (404, nothing changed), so cannot read B's document as b2."""
    from annotator.annotate.assignment import assign_documents

    with database.session() as session:
        lead_a = create_user(session, "lead_a", PASSWORD, "lead")
        lead_b = create_user(session, "lead_b", PASSWORD, "lead")
        create_user(session, "b2", PASSWORD, "annotator")
        create_project(session, "project_a", "infolossqa", leads=[lead_a])
        project_b = create_project(session, "project_b", "infolossqa", leads=[lead_b])
        import_file(session, project_b, write_jsonl(tmp_path / "b.jsonl", pairs(2)))
        add_member(session, project_b, session.scalar(
            select(User).where(User.username == "b2")), "annotator")
        assign_documents(session, project_b, ["b2"], per_document=1)
        b2_id = session.scalar(select(User.id).where(User.username == "b2"))
        held = session.scalars(select(Assignment.id).where(Assignment.user_id == b2_id)).all()
        b_id = project_b.id
    login(client, "lead_b")
    page = post(client, f"/users/{b2_id}/projects/{b_id}/remove").get_data(as_text=True)
    assert "b2 left project_b: documents they hold stay theirs" in page

    login(client, "lead_a")
    assert 'data-user="b2"' not in client.get("/users/").get_data(as_text=True)
    for action, form in (("password", {"password": "taken-over-pw"}),
                         ("email", {"email": "a@example.org"}), ("active", {"active": "0"}),
                         ("projects", {"project_id": "1"})):
        assert post(client, f"/users/{b2_id}/{action}", **form).status_code == 404, action
    for assignment_id in held:
        assert client.get(f"/assignments/{assignment_id}").status_code == 404
    with database.session() as session:
        b2 = session.get(User, b2_id)
        assert authenticate(session, "b2", PASSWORD) is not None and b2.email is None
        assert b2.active
    login(client, "b2")
    assert client.get(f"/assignments/{held[0]}").status_code == 200  # still b2's work

    login(client, "lead_b")  # the lead whose documents b2 holds still manages b2
    page = post(client, f"/users/{b2_id}/password",
                password="a-new-password").get_data(as_text=True)
    assert "Password of b2 reset" in page
