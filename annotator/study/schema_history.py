"""A project's schema history: every revision a lead applied
(:mod:`annotator.operations.schema_revision`) is an audit event; release manifests list
them (:mod:`annotator.releases.writer`), so a gold set names the schema it was made under."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.models import AuditEvent, Project

# The audit action of an applied schema revision.
REVISED = "project.schema_revised"


def revisions(session: Session, project: Project) -> list[dict]:
    """The project's schema revisions, oldest first (for release manifests)."""
    events = session.scalars(select(AuditEvent).where(
        AuditEvent.project_id == project.id, AuditEvent.action == REVISED)
        .order_by(AuditEvent.id)).all()
    return [{"at": e.created_at.isoformat(timespec="seconds") if e.created_at else None,
             "schema_before": e.details.get("schema_before"),
             "schema_after": e.details.get("schema_after"),
             "sha256_before": e.details.get("sha256_before"),
             "sha256_after": e.details.get("sha256_after"),
             "changes": e.details.get("changes", [])} for e in events]
