"""Issue 41, finding 5: every numeric id in a URL goes through one converter that matches
only what a database row id can be (0 to 2**31 - 1: PostgreSQL's INTEGER); beyond that, a
404, never a 500 (on SQLite and PostgreSQL). The walk of every route, person and huge id
is in tests/test_role_route_walk.py."""

from __future__ import annotations

import re

from annotator.core.row_ids import MAX_ROW_ID
from annotator.web.url_ids import DatabaseIdConverter, digits_at_most
from tests.conftest import csrf_token, login


def test_the_pattern_matches_exactly_the_numbers_up_to_the_bound():
    for bound in (0, 7, 10, 255, 1000, 9009):
        pattern = re.compile(digits_at_most(bound))
        assert [n for n in range(bound + 2000) if pattern.fullmatch(str(n))] \
            == list(range(bound + 1)), bound
    pattern = re.compile(digits_at_most(MAX_ROW_ID))
    for number in (MAX_ROW_ID, MAX_ROW_ID - 1, 2_099_999_999, 10**9, 10**9 - 1):
        assert pattern.fullmatch(str(number)), number
    for number in (MAX_ROW_ID + 1, 2**63, 2_200_000_000, 10**10):
        assert not pattern.fullmatch(str(number)), number


def test_every_integer_in_a_route_is_a_database_id(app):
    checked = 0
    for rule in app.url_map.iter_rules():
        for name, converter in rule._converters.items():  # noqa: SLF001
            if f"<int:{name}>" in rule.rule:
                assert isinstance(converter, DatabaseIdConverter), (rule.rule, name)
                checked += 1
    assert checked > 40


def test_the_largest_id_is_looked_up_and_the_next_one_matches_no_route(client, study):
    assert login(client, "root").status_code == 302
    assert client.get(f"/projects/{study['project_id']}").status_code == 200
    assert client.get(f"/projects/{MAX_ROW_ID}").status_code == 404
    for beyond in (MAX_ROW_ID + 1, 2**63 - 1, 10**30, "9" * 5000):
        assert client.get(f"/projects/{beyond}").status_code == 404


def test_ids_in_json_bodies_beyond_the_row_range_are_refused_with_422(app, study, adjudicated):
    """PostgreSQL stores ids in 32 bits: 2**31 in a body was "integer out of range", a 500
    there (an undo of decision 2**31, an edit made from suggestion 2**31)."""
    beyond = MAX_ROW_ID + 1
    lead = app.test_client()
    assert login(lead, "lee").status_code == 302
    url = (f"/projects/{adjudicated['project_id']}/adjudicate/{adjudicated['docs']['q1']}"
           "/decisions")
    undo = lead.post(url, json={"action": "undo", "decision_id": beyond},
                     headers={"X-CSRFToken": csrf_token(lead, "/my")})
    assert undo.status_code == 422 and "decision_id" in undo.get_json()["message"]
    ana = app.test_client()
    assert login(ana, "ana").status_code == 302
    headers = {"X-CSRFToken": csrf_token(ana, "/my")}
    assignment = study["assignments"]["ana"][0]
    made = ana.post(f"/api/assignments/{assignment}/edits", headers=headers, json={
        "edit_type": "deletion", "suggestion_id": beyond, "fields": {},
        "spans": [{"side": "source", "start": 0, "end": 3}]})
    assert made.status_code == 422 and "suggestion_id" in made.get_json()["message"]
    acted = ana.post(f"/api/assignments/{assignment}/suggestions/1", headers=headers,
                     json={"action": "accepted", "edit_id": beyond})
    assert acted.status_code == 422
