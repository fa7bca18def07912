"""Issue 32: one person, one account. A Label Studio draft names its user by e-mail where a
submitted or skipped annotation gives a user id; both go through the same identity rule."""

from __future__ import annotations

from annotator.interop.labelstudio import annotator_name

# What `labelstudio pull --email-domain example.org` builds from the server's members.
MEMBERS = {"7": "nadia", "nadia@example.org": "nadia"}


def test_a_submission_by_user_id_and_a_draft_by_email_are_one_account():
    assert annotator_name(7, None, MEMBERS) == "nadia"
    assert annotator_name({"id": 7, "email": "nadia@example.org"}, None, MEMBERS) == "nadia"
    assert annotator_name("nadia@example.org", None, MEMBERS) == "nadia"


def test_an_email_nobody_maps_stays_the_email():
    assert annotator_name("zoe@example.org", None, MEMBERS) == "zoe@example.org"


def test_a_bare_unknown_id_falls_back_to_the_given_annotator():
    assert annotator_name(99, "ben", MEMBERS) == "ben"
