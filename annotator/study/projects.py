"""Projects: a named set of document pairs annotated under one task schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.core.safe_paths import project_slug
from annotator.models import Project, ProjectMember, User
from annotator.study import audit

if TYPE_CHECKING:
    from annotator.schemas import Schema


class ProjectError(ValueError):
    pass


def create_project(
    session: Session,
    name: str,
    schema: str | Schema,
    *,
    annotators_per_doc: int = 2,
    leads: list[User] = (),
) -> Project:
    name = name.strip()
    if not name or len(name) > 120:
        raise ProjectError("name: 1-120 characters")
    if annotators_per_doc < 1:
        raise ProjectError("annotators per document: at least 1")
    if session.scalar(select(Project).where(Project.name == name)) is not None:
        raise ProjectError(f"a project named {name!r} exists already")
    slug = project_slug(name)
    clash = session.scalar(select(Project.name).where(func.lower(Project.slug) == slug.lower()))
    if clash is not None:
        raise ProjectError(f"name {name!r}: its release folder {slug!r} is taken by project "
                           f"{clash!r}; choose a name that differs in letters or digits")
    # A name or file is read here (raises SchemaError with file/key/expected); a Schema
    # comes already read (an upload on the web page).
    # Late: the schema reader and PyYAML (~20 ms), only where a project is made, not in every
    # command that looks a project up (benchmarks/bench_import_labelstudio.py).
    from annotator.schemas import Schema
    from annotator.schemas.files import load_schema

    loaded = schema if isinstance(schema, Schema) else load_schema(schema)
    project = Project(
        name=name,
        slug=slug,
        schema_name=loaded.name,
        schema_yaml=loaded.source_text,
        annotators_per_doc=annotators_per_doc,
    )
    session.add(project)
    session.flush()
    for lead in leads:
        add_member(session, project, lead, "lead")
    audit.record(
        session, "project.created", project_id=project.id, object_type="project",
        object_id=project.id, schema=loaded.name, annotators_per_doc=annotators_per_doc,
    )
    return project


def add_member(session: Session, project: Project, user: User, role: str) -> ProjectMember:
    existing = session.scalar(
        select(ProjectMember).where(
            ProjectMember.project_id == project.id, ProjectMember.user_id == user.id
        )
    )
    if existing is not None:
        return existing
    member = ProjectMember(project_id=project.id, user_id=user.id, role=role)
    session.add(member)
    session.flush()
    return member


def get_project(session: Session, name: str) -> Project:
    project = session.scalar(select(Project).where(Project.name == name))
    if project is None:
        known = session.scalars(select(Project.name).order_by(Project.name)).all()
        hint = f" (projects: {', '.join(known)})" if known else " (no projects yet)"
        raise ProjectError(f"no project named {name!r}{hint}")
    return project


