"""Login throttling that holds under concurrency.

An attempt is *reserved* before the password is checked, with one atomic UPDATE whose
WHERE clause carries the limit (``attempts < limit``): SQLite serialises writers and
PostgreSQL re-checks the WHERE clause of a row another transaction just updated, so 20
parallel attempts against a user with one attempt left evaluate exactly one password.
A successful login gives its reservation back.

Two counters, because they protect against different things:

- per client address: after ``address_limit`` failures in ``window`` seconds the address
  is locked until the window ends (an attacker locks only herself out);
- per user name, from any address: after ``user_limit`` failures the name is not locked
  but slowed to one attempt every ``user_delay`` seconds, so guessing from many
  addresses stays slow while the real user, at worst, waits a few seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import case, update
from sqlalchemy.engine import Engine

from annotator.models import LoginThrottle


@dataclass(frozen=True)
class ThrottlePolicy:
    window: float = 15 * 60
    address_limit: int = 20
    user_limit: int = 5
    user_delay: float = 30.0


def _ensure_row(connection, key: str) -> None:
    table = LoginThrottle.__table__
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    connection.execute(dialect_insert(table).values(
        key=key, attempts=0, window_start=0.0, next_allowed=0.0).on_conflict_do_nothing())


def _fresh_window(connection, key: str, now: float, window: float) -> None:
    connection.execute(update(LoginThrottle).where(
        LoginThrottle.key == key, LoginThrottle.window_start < now - window).values(
        attempts=0, window_start=now, next_allowed=0.0))


def reserve_attempt(engine: Engine, username: str, address: str | None,
                    policy: ThrottlePolicy = ThrottlePolicy(),
                    now: float | None = None) -> float | None:
    """Reserve one login attempt; None if allowed, else the seconds to wait."""
    now = time.time() if now is None else now
    user_key, address_key = f"user:{username[:190]}", f"addr:{(address or '?')[:190]}"
    with engine.begin() as connection:
        for key in (address_key, user_key):
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
        taken = connection.execute(update(row).where(
            row.key == user_key,
            (row.attempts < policy.user_limit) | (row.next_allowed <= now)).values(
            attempts=row.attempts + 1,
            next_allowed=case((row.attempts + 1 >= policy.user_limit, now + policy.user_delay),
                              else_=0.0))).rowcount
        if not taken:
            # Give the address its reservation back: a slowed user name is not the
            # address's failure.
            connection.execute(update(row).where(row.key == address_key).values(
                attempts=row.attempts - 1))
            wait = connection.scalar(LoginThrottle.__table__.select().with_only_columns(
                row.next_allowed).where(row.key == user_key))
            return max(1.0, wait - now)
    return None


def attempt_succeeded(engine: Engine, username: str, address: str | None) -> None:
    """A correct password: the user name starts afresh, the address gets its attempt back."""
    row = LoginThrottle
    with engine.begin() as connection:
        connection.execute(update(row).where(row.key == f"user:{username[:190]}").values(
            attempts=0, next_allowed=0.0))
        connection.execute(update(row).where(
            row.key == f"addr:{(address or '?')[:190]}", row.attempts > 0).values(
            attempts=row.attempts - 1))


__all__ = ["ThrottlePolicy", "attempt_succeeded", "reserve_attempt"]
