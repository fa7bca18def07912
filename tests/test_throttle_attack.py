"""The login throttle against the attack the round-three probe ran: one address polling
wrong passwords for a colleague's name, while the colleague logs in from her own address.
Outcomes are counted (no timing): the owner gets in every time, the attacker's address
evaluates a handful of passwords and is then refused."""

from __future__ import annotations

import threading

from annotator.study.throttle import ThrottlePolicy
from tests.conftest import PASSWORD, login

ATTACKER, OWNER = "203.0.113.66", "198.51.100.7"
ATTACK_TRIES, OWNER_LOGINS = 300, 30


def _client(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_an_attack_from_one_address_never_keeps_the_owner_out(app, users):
    app.config["LOGIN_THROTTLE"] = ThrottlePolicy()  # the defaults the README states
    attacker_outcomes: list[int] = []
    owner_outcomes: list[int] = []
    attack_started = threading.Event()

    def attack():
        client = _client(app, ATTACKER)
        for i in range(ATTACK_TRIES):
            attacker_outcomes.append(login(client, "ana", f"guess-{i}").status_code)
            attack_started.set()

    def owner():
        attack_started.wait()
        for _ in range(OWNER_LOGINS):
            # A fresh browser each time: the form, its token, the correct password.
            owner_outcomes.append(login(_client(app, OWNER), "ana").status_code)

    threads = [threading.Thread(target=attack), threading.Thread(target=owner)]
    [t.start() for t in threads]
    [t.join() for t in threads]

    assert owner_outcomes == [302] * OWNER_LOGINS
    assert len(attacker_outcomes) == ATTACK_TRIES
    evaluated = attacker_outcomes.count(401)  # passwords actually checked for the attacker
    assert 5 <= evaluated < 20 and set(attacker_outcomes) == {401, 429}
    # After the attack the attacker's address is still slowed on that name, even with the
    # right password, while the owner, from her address, still gets in.
    assert login(_client(app, ATTACKER), "ana").status_code == 429
    assert login(_client(app, OWNER), "ana").status_code == 302


def test_many_addresses_together_slow_the_name_for_everyone(app, users):
    """Guessing spread over many addresses still meets a limit: after ``name_limit``
    failures the name is slowed everywhere (the owner waits, she is not locked out)."""
    app.config["LOGIN_THROTTLE"] = ThrottlePolicy(user_limit=2, name_limit=6)
    outcomes = [login(_client(app, f"203.0.113.{i}"), "ana", "wrong").status_code
                for i in range(1, 7)]
    assert outcomes == [401] * 6
    refused = login(_client(app, OWNER), "ana", PASSWORD)
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 30
