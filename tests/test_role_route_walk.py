"""Every role × every route × every project: who may read or change what is decided by
project membership only, and no input reaches a 500.

Two projects with their own leads share one annotator (sam); ana works only in 'trial',
cat only in 'Trial 2'. The walk takes every rule of the app's URL map, fills its
parameters with the objects of each project (and each user, for the user routes), and
sends the request as each person. Expected outcomes come from :func:`related`, a
statement of the rule independent of the code under test. A second walk sends the
bad-input list to every JSON route and every page (with bad query strings) and expects
a 4xx with a message, never a 500. Runs on SQLite and, in CI, on PostgreSQL (database
fixtures)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from werkzeug.routing import IntegerConverter

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, Document, Project, User
from annotator.study import jobs
from annotator.study.accounts import create_user
from annotator.study.projects import add_member, create_project
from tests.conftest import PASSWORD, csrf_token, login
from tests.helpers import pairs, poison_job_json, write_jsonl

PEOPLE = {"root": "admin", "lee": "lead", "lou": "lead", "ana": "annotator",
          "cat": "annotator", "sam": "annotator"}
PROJECTS = {"trial": ("lee", ["ana", "sam"]), "Trial 2": ("lou", ["cat", "sam"])}
SKIPPED = {"static", "favicon", "auth.login", "auth.logout",  # no project, no person
           "health.healthz"}  # 503 without a worker: tests/test_jobs_health.py


@pytest.fixture
def world(app, database, tmp_path):
    with database.session() as session:
        people = {n: create_user(session, n, PASSWORD, r) for n, r in PEOPLE.items()}
        world = {"people": {n: u.id for n, u in people.items()}, "projects": {}}
        for i, (name, (lead, annotators)) in enumerate(PROJECTS.items()):
            project = create_project(session, name, "infolossqa", leads=[people[lead]])
            import_file(session, project, write_jsonl(tmp_path / f"{i}.jsonl",
                                                      pairs(2, prefix=f"p{i}-")))
            assign_documents(session, project, annotators)
            doc = session.scalar(select(Document).where(Document.project_id == project.id))
            held = {a.user.username: a.id for a in session.scalars(select(Assignment).where(
                Assignment.document_id == doc.id))}
            world["projects"][name] = {"id": project.id, "lead": lead, "doc": doc.id,
                                       "assignments": held, "members": annotators}
    # A release job with an unreadable payload in each project (issue 41, finding 7): every
    # page that lists jobs is walked past it.
    with database.session() as session:
        queued = [jobs.enqueue(session, "release", info["id"], {"version": "v9"}, key="v9").id
                  for info in world["projects"].values()]
    for job_id in queued:
        assert poison_job_json(database, job_id, '{"version": ' + "9" * 5000 + "}")
    world["clients"] = {}
    for name in PEOPLE:
        client = app.test_client()
        assert login(client, name).status_code == 302
        world["clients"][name] = (client, csrf_token(client, "/my"))
    created = _send(world, "ana", "POST", "/api/assignments/"
                    f"{world['projects']['trial']['assignments']['ana']}/edits", json={
                        "edit_type": "deletion", "fields": {"question": "What dose?"},
                        "spans": [{"side": "source", "start": 0, "end": 8}]})
    assert created.status_code == 201, created.get_json()
    world["edit"] = created.get_json()["edit"]["id"]  # ana's, in trial
    return world


def memberships(world, person: str) -> set[str]:
    return {p for p, info in world["projects"].items()
            if person in info["members"] or info["lead"] == person}


def leads(world, viewer: str, project: str) -> bool:
    return PEOPLE[viewer] == "admin" or world["projects"][project]["lead"] == viewer


def may_manage(world, viewer: str, target: str) -> bool:
    """The rule of issues 33 and 41: an admin manages everyone; a lead manages an annotator
    only if every project the annotator is tied to (a member of, or holding documents
    of) is one she leads."""
    if PEOPLE[viewer] == "admin":
        return True
    if PEOPLE[viewer] != "lead" or PEOPLE[target] != "annotator":
        return False
    ties = memberships(world, target) | {p for p, info in world["projects"].items()
                                         if target in info["assignments"]}
    return all(world["projects"][p]["lead"] == viewer for p in ties)


def _instances(world, rule):
    """(path, project, assignment owner or None, target user or None) for every way to
    fill the rule's parameters with this world's objects."""
    args = set(rule.arguments)
    out = []
    targets = PEOPLE if "user_id" in args else [None]
    for project, info in world["projects"].items():
        if "edit_id" in args and project != "trial":
            continue  # the one edit is ana's, in trial
        owners = info["assignments"] if "assignment_id" in args else (
            {"ana": None} if "edit_id" in args else {None: None})
        for owner, assignment_id in owners.items():
            for target in targets:
                values = {"project_id": info["id"], "document_id": info["doc"],
                          "assignment_id": assignment_id, "page": 1, "fmt": "json",
                          "version": "v1", "filename": "gold.jsonl", "suggestion_id": 1,
                          "edit_id": world["edit"], "user_id": world["people"].get(target)}
                path = rule.rule
                for name in args:
                    path = re.sub(rf"<(?:[^:<>]+:)?{name}>", str(values[name]), path)
                out.append((path, project if args & {"project_id", "assignment_id", "edit_id"}
                            else None, owner, target))
        if not args & {"project_id", "assignment_id", "document_id", "edit_id"}:
            break  # the rule does not depend on the project: once is enough
    return out


def _send(world, viewer, method, path, **kw):
    client, token = world["clients"][viewer]
    return client.open(path, method=method, headers={"X-CSRFToken": token}, **kw)


def _rules(app):
    return sorted((r for r in app.url_map.iter_rules() if r.endpoint not in SKIPPED),
                  key=lambda r: r.rule)


def _rejoin(database, world, person: str, project: str) -> None:
    """Undo a removal the walk made (the only user route that succeeds on its form)."""
    info = world["projects"][project]
    if person not in info["members"] and person != info["lead"]:
        return
    with database.session() as session:
        member = session.get(User, world["people"][person])
        add_member(session, session.get(Project, info["id"]), member,
                   "lead" if person == info["lead"] else "annotator")


def test_every_role_route_and_project_follows_membership(app, database, world):
    checked = 0
    for rule in _rules(app):
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            # User-route bodies that are refused after the access check: nothing changes,
            # so the walk's order does not matter.
            form = {"password": "short", "email": "not an address", "active": "1",
                    "role": "nosuch", "username": "", "project_id": "0"}
            for path, project, owner, target in _instances(world, rule):
                for viewer in PEOPLE:
                    response = _send(world, viewer, method, path,
                                     data=form if method == "POST" and "/users/" in path
                                     else None)
                    status = response.status_code
                    where = f"{viewer} {method} {path}"
                    assert status < 500, where
                    assert status != 401 and not (
                        status == 302 and "/login" in response.headers.get("Location", "")
                    ), f"{where}: the session was lost"
                    if target is not None:
                        if not may_manage(world, viewer, target) or (
                                rule.endpoint == "manage.leave"
                                and not leads(world, viewer, project)):
                            assert status in (403, 404), f"{where}: {status}"
                        elif rule.endpoint == "manage.role" and PEOPLE[viewer] != "admin":
                            assert status == 403, f"{where}: {status}"
                        else:  # let through, then refused with a message, nothing changed
                            # (a refused users-page form answers 422 with its reason)
                            assert status in (302, 422), f"{where}: {status}"
                            if rule.endpoint == "manage.leave":
                                _rejoin(database, world, target, project)
                    elif owner is not None:
                        if viewer != owner and not leads(world, viewer, project):
                            assert status in (403, 404), f"{where}: {status}"
                    elif project is not None:
                        if not leads(world, viewer, project):
                            assert status in (403, 404), f"{where}: {status}"
                    checked += 1
    assert checked > 500


def test_the_shared_annotator_is_managed_by_an_admin_only(world):
    sam = world["people"]["sam"]
    for lead in ("lee", "lou"):
        assert _send(world, lead, "POST", f"/users/{sam}/password",
                     data={"password": "taken-over"}).status_code == 404
        listing = _send(world, lead, "GET", "/users/").get_data(as_text=True)
        assert 'data-user="sam"' not in listing
    refused = _send(world, "root", "POST", f"/users/{sam}/password", data={"password": "short"})
    assert refused.status_code == 422  # let through to the form's own check: too short
    assert "at least 8 characters" in refused.get_data(as_text=True)


# Ids no row can have (issue 41: an OverflowError on SQLite beyond 64 bits, "integer out
# of range" on PostgreSQL beyond 32 bits: a 500).
HUGE_IDS = [str(2**31), str(2**63), str(2**64 + 1), "9" * 5000]


def _int_arguments(rule) -> set[str]:
    return {name for name, converter in rule._converters.items()  # noqa: SLF001
            if isinstance(converter, IntegerConverter)}


def test_an_id_beyond_the_database_range_is_a_404_on_every_route_for_everyone(app, world):
    others = {"version": "v1", "filename": "gold.jsonl", "fmt": "json"}
    sent = 0
    for rule in _rules(app):
        numeric = _int_arguments(rule)
        for huge in HUGE_IDS if numeric else []:
            path = rule.rule
            for name in rule.arguments:
                path = re.sub(rf"<(?:[^:<>]+:)?{name}>",
                              huge if name in numeric else others[name], path)
            for viewer in PEOPLE:
                for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                    status = _send(world, viewer, method, path).status_code
                    assert status == 404, f"{viewer} {method} {path[:80]}: {status}"
                    sent += 1
    assert sent > 1000


BAD_BODIES = [
    b'{"version": ' + b"9" * 5000 + b"}",
    b'{"version": 1e999}', b'{"version": NaN}', b'{"seconds": 1e308, "version": 1}',
    b'{"fields": {"question": "dose \xff"}, "version": 1}',
    b'{"fields": {"question": "\\u0000"}, "version": 1}',
    b'{"fields": {"question": "\\ud800"}, "version": 1}',
    b"[" * 5000 + b"]" * 5000, b"[1, 2]", b'"text"', b"null", b"", b"{",
    b'{"version": true, "status": 5, "spans": "x", "edit_type": [], "level": {}}',
    b'{"spans": [{"side": "source", "start": -1, "end": 99999999999}], "version": 1}',
    b'{"status": "done", "version": 9223372036854775808}',
    b'{"decisions": [[1, 2]], "edit_ids": [' + b"1," * 10 + b'1], "action": "accept"}',
]
BAD_QUERIES = ["?page=" + "9" * 5000, "?page=-1", "?sort=%00", "?q=%ff%fe", "?status=<x>",
               "?per_page=1e308", "?annotator=" + "a" * 5000, "?since=not-a-date"]


FORM_KEYS = ["username", "password", "email", "role", "project_id", "active", "action", "doc",
             "to", "from", "query", "version", "notes", "enabled", "every", "reset", "item",
             "field", "value", "rationale", "kind", "per_annotator", "seed", "bootstrap"]
BAD_FORM_VALUES = ["9" * 5000, "-1", "1e308", "nan", "", " ", "<script>x</script>",
                   "a" * 100_000, "../../etc/passwd", "\u202e", "0x10", "[]"]
# Ids beyond 64 bits in query strings and forms (issue 41): refused or ignored, no
# OverflowError from the database driver.
BAD_QUERIES += [f"?{key}={huge}" for key in ("page", "project", "assignment", "document",
                                              "user", "version") for huge in (2**31, 2**64)]
BAD_FORM_VALUES += [str(2**31), str(2**64)]
BAD_BODIES += [b'{"action": "accept", "edit_ids": [%d], "edit_id": %d}' % (huge, huge)
               for huge in (2**31, 2**64)] + [
    b'{"action": "undo", "decision_id": %d}' % 2**31,
    b'{"action": "accept", "edit_id": %d, "version": 1}' % 2**31]


def test_bad_input_on_every_route_is_a_4xx_never_a_500(app, world):
    trial = world["projects"]["trial"]
    owner = {"api.": "ana", "evaluation.payload": "ana", "evaluation.status": "ana",
             "documents.": "ana", "adjudicate.tiebreak": "ana"}
    sent = 0
    for rule in _rules(app):
        viewer = next((who for prefix, who in owner.items()
                       if rule.endpoint.startswith(prefix)), "lee")
        paths = [p for p, project, o, _ in _instances(world, rule)
                 if project in (None, "trial") and o in (None, "ana")]
        for path in paths[:1]:
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                if method == "GET":
                    for query in BAD_QUERIES:
                        status = _send(world, viewer, "GET", path + query).status_code
                        assert status < 500, f"{viewer} GET {path}{query}: {status}"
                        sent += 1
                    continue
                for value in BAD_FORM_VALUES:
                    form = {key: value for key in FORM_KEYS}
                    if rule.endpoint.startswith("manage."):
                        form["active"] = "1"  # not a deactivation of the walk's people
                    response = _send(world, viewer, method, path, data=form)
                    assert response.status_code < 500, f"{viewer} {method} {path} {value[:20]}"
                    sent += 1
                for body in BAD_BODIES:
                    response = _send(world, viewer, method, path, data=body,
                                     content_type="application/json")
                    where = f"{viewer} {method} {path} {body[:40]!r}"
                    assert response.status_code < 500, where
                    if response.is_json and response.status_code >= 400:
                        assert response.get_json().get("message"), where
                    sent += 1
    assert sent > 300
    assert trial["id"]  # the walk ran against the world it built
