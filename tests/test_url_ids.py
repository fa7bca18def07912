"""Issue 41, finding 5: every numeric id in a URL goes through one converter that matches
only what a database row id can be (0 to 2**63 - 1); beyond that, a 404, never a 500. The
walk of every route, person and huge id is in tests/test_role_route_walk.py."""

from __future__ import annotations

import re

from annotator.web.url_ids import MAX_DATABASE_ID, DatabaseIdConverter, digits_at_most


def test_the_pattern_matches_exactly_the_numbers_up_to_the_bound():
    for bound in (0, 7, 10, 255, 1000, 9009):
        pattern = re.compile(digits_at_most(bound))
        assert [n for n in range(bound + 2000) if pattern.fullmatch(str(n))] \
            == list(range(bound + 1)), bound
    pattern = re.compile(digits_at_most(MAX_DATABASE_ID))
    for number in (MAX_DATABASE_ID, MAX_DATABASE_ID - 1, 9_199_999_999_999_999_999,
                   10**18, 10**18 - 1):
        assert pattern.fullmatch(str(number)), number
    for number in (MAX_DATABASE_ID + 1, 2**64, 9_300_000_000_000_000_000, 10**19):
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
    from tests.conftest import login

    assert login(client, "root").status_code == 302
    assert client.get(f"/projects/{study['project_id']}").status_code == 200
    assert client.get(f"/projects/{MAX_DATABASE_ID}").status_code == 404
    for beyond in (MAX_DATABASE_ID + 1, 10**30, "9" * 5000):
        assert client.get(f"/projects/{beyond}").status_code == 404
