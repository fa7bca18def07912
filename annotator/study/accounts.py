"""User accounts: creation and password checks (scrypt through Werkzeug)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from annotator.models import ROLES, User
from annotator.study import audit

MIN_PASSWORD_LENGTH = 8


class AccountError(ValueError):
    pass


def create_user(session: Session, username: str, password: str, role: str) -> User:
    username = username.strip()
    if not username or len(username) > 80 or any(c.isspace() for c in username):
        raise AccountError("username: 1-80 characters, no spaces")
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
    user = session.scalar(select(User).where(User.username == username.strip()))
    if user is None or not user.active:
        # Hash anyway so a wrong username takes as long as a wrong password.
        check_password_hash(_DUMMY_HASH, password)
        return None
    return user if check_password_hash(user.password_hash, password) else None


def end_sessions(session: Session, user: User, reason: str) -> None:
    """Every session cookie of ``user`` stops working (see ``User.session_generation``)."""
    user.session_generation = (user.session_generation or 0) + 1
    audit.record(session, "user.sessions_ended", user_id=user.id, object_type="user",
                 object_id=user.id, reason=reason)


def set_password(session: Session, user: User, password: str) -> None:
    """A new password; sessions opened with the old one end."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"password: at least {MIN_PASSWORD_LENGTH} characters")
    user.password_hash = generate_password_hash(password)
    end_sessions(session, user, "password changed")


def deactivate(session: Session, user: User) -> None:
    """The user can no longer log in, and open sessions end now."""
    user.active = False
    end_sessions(session, user, "deactivated")


def find_user(session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(User.username == username))


_DUMMY_HASH = generate_password_hash("not-a-real-password")
