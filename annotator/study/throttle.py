"""Login throttling that holds under concurrency.

An attempt is *reserved* before the password is checked, with one atomic UPDATE whose
WHERE clause carries the limit (``attempts < limit``): SQLite serialises writers and
PostgreSQL re-checks the WHERE clause of a row another transaction just updated, so 20
parallel attempts against a user with one attempt left evaluate exactly one password.
A successful login gives its reservation back.

Three counters, because they protect against different things:

- per client address: after ``address_limit`` failures in ``window`` seconds the address
  is locked until the window ends (an attacker locks only herself out);
- per user name *and* address: after ``user_limit`` failures the name is slowed, for that
  address only, to one attempt every ``user_delay`` seconds. One address polling wrong
  passwords for a colleague's name therefore slows itself, never the colleague logging in
  from elsewhere (an earlier version slowed the name for every address, so one address
  polling ~17 guesses/s kept the owner at 429 on every try);
- per user name, from any address: after ``name_limit`` failures (many addresses guessing
  together, since one address contributes at most ``address_limit``) the name is slowed
  for everyone to one attempt every ``user_delay`` seconds: guessing stays slow and the
  real user, at worst, waits a few seconds.

The bookkeeping never holds a pooled connection while it waits (issue 41, finding 8): the
threads of one process take turns on a lock *before* checking a connection out, so fifty
simultaneous logins wait on the lock, not each on a connection of their own blocked
behind SQLite's single writer (or PostgreSQL's row lock on the address's counter) until
the pool is empty; and the login view ends its own read before calling in here.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass

from sqlalchemy import case, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine

from annotator.models import LoginThrottle

# One turn at a time per process (module docstring). Each turn is a few statements on
# three rows; any other process (gunicorn workers, servers) still serialises in the database.
_TURN = threading.Lock()


@dataclass(frozen=True)
class ThrottlePolicy:
    window: float = 15 * 60
    address_limit: int = 20
    user_limit: int = 5
    user_delay: float = 30.0
    name_limit: int = 100


def _ensure_row(connection, key: str) -> None:
    table = LoginThrottle.__table__
    dialect_insert = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    connection.execute(dialect_insert(table).values(
        key=key, attempts=0, window_start=0.0, next_allowed=0.0).on_conflict_do_nothing())


def _fresh_window(connection, key: str, now: float, window: float) -> None:
    connection.execute(update(LoginThrottle).where(
        LoginThrottle.key == key, LoginThrottle.window_start < now - window).values(
        attempts=0, window_start=now, next_allowed=0.0))


def _keys(username: str, address: str | None) -> tuple[str, str, str]:
    """(address key, user-name-from-this-address key, user-name key). The pair key is a
    hash: a name may contain any separator, and keys are at most 200 characters."""
    address = address or "?"
    pair = hashlib.sha256(f"{address}\0{username}".encode("utf-8", "surrogatepass"))
    return f"addr:{address[:190]}", f"pair:{pair.hexdigest()}", f"user:{username[:190]}"


def pair_key(username: str, address: str | None) -> str:
    """The key that slows ``username`` for ``address`` only."""
    return _keys(username, address)[1]


def _take_slowed(connection, key: str, limit: int, delay: float, now: float) -> bool:
    """One attempt on a slowed counter: free below ``limit``, then one per ``delay``."""
    row = LoginThrottle
    return bool(connection.execute(update(row).where(
        row.key == key, (row.attempts < limit) | (row.next_allowed <= now)).values(
        attempts=row.attempts + 1,
        next_allowed=case((row.attempts + 1 >= limit, now + delay), else_=0.0))).rowcount)


def _give_back(connection, key: str) -> None:
    connection.execute(update(LoginThrottle).where(
        LoginThrottle.key == key, LoginThrottle.attempts > 0).values(
        attempts=LoginThrottle.attempts - 1))


def _wait_of(connection, key: str, now: float) -> float:
    wait = connection.scalar(LoginThrottle.__table__.select().with_only_columns(
        LoginThrottle.next_allowed).where(LoginThrottle.key == key))
    return max(1.0, wait - now)


def reserve_attempt(engine: Engine, username: str, address: str | None,
                    policy: ThrottlePolicy = ThrottlePolicy(),
                    now: float | None = None) -> float | None:
    """Reserve one login attempt; None if allowed, else the seconds to wait."""
    now = time.time() if now is None else now
    address_key, pair, user_key = _keys(username, address)
    with _TURN, engine.begin() as connection:
        for key in (address_key, pair, user_key):
            _ensure_row(connection, key)
            _fresh_window(connection, key, now, policy.window)
        row = LoginThrottle
        taken = connection.execute(update(row).where(
            row.key == address_key, row.attempts < policy.address_limit).values(
            attempts=row.attempts + 1)).rowcount
        if not taken:
            start = connection.scalar(
                LoginThrottle.__table__.select().with_only_columns(row.window_start)
                .where(row.key == address_key))
            return max(1.0, start + policy.window - now)
        # A slowed name is not the address's failure: the address gets its reservation
        # back (and the pair its own when the name is slowed for everyone).
        if not _take_slowed(connection, pair, policy.user_limit, policy.user_delay, now):
            _give_back(connection, address_key)
            return _wait_of(connection, pair, now)
        if not _take_slowed(connection, user_key, policy.name_limit, policy.user_delay, now):
            _give_back(connection, address_key)
            _give_back(connection, pair)
            return _wait_of(connection, user_key, now)
    return None


def attempt_succeeded(engine: Engine, username: str, address: str | None) -> None:
    """A correct password: the name starts afresh (from this address and overall), the
    address gets its attempt back. Another address's slowed pair stays slowed."""
    address_key, pair, user_key = _keys(username, address)
    row = LoginThrottle
    with _TURN, engine.begin() as connection:
        connection.execute(update(row).where(row.key.in_((pair, user_key))).values(
            attempts=0, next_allowed=0.0))
        _give_back(connection, address_key)


__all__ = ["ThrottlePolicy", "attempt_succeeded", "pair_key", "reserve_attempt"]
