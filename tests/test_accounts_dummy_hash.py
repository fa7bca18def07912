"""A wrong username is checked against a stored dummy hash so that it takes as long as a
wrong password. The hash is a constant (computing it at import cost every command that
loads the accounts module one scrypt, ~0.1 s; issue 44): it must use the method Werkzeug
gives every real account, or the two would take different times."""

from __future__ import annotations

from werkzeug.security import check_password_hash, generate_password_hash

from annotator.study import accounts


def test_the_dummy_hash_uses_the_method_every_account_gets():
    method, salt, digest = accounts._DUMMY_HASH.split("$")
    assert method == generate_password_hash("any password").split("$")[0]
    assert len(salt) == 16 and len(digest) == 128
    for password in ("", "not-a-real-password", "correct-horse-battery"):
        assert not check_password_hash(accounts._DUMMY_HASH, password)


def test_an_unknown_user_is_refused_after_a_hash_check():
    assert accounts.password_matches(None, "not-a-real-password") is None
