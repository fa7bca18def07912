"""User accounts: creation and password checks (scrypt through Werkzeug)."""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from annotator.core.usernames import username_problem
from annotator.models import ROLES, User
from annotator.study import audit

MIN_PASSWORD_LENGTH = 8


class AccountError(ValueError):
    pass


def create_user(session: Session, username: str, password: str, role: str) -> User:
    username = username.strip()
    problem = username_problem(username)
    if problem:
        raise AccountError(problem)
    if role not in ROLES:
        raise AccountError(f"role: one of {', '.join(ROLES)}, got {role!r}")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"password: at least {MIN_PASSWORD_LENGTH} characters")
    if session.scalar(select(User).where(User.username == username)) is not None:
        raise AccountError(f"username: {username!r} is taken")
    user = User(username=username, password_hash=generate_password_hash(password), role=role)
    session.add(user)
    session.flush()
    audit.record(session, "user.created", object_type="user", object_id=user.id, role=role)
    return user


def authenticate(session: Session, username: str, password: str) -> User | None:
    return password_matches(find_user(session, username.strip()), password)


def password_matches(user: User | None, password: str) -> User | None:
    """``user`` if it is active and ``password`` is its password, else None. Needs no
    database: the login view looks the user up, ends its read, then calls this, so no
    connection is held through the ~0.1-0.3 s of scrypt (issue 41, finding 8)."""
    if user is None or not user.active:
        # Hash anyway so a wrong username takes as long as a wrong password.
        check_password_hash(_DUMMY_HASH, password)
        return None
    return user if check_password_hash(user.password_hash, password) else None


EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def end_sessions(session: Session, user: User, reason: str) -> None:
    """Every session cookie of ``user`` stops working (see ``User.session_generation``)."""
    user.session_generation = (user.session_generation or 0) + 1
    audit.record(session, "user.sessions_ended", user_id=user.id, object_type="user",
                 object_id=user.id, reason=reason)


def set_password(session: Session, user: User, password: str, *, by: int | None = None) -> None:
    """A new password; sessions opened with the old one end. ``by``: who changed it (a lead
    or admin on the users page), for the audit trail."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"password: at least {MIN_PASSWORD_LENGTH} characters")
    user.password_hash = generate_password_hash(password)
    end_sessions(session, user, "password changed")
    if by is not None:
        audit.record(session, "user.password", user_id=by, object_type="user", object_id=user.id)


def deactivate(session: Session, user: User, *, by: int | None = None) -> None:
    """The user can no longer log in, and open sessions end now. Recorded as
    ``user.deactivated`` (a deactivated account, unlike an imported one that was never
    active, may be reactivated by its lead)."""
    user.active = False
    end_sessions(session, user, "deactivated")
    session.flush()
    audit.record(session, "user.deactivated", user_id=by, object_type="user", object_id=user.id)


def set_active(session: Session, user: User, active: bool, *, by: int | None = None) -> None:
    """Deactivate (the user can no longer log in, open sessions end, their work stays) or
    reactivate."""
    if not active and by == user.id:
        raise AccountError("you cannot deactivate your own account")
    if not active:
        deactivate(session, user, by=by)
        return
    user.active = True
    session.flush()
    audit.record(session, "user.activated", user_id=by, object_type="user", object_id=user.id)


def set_email(session: Session, user: User, email: str, *, by: int | None = None) -> None:
    """Set (or, with an empty string, clear) a user's e-mail; unique across accounts."""
    email = email.strip()
    if email and (len(email) > 254 or not EMAIL.fullmatch(email)):
        raise AccountError(f"e-mail: {email!r} is not an address like name@example.org")
    if email and session.scalar(select(User.id).where(
            func.lower(User.email) == email.lower(), User.id != user.id)) is not None:
        raise AccountError(f"e-mail: {email!r} is used by another account")
    user.email = email or None
    session.flush()
    audit.record(session, "user.email", user_id=by, object_type="user", object_id=user.id)


def set_role(session: Session, user: User, role: str, *, by: int | None = None) -> None:
    if role not in ROLES:
        raise AccountError(f"role: one of {', '.join(ROLES)}, got {role!r}")
    if by == user.id and role != user.role:
        raise AccountError("you cannot change your own role")
    before, user.role = user.role, role
    session.flush()
    audit.record(session, "user.role", user_id=by, object_type="user", object_id=user.id,
                 before=before, after=role)


def find_user(session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(User.username == username))


# What a wrong username is checked against, so it takes as long as a wrong password: the
# hash of a random password nobody knows, made once with Werkzeug's default method (the
# one generate_password_hash gives every account; tests/test_accounts_dummy_hash.py checks
# they agree). A constant, not computed at import: one scrypt is ~0.1 s of every command
# that loads this module (`annotator project create`, issue 44).
_DUMMY_HASH = ("scrypt:32768:8:1$dOxOUDNhuNXIzXgF$622d0bff84ab43fedd7975a85df0a9d2447d0372"
               "689d11680c48c3e5f93c97e15e1a51ba9a4172bc595ed235d801e836bd551803a5fa33367"
               "2e161fb3a74a3e8")
