"""Revising a running project's schema, only when every stored annotation stays valid.

A lead fixes a label, adds an option or an optional question, or adds a document-level
edit type; :func:`revise_schema` checks every edit (its type, the sides and number of its
spans, its fields and their conditions, constituents of composite edits), every rating,
and that work marked done is still complete under the new schema. Anything that would
break is named (edit, annotator, document, what and the stored value) and nothing
changes; otherwise the new schema replaces the old one, the audit trail records both
texts' digests and what changed, and releases list the revisions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from annotator.adjudication.queue import project_changed
from annotator.annotate.answers import rating_value_problem
from annotator.annotate.store import ValidationFailed, missing_for_done
from annotator.core.shown import got
from annotator.models import Assignment, Document, Edit, Project
from annotator.schemas import Schema
from annotator.schemas.answers import validate_fields
from annotator.schemas.files import project_schema
from annotator.study import audit
from annotator.study.schema_history import REVISED


class SchemaRevisionRefused(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} stored annotation(s) would not fit the new schema")


class SchemaRevisionStale(ValueError):
    """The project's schema changed after the revision was previewed: what the lead checked
    is not what would be replaced, so nothing is applied (a stale save is refused)."""


@dataclass
class Revision:
    before: str
    after: str
    changes: list[str] = field(default_factory=list)


@dataclass
class RevisionPreview:
    """What :func:`revise_schema` would do, computed without writing: the changes, every
    stored annotation that would break (empty: the revision applies), and the digest of the
    schema it was checked against (sent back on apply, see :class:`SchemaRevisionStale`)."""
    changes: list[str]
    problems: list[str]
    base_sha256: str
    identical: bool

    @property
    def applies(self) -> bool:
        return not self.problems and not self.identical


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def schema_changes(old: Schema, new: Schema) -> list[str]:
    """A short human list of what differs (edit types, fields, ratings)."""
    out = []
    old_types, new_types = {e.name: e for e in old.edit_types}, {e.name: e for e in new.edit_types}
    out += [f"edit type {n} added" for n in new_types if n not in old_types]
    out += [f"edit type {n} removed" for n in old_types if n not in new_types]
    for name in old_types.keys() & new_types.keys():
        a, b = old_types[name], new_types[name]
        if a == b:
            continue
        a_fields, b_fields = {f.name: f for f in a.fields}, {f.name: f for f in b.fields}
        out += [f"{name}: field {f} added" for f in b_fields if f not in a_fields]
        out += [f"{name}: field {f} removed" for f in a_fields if f not in b_fields]
        out += [f"{name}: field {f} changed" for f in a_fields.keys() & b_fields.keys()
                if a_fields[f] != b_fields[f]]
        if (a.sides, a.required_sides, a.composite, a.multi_span, a.label, a.color) != (
                b.sides, b.required_sides, b.composite, b.multi_span, b.label, b.color):
            out.append(f"{name}: sides, label or span rules changed")
    old_r = {(r.level, r.name): r for r in old.ratings}
    new_r = {(r.level, r.name): r for r in new.ratings}
    out += [f"rating {k[0]}/{k[1]} added" for k in new_r if k not in old_r]
    out += [f"rating {k[0]}/{k[1]} removed" for k in old_r if k not in new_r]
    out += [f"rating {k[0]}/{k[1]} changed" for k in old_r.keys() & new_r.keys()
            if old_r[k] != new_r[k]]
    if (old.name, old.title, old.description, old.unit, old.prehighlighters, old.guideline) != (
            new.name, new.title, new.description, new.unit, new.prehighlighters, new.guideline):
        out.append("name, title, description, unit, guideline or pre-highlighters changed")
    return out


def breaking_problems(session: Session, project: Project, new: Schema) -> list[str]:
    """Every stored annotation the new schema would reject, one line each."""
    problems = []
    assignments = session.scalars(
        select(Assignment).join(Document).where(Document.project_id == project.id)
        .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                 selectinload(Assignment.ratings), selectinload(Assignment.document),
                 selectinload(Assignment.user))
        .order_by(Document.position, Assignment.id)).all()
    for a in assignments:
        who = f"{a.user.username} on {a.document.external_id}"
        by_id = {e.id: e for e in a.edits}
        for e in a.edits:
            problems += [f"edit {e.id} ({e.edit_type}, {who}): {p}"
                         for p in _edit_problems(e, by_id, new)]
        for r in a.ratings:
            spec = new.rating(r.field, r.level)
            if spec is None:
                problems.append(f"rating {r.level}/{r.field} ({who}): no such rating field "
                                "in the new schema" + got(r.value))
            elif (wrong := rating_value_problem(new, spec, r.value)):
                problems.append(f"rating {r.level}/{r.field} ({who}): {wrong}")
        if a.status == "done":
            problems += [f"done work of {who} would be incomplete: {m['message']}"
                         for m in missing_for_done(a, new)]
    return problems


def _edit_problems(e: Edit, by_id: dict[int, Edit], new: Schema) -> list[str]:
    edit_type = new.edit_type(e.edit_type)
    if edit_type is None:
        return ["no such edit type in the new schema"]
    out = []
    sides = [s.side for s in e.spans]
    for side in sorted(set(sides)):
        if side not in edit_type.sides:
            out.append(f"spans on the {side} side are not allowed any more"
                       + got([[s.start, s.end] for s in e.spans if s.side == side]))
        elif not edit_type.multi_span and sides.count(side) > 1:
            out.append("takes one span per side now" + got(sides.count(side)))
    parent = by_id.get(e.parent_id) if e.parent_id else None
    if parent is not None:
        parent_type = new.edit_type(parent.edit_type)
        if parent_type is not None and not parent_type.composite:
            out.append(f"is a constituent of {parent.edit_type} {parent.id}, which is not "
                       "composite any more")
    try:
        validate_fields(dict(e.fields or {}), edit_type.fields)
    except ValidationFailed as exc:
        out += [f"{p['field'].removeprefix('fields.')}: {p['message']}" for p in exc.problems]
    return out


def preview_revision(session: Session, project: Project, new: Schema) -> RevisionPreview:
    """What revising the project's schema to ``new`` would change and break; reads only."""
    return RevisionPreview(changes=schema_changes(project_schema(project), new),
                           problems=breaking_problems(session, project, new),
                           base_sha256=digest(project.schema_yaml),
                           identical=new.source_text == project.schema_yaml)


def revise_schema(session: Session, project: Project, new: Schema,
                  user_id: int | None = None, base_sha256: str | None = None) -> Revision:
    """Replace the project's schema by ``new`` or raise SchemaRevisionRefused.

    ``base_sha256``, when given, is the digest of the schema the revision was previewed
    against; another revision since then raises SchemaRevisionStale."""
    if base_sha256 is not None and base_sha256 != digest(project.schema_yaml):
        raise SchemaRevisionStale("the project's schema was revised since this preview; "
                                  "preview the revision again")
    old = project_schema(project)
    problems = breaking_problems(session, project, new)
    if problems:
        raise SchemaRevisionRefused(problems)
    revision = Revision(before=project.schema_yaml, after=new.source_text,
                        changes=schema_changes(old, new))
    project.schema_name, project.schema_yaml = new.name, new.source_text
    audit.record(session, REVISED, user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, schema_before=old.name,
                 schema_after=new.name, sha256_before=digest(revision.before),
                 sha256_after=digest(revision.after), changes=revision.changes,
                 yaml_before=revision.before)
    project_changed(session, project.id)  # entries name disputed fields of the schema
    session.flush()
    return revision
