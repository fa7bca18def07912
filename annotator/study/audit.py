"""The audit trail: one row per meaningful action, written in the same transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from annotator.models import AuditEvent


def record(
    session: Session,
    action: str,
    *,
    user_id: int | None = None,
    project_id: int | None = None,
    object_type: str | None = None,
    object_id: Any = None,
    **details: Any,
) -> AuditEvent:
    event = AuditEvent(
        action=action,
        user_id=user_id,
        project_id=project_id,
        object_type=object_type,
        object_id=None if object_id is None else str(object_id),
        details=details,
    )
    session.add(event)
    return event
