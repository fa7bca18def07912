"""The data model: projects of original/simplified document pairs, who annotates what, and
everything they mark.

Tables follow the data flow: documents (with sentence offsets) -> suggestions (pre-highlights)
-> assignments -> edits with spans, ratings -> audit events. Every record that annotators or
leads change carries a ``version``; SQLAlchemy checks it on every UPDATE (optimistic
concurrency), and the JSON API compares it with the version the client last saw, so a stale
save is refused instead of overwriting newer work.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column, relationship

from annotator.core.vocabulary import (  # noqa: F401  (re-exported: models.SIDES etc.)
    ASSIGNMENT_STATUSES,
    JOB_STATES,
    PROJECT_ROLES,
    ROLES,
    SIDES,
    SUGGESTION_ACTIONS,
    sql_in,
)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    # Stable constraint names, so Alembic migrations behave the same on SQLite and PostgreSQL.
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, Any: JSON}


class Versioned:
    """Mixin: a version counter that SQLAlchemy bumps and checks on every UPDATE."""

    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.version}


class User(Base):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint(sql_in("role", ROLES), name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    email: Mapped[str | None] = mapped_column(String(254), unique=True, index=True, nullable=True)
    active: Mapped[bool] = mapped_column(default=True)
    # Stored in the session cookie at login and compared on every request: bumping it
    # (logout, password change, deactivation) ends every session of the user at once.
    session_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    @property
    def is_lead(self) -> bool:
        return self.role in ("admin", "lead")


class Project(Versioned, Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    # The folder of the project's releases under exports/: unique (case-insensitively, checked
    # at creation), so two projects never share one (``trial.`` and ``trial`` would).
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    schema_name: Mapped[str] = mapped_column(String(120))
    # The schema YAML exactly as it was when the project was created: a project keeps
    # working (and releases stay reproducible) even if the built-in file changes later.
    schema_yaml: Mapped[str] = mapped_column(Text)
    annotators_per_doc: Mapped[int] = mapped_column(default=2)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    documents: Mapped[list[Document]] = relationship(back_populates="project")
    members: Mapped[list[ProjectMember]] = relationship(back_populates="project")


class ProjectMember(Base):
    __tablename__ = "project_members"
    __table_args__ = (
        UniqueConstraint("project_id", "user_id"),
        CheckConstraint(sql_in("role", PROJECT_ROLES), name="role"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))

    project: Mapped[Project] = relationship(back_populates="members")
    user: Mapped[User] = relationship()


class Document(Versioned, Base):
    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("project_id", "external_id"),
        # Lists page through a project in import order.
        Index("ix_documents_project_position", "project_id", "position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(Text)
    target: Mapped[str] = mapped_column(Text)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Character offsets [[start, end], ...] of the sentences on each side.
    source_sentences: Mapped[list[Any]] = mapped_column(default=list)
    target_sentences: Mapped[list[Any]] = mapped_column(default=list)
    # For sentence-level input: indices [[source_i, target_i], ...] of aligned sentences.
    sentence_pairs: Mapped[list[Any] | None] = mapped_column(nullable=True)
    # Sentence alignment from the alignment engine: [[[source_i, ...], [target_j, ...]], ...].
    alignment: Mapped[list[Any] | None] = mapped_column(nullable=True)
    position: Mapped[int] = mapped_column(default=0)  # order within the import
    prehighlighted_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    project: Mapped[Project] = relationship(back_populates="documents")
    assignments: Mapped[list[Assignment]] = relationship(back_populates="document")
    suggestions: Mapped[list[Suggestion]] = relationship(
        back_populates="document", cascade="all, delete-orphan"
    )


class Assignment(Versioned, Base):
    __tablename__ = "assignments"
    __table_args__ = (
        UniqueConstraint("document_id", "user_id"),
        Index("ix_assignments_user_status", "user_id", "status"),
        CheckConstraint(sql_in("status", ASSIGNMENT_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(String(16), default="assigned")
    seconds_spent: Mapped[float] = mapped_column(Float, default=0.0)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # POSIX time of the last time heartbeat: the next one is credited at most the time since.
    last_time_report: Mapped[float | None] = mapped_column(Float, nullable=True)
    # What an imported record carried beyond the edits (a tool's own ids, per-record metadata),
    # kept so that exports give it back.
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    document: Mapped[Document] = relationship(back_populates="assignments")
    user: Mapped[User] = relationship()
    edits: Mapped[list[Edit]] = relationship(
        back_populates="assignment", cascade="all, delete-orphan", order_by="Edit.id"
    )
    ratings: Mapped[list[Rating]] = relationship(
        back_populates="assignment", cascade="all, delete-orphan", order_by="Rating.id"
    )


class Edit(Versioned, Base):
    """One marked problem: an edit type, its fields (question, answer, severity, ...) and
    spans on either side."""

    __tablename__ = "edits"

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    edit_type: Mapped[str] = mapped_column(String(64))
    fields: Mapped[dict[str, Any]] = mapped_column(default=dict)
    suggestion_id: Mapped[int | None] = mapped_column(
        ForeignKey("suggestions.id", ondelete="SET NULL"), nullable=True
    )
    # A constituent of a composite edit (SALSA's `structure` edits) points at its composite.
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("edits.id", ondelete="CASCADE"), nullable=True, index=True
    )
    # What an imported edit carried beyond type, fields and spans (e.g. the tool's edit id).
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    assignment: Mapped[Assignment] = relationship(back_populates="edits")
    spans: Mapped[list[Span]] = relationship(
        # In the order they were marked (or listed in an imported file): "the first span of
        # an edit" means the first one marked, as in the InfoLossQA figures.
        back_populates="edit", cascade="all, delete-orphan", order_by="Span.id"
    )


class Span(Base):
    """A character range on one side of the pair: ``side`` is 'source' (the original) or
    'target' (the simplification); ``end`` is exclusive."""

    __tablename__ = "spans"
    __table_args__ = (
        CheckConstraint(sql_in("side", SIDES), name="side"),
        CheckConstraint("start >= 0 AND \"end\" > start", name="range"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    edit_id: Mapped[int] = mapped_column(ForeignKey("edits.id", ondelete="CASCADE"), index=True)
    side: Mapped[str] = mapped_column(String(8))
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)

    edit: Mapped[Edit] = relationship(back_populates="spans")


class Rating(Versioned, Base):
    """An item-level rating: one schema field for one item (the document, a sentence, an
    aligned sentence pair or a QA item)."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("assignment_id", "level", "item", "field"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    level: Mapped[str] = mapped_column(String(16))
    item: Mapped[str] = mapped_column(String(64), default="")
    field: Mapped[str] = mapped_column(String(64))
    value: Mapped[Any] = mapped_column(nullable=True)
    rationale: Mapped[str | None] = mapped_column(Text, nullable=True)

    assignment: Mapped[Assignment] = relationship(back_populates="ratings")


class Suggestion(Base):
    """A pre-highlight from the alignment engine (kind, spans per side, score, method and a
    one-line explanation)."""

    __tablename__ = "suggestions"

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(32))
    source_spans: Mapped[list[Any]] = mapped_column(default=list)
    target_spans: Mapped[list[Any]] = mapped_column(default=list)
    score: Mapped[float] = mapped_column(Float, default=0.0)
    # How well the target span renders the source phrase (align.suggestions.Suggestion).
    target_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    # {kind: probability} of a loss box carrying both kinds (align.suggestions.Suggestion);
    # None for a single-kind suggestion.
    kind_scores: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True),
                                                               nullable=True)
    method: Mapped[str] = mapped_column(String(64))
    explanation: Mapped[str] = mapped_column(Text, default="")
    category: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    document: Mapped[Document] = relationship(back_populates="suggestions")


class SuggestionAction(Base):
    """An annotator accepting or dismissing a suggestion: the data behind the precision
    report of each pre-highlighter."""

    __tablename__ = "suggestion_actions"
    __table_args__ = (
        UniqueConstraint("suggestion_id", "user_id"),
        CheckConstraint(sql_in("action", SUGGESTION_ACTIONS), name="action"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    suggestion_id: Mapped[int] = mapped_column(ForeignKey("suggestions.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))
    edit_id: Mapped[int | None] = mapped_column(
        ForeignKey("edits.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LoginThrottle(Base):
    """Login attempts of one user name (``user:<name>``), one client address
    (``addr:<ip>``) or one name from one address (``pair:<hash>``) in the current window;
    updated with single atomic UPDATEs so that parallel attempts cannot overshoot the limit
    (see :mod:`annotator.study.throttle`). Times are POSIX seconds."""

    __tablename__ = "login_throttle"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[float] = mapped_column(Float, default=0.0)
    next_allowed: Mapped[float] = mapped_column(Float, default=0.0)


class AuditEvent(Base):
    """Who did what, when: imports, assignments, logins, edits, decisions."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), nullable=True, index=True
    )
    action: Mapped[str] = mapped_column(String(64))
    object_type: Mapped[str | None] = mapped_column(String(32), nullable=True)
    object_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)


# ---------------------------------------------------------------- adjudication
# A lead turns the annotators' edits and ratings of a document into one gold record. Every
# step is an AdjudicationDecision row (append-only: who, when, which source edits, values
# before and after, note); gold edits and gold ratings are created by decisions and count
# while their decision is not retracted, so the full history stays and any gold value can
# be traced back to the annotators' originals.

DECISION_KINDS = ("accept", "merge", "keep_both", "reject", "regroup", "rating", "majority",
                  "tiebreak", "route", "complete", "reopen", "undo")


class AdjudicationState(Versioned, Base):
    """Where the adjudication of one document stands: 'open' or 'complete'. ``round``
    counts reopenings."""

    __tablename__ = "adjudication_states"
    __table_args__ = (CheckConstraint("status IN ('open', 'complete')", name="status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="open")
    round: Mapped[int] = mapped_column(Integer, default=1)
    completed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    document: Mapped[Document] = relationship()


class AdjudicationDecision(Base):
    """One adjudication step. ``source_edit_ids`` are the annotators' edits it decides on;
    ``item_key`` names a rating item ('level|item|field') or a unit ('edits:3,8');
    ``retracted_by_id`` points at the later decision that undid it (undo or reopen)."""

    __tablename__ = "adjudication_decisions"

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer, default=1)
    kind: Mapped[str] = mapped_column(String(16))
    automatic: Mapped[bool] = mapped_column(default=False)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    item_key: Mapped[str] = mapped_column(String(255), default="")
    source_edit_ids: Mapped[list[Any]] = mapped_column(default=list)
    before: Mapped[Any] = mapped_column(nullable=True)
    after: Mapped[Any] = mapped_column(nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    retracted_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("adjudication_decisions.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User | None] = relationship()


class GoldEdit(Base):
    """An edit of the gold record, created by an accept / merge / keep-both decision."""

    __tablename__ = "gold_edits"

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    decision_id: Mapped[int] = mapped_column(
        ForeignKey("adjudication_decisions.id", ondelete="CASCADE"), index=True)
    edit_type: Mapped[str] = mapped_column(String(64))
    fields: Mapped[dict[str, Any]] = mapped_column(default=dict)
    spans: Mapped[list[Any]] = mapped_column(default=list)  # [{side, start, end}, ...]
    source_edit_ids: Mapped[list[Any]] = mapped_column(default=list)

    decision: Mapped[AdjudicationDecision] = relationship()


class GoldRating(Base):
    """A gold rating value, with how it was reached: majority, lead or tiebreak."""

    __tablename__ = "gold_ratings"

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    decision_id: Mapped[int] = mapped_column(
        ForeignKey("adjudication_decisions.id", ondelete="CASCADE"), index=True)
    level: Mapped[str] = mapped_column(String(16))
    item: Mapped[str] = mapped_column(String(64), default="")
    field: Mapped[str] = mapped_column(String(64))
    value: Mapped[Any] = mapped_column(nullable=True)
    method: Mapped[str] = mapped_column(String(16))

    decision: Mapped[AdjudicationDecision] = relationship()


class AdjudicationQueueEntry(Base):
    """The adjudication queue, stored: one row per document whose adjudication inputs
    changed at least once, kept up to date incrementally (see
    :mod:`annotator.adjudication.queue`). ``changes`` is bumped by every change to the
    document's assignments, edits, ratings or decisions; the entry is current while
    ``computed == changes``. ``annotators`` and ``disputed`` are '|a|b|' lists, so the
    page filters them with LIKE on both SQLite and PostgreSQL."""

    __tablename__ = "adjudication_queue"
    __table_args__ = (Index("ix_adjudication_queue_order", "project_id", "ready", "complete",
                            "agreement", "position"),
                      Index("ix_adjudication_queue_stale", "project_id", "stale"))

    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    changes: Mapped[int] = mapped_column(Integer, default=1)
    computed: Mapped[int] = mapped_column(Integer, default=0)
    stale: Mapped[bool] = mapped_column(default=True)  # computed != changes, indexed
    ready: Mapped[bool] = mapped_column(default=False)
    complete: Mapped[bool] = mapped_column(default=False)
    agreement: Mapped[float] = mapped_column(Float, default=1.0)
    open_total: Mapped[int] = mapped_column(Integer, default=0)
    open_summary: Mapped[str] = mapped_column(Text, default="")
    annotators: Mapped[str] = mapped_column(Text, default="|")
    disputed: Mapped[str] = mapped_column(Text, default="|")
    position: Mapped[int] = mapped_column(Integer, default=0)
    # The data manager's row, stored so that its filters, sorts and counts are index scans
    # (issue 44; annotator.adjudication.document_status): the document's status, every
    # holder's username (tie-breaks included) sorted and joined by ", " (compared code point
    # by code point: the "C" collation on PostgreSQL), the time of every assignment, and the
    # agreement and open decisions shown (NULL unless the status is ready or adjudicated).
    status: Mapped[str] = mapped_column(String(16), default="unassigned",
                                        server_default="unassigned")
    holders: Mapped[str] = mapped_column(
        Text().with_variant(Text(collation="C"), "postgresql"), default="", server_default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    shown_agreement: Mapped[float | None] = mapped_column(Float, nullable=True)
    shown_open: Mapped[int | None] = mapped_column(Integer, nullable=True)


# The data manager's sorts: one index per key and direction, ties in document order either
# way (annotator.operations.document_table); the status filter in document order.
QUEUE_SORT_KEYS = ("holders", "seconds", "shown_agreement", "shown_open")
Index("ix_adjudication_queue_status", AdjudicationQueueEntry.project_id,
      AdjudicationQueueEntry.status, AdjudicationQueueEntry.position,
      AdjudicationQueueEntry.document_id)
Index("ix_adjudication_queue_position", AdjudicationQueueEntry.project_id,
      AdjudicationQueueEntry.position, AdjudicationQueueEntry.document_id)
for _key in QUEUE_SORT_KEYS:
    _column = getattr(AdjudicationQueueEntry, _key)
    Index(f"ix_adjudication_queue_{_key}", AdjudicationQueueEntry.project_id, _column,
          AdjudicationQueueEntry.position, AdjudicationQueueEntry.document_id)
    Index(f"ix_adjudication_queue_{_key}_desc", AdjudicationQueueEntry.project_id,
          _column.desc(), AdjudicationQueueEntry.position, AdjudicationQueueEntry.document_id)
# The data manager's search, lower(column) LIKE '%needle%': GIN trigram indexes, PostgreSQL
# only (migration 0013_document_search_trigrams; absent where pg_trgm could not be created).
for _key in ("external_id", "source", "target"):
    _lowered = func.lower(Document.__table__.c[_key]).label(_key)
    Index(f"ix_documents_lower_{_key}_trgm", _lowered, postgresql_using="gin",
          postgresql_ops={_key: "gin_trgm_ops"}).ddl_if(dialect="postgresql")


class AssignmentCount(Base):
    """One annotator's assignments in a project with one status, and their time: what "My
    documents" shows per project, read in a few rows at any size (issue 44). Kept by
    triggers on ``assignments`` (migration 0012_list_page_status): every writer of an
    assignment, the bulk ones included, moves the counts in its own statement."""

    __tablename__ = "assignment_counts"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                         primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"),
                                            primary_key=True)
    status: Mapped[str] = mapped_column(String(16), primary_key=True)
    assignments: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)


class ProjectStatusCount(Base):
    """How many documents of a project have each data-manager status: the stored statuses
    of ``adjudication_queue`` counted, kept by adding deltas in the transaction that changes
    a status (``UPDATE ... SET documents = documents + delta``: concurrent changes add up
    instead of overwriting each other), so the data manager's counts read a few rows."""

    __tablename__ = "project_status_counts"

    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), primary_key=True)
    documents: Mapped[int] = mapped_column(Integer, default=0)


class TieBreakRequest(Base):
    """A disputed rating item routed to a third annotator (the PlainFact procedure): the
    third annotator's Assignment rates only these items and their label breaks the tie."""

    __tablename__ = "tiebreak_requests"
    __table_args__ = (UniqueConstraint("assignment_id", "level", "item", "field"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    decision_id: Mapped[int | None] = mapped_column(
        ForeignKey("adjudication_decisions.id", ondelete="SET NULL"), nullable=True)
    level: Mapped[str] = mapped_column(String(16))
    item: Mapped[str] = mapped_column(String(64), default="")
    field: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    assignment: Mapped[Assignment] = relationship()


# ---------------------------------------------------------------- releases
# A release lives in the database (issue 31), so every app server on one database lists,
# verifies and serves the same releases and a backup of the database carries them. The
# folder on disk is an export (``annotator release export``). The migration adds triggers
# that refuse UPDATE and DELETE on these three tables: a version is never overwritten.


class ReleaseBlob(Base):
    """The bytes of a release file, addressed by their sha256: a file shared by several
    releases (schema.yaml, guideline.md) is stored once."""

    __tablename__ = "release_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Release(Base):
    """One immutable version of a project's gold release: its MANIFEST.json (stored as a
    blob, byte for byte, so its sha256 stays the one cited) and its files."""

    __tablename__ = "releases"
    __table_args__ = (UniqueConstraint("project_id", "version"),
                      CheckConstraint("origin IN ('cut', 'folder')", name="origin"))

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    version: Mapped[str] = mapped_column(String(64))
    manifest_sha256: Mapped[str] = mapped_column(ForeignKey("release_blobs.sha256"))
    # The manifest's own created_at, kept as a column to order the list without reading it.
    created_at: Mapped[str] = mapped_column(String(40))
    stored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # 'cut' through this tool's database, or 'folder': adopted from a release folder
    # written on disk before releases moved into the database.
    origin: Mapped[str] = mapped_column(String(16), default="cut")

    files: Mapped[list[ReleaseFile]] = relationship(order_by="ReleaseFile.name")


class ReleaseFile(Base):
    """A file of a release: its path inside the release and the blob holding its bytes."""

    __tablename__ = "release_files"

    release_id: Mapped[int] = mapped_column(ForeignKey("releases.id"), primary_key=True)
    name: Mapped[str] = mapped_column(String(512), primary_key=True)
    sha256: Mapped[str] = mapped_column(ForeignKey("release_blobs.sha256"), index=True)


# ---------------------------------------------------------------- evaluation modes
# Judging what models generate (issue 8). QA pairs, whether generated by a model or taken
# from a gold release as references, are first-class rows; raters' judgements of them are
# ordinary Rating rows at level 'qa' (item = the QA item id, or 'p<pair id>' for a recall
# comparison), so the rating API, adjudication and releases carry them unchanged.

QA_ORIGINS = ("model", "reference")


class EvalQAItem(Base):
    """One QA pair of a document: a model's prediction or a reference from a gold release.
    ``valid`` is False (with ``problem``) when its spans do not occur in the texts; such
    items are kept and reported, never sampled. ``sampled`` marks the rating sample."""

    __tablename__ = "eval_qa_items"
    __table_args__ = (
        CheckConstraint("origin IN ('model', 'reference')", name="origin"),
        Index("ix_eval_qa_items_project_model", "project_id", "model"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    origin: Mapped[str] = mapped_column(String(16), default="model")
    model: Mapped[str] = mapped_column(String(120))
    external_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    category: Mapped[str] = mapped_column(String(64))
    question: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    evidence_spans: Mapped[list[Any]] = mapped_column(default=list)  # [[start, end], ...]
    rationale_spans: Mapped[list[Any]] = mapped_column(default=list)
    section: Mapped[str] = mapped_column(String(64), default="")
    valid: Mapped[bool] = mapped_column(default=True)
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)
    sampled: Mapped[bool] = mapped_column(default=False)
    position: Mapped[int] = mapped_column(default=0)  # order within the import file
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    document: Mapped[Document] = relationship()


class EvalRecallPair(Base):
    """A (reference QA, model QA) pair of one document with the cosine similarity of their
    question+answer embeddings; ``candidate`` pairs (similarity above the threshold) are
    compared by raters."""

    __tablename__ = "eval_recall_pairs"
    __table_args__ = (UniqueConstraint("reference_id", "prediction_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    reference_id: Mapped[int] = mapped_column(
        ForeignKey("eval_qa_items.id", ondelete="CASCADE"))
    prediction_id: Mapped[int] = mapped_column(
        ForeignKey("eval_qa_items.id", ondelete="CASCADE"), index=True)
    similarity: Mapped[float] = mapped_column(Float)
    candidate: Mapped[bool] = mapped_column(default=False)

    reference: Mapped[EvalQAItem] = relationship(foreign_keys=[reference_id])
    prediction: Mapped[EvalQAItem] = relationship(foreign_keys=[prediction_id])


# ---------------------------------------------------------------- background work
# Work that outlives a request (pre-highlighting imported documents, refits, queue
# refreshes) is a row here, claimed by any worker process under a lease that expires, so a
# killed worker's job is claimed again (see annotator.study.jobs).


class Job(Base):
    """One piece of background work. ``lease_owner`` / ``lease_expires_at``: the worker
    running it and until when its claim holds (extended by its heartbeat); ``attempts``
    counts claims (a job whose worker died is claimed again). ``dedupe_key`` is set while
    the job is queued (``kind:project``, or ``kind:project:key`` for work named by a key,
    such as a release's version), so one kind of work is queued once per project (and key)."""

    __tablename__ = "jobs"
    # No CHECK on ``kind``: a new kind of work needs no migration (enqueue checks it).
    __table_args__ = (CheckConstraint(sql_in("state", JOB_STATES), name="state"),
                      Index("ix_jobs_state_id", "state", "id"),
                      Index("ix_jobs_project_id_id", "project_id", "id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), nullable=True)
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    state: Mapped[str] = mapped_column(String(16), default="queued")
    dedupe_key: Mapped[str | None] = mapped_column(String(100), unique=True, nullable=True)
    progress_done: Mapped[int] = mapped_column(Integer, default=0)
    progress_total: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                              nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Back-off after a transient database error: not claimed before this moment.
    not_before: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # One line per attempt that ended in a transient database error ("attempt N at T: why").
    retry_reasons: Mapped[str] = mapped_column(Text, default="", server_default="")


class WorkerBeat(Base):
    """A worker process's sign of life, written every few seconds while it polls or runs
    a job: ``/healthz`` reads the newest one ("worker alive")."""

    __tablename__ = "worker_beats"

    worker_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                              index=True)
    job_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
