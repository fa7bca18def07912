"""Gold ratings: per item and field, each annotator's value, the majority rule, the lead's
choice, and the third-annotator route.

Automatic resolution follows Devaraj et al. (2022): the majority label wins ({1, 1, 2} -> 1)
and an item where every annotator differs ({2, 1, 0}) has none. Ties and all-different
items wait for the lead, or go to a third annotator (PlainFact: two annotators, a third
resolves disagreements): :func:`route_to_third` gives a third annotator an Assignment with
one :class:`TieBreakRequest` per disputed item; once they rated an item, the majority over
all three values decides it (:func:`overview.apply_automatic`, method 'tiebreak'). Only categorical
fields (choice, ordinal, multichoice) are resolved automatically, and only when the
project's settings do not switch it off (``settings["adjudication"]["auto_majority"]``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.labels import LabelOutcome, can_auto_resolve, resolve_labels
from annotator.adjudication.store import (
    AdjudicationError,
    active_decisions,
    original_assignments,
    record,
    require_open,
)
from annotator.annotate.answers import rating_value_problem
from annotator.annotate.assignment import annotator_pool
from annotator.annotate.store import ValidationFailed
from annotator.core.keys import BadKey, parse_rating_key, rating_key
from annotator.models import (
    Assignment,
    Document,
    GoldRating,
    Rating,
    TieBreakRequest,
    User,
)
from annotator.schemas.files import project_schema

RATING_KINDS = ("majority", "rating", "tiebreak")


def parse_key(key: str) -> tuple[str, str, str]:
    try:
        return parse_rating_key(key)
    except BadKey as exc:
        raise AdjudicationError(str(exc)) from None


@dataclass
class RatingItem:
    level: str
    item: str
    field: str
    label: str
    field_type: str
    values: dict[str, object]  # annotator -> value (original annotators)
    tiebreak: dict[str, object] = field(default_factory=dict)  # third annotator -> value
    pending_tiebreak: list[str] = field(default_factory=list)  # asked, not yet rated
    gold: GoldRating | None = None
    outcome: LabelOutcome | None = None

    @property
    def key(self) -> str:
        return rating_key(self.level, self.item, self.field)

    @property
    def auto(self) -> bool:
        return can_auto_resolve(self.field_type)

    @property
    def with_tiebreak(self) -> LabelOutcome:
        return resolve_labels(list(self.values.values()) + list(self.tiebreak.values()))


def auto_majority_enabled(document: Document) -> bool:
    settings = (document.project.settings or {}).get("adjudication", {})
    return bool(settings.get("auto_majority", True))


def gold_ratings(session: Session, document: Document) -> dict[str, GoldRating]:
    active = {d.id for d in active_decisions(session, document) if d.kind in RATING_KINDS}
    rows = session.scalars(select(GoldRating).where(GoldRating.document_id == document.id))
    return {rating_key(g.level, g.item, g.field): g for g in rows if g.decision_id in active}


def rating_items(session: Session, document: Document) -> list[RatingItem]:
    """Every (level, item, field) some original annotator rated, categorical fields only
    (free-text ratings such as comments stay in the raw annotations)."""
    schema = project_schema(document.project)
    items: dict[str, RatingItem] = {}
    for a in original_assignments(session, document):
        for r in a.ratings:
            spec = schema.rating(r.field, r.level)
            if spec is None or spec.type == "text" or r.value in (None, ""):
                continue
            key = rating_key(r.level, r.item, r.field)
            entry = items.setdefault(key, RatingItem(r.level, r.item, r.field, spec.label,
                                                     spec.type, {}))
            entry.values[a.user.username] = r.value
    requests = session.scalars(select(TieBreakRequest).where(
        TieBreakRequest.document_id == document.id).order_by(TieBreakRequest.id))
    for req in requests:
        entry = items.get(rating_key(req.level, req.item, req.field))
        if entry is None:
            continue
        rating = session.scalar(select(Rating).where(
            Rating.assignment_id == req.assignment_id, Rating.level == req.level,
            Rating.item == req.item, Rating.field == req.field))
        name = req.assignment.user.username
        if rating is not None and rating.value not in (None, ""):
            entry.tiebreak[name] = rating.value
        else:
            entry.pending_tiebreak.append(name)
    gold = gold_ratings(session, document)
    for entry in items.values():
        entry.outcome = resolve_labels(list(entry.values.values()))
        entry.gold = gold.get(entry.key)
    return sorted(items.values(), key=lambda e: (e.level, _num(e.item), e.field))


def _num(item: str):
    return (0, int(item), "") if item.isdigit() else (1, 0, item)


def _store(session, document, item: RatingItem, value, method, user, note, automatic):
    decision = record(session, document, method, user, automatic=automatic, item_key=item.key,
                      before={"values": dict(sorted(item.values.items())),
                              "tiebreak": dict(sorted(item.tiebreak.items()))},
                      after={"value": value}, note=note)
    if item.gold is not None:  # the lead changes an earlier gold value: retract it
        previous = session.get(type(decision), item.gold.decision_id)
        previous.retracted_by_id = decision.id
    session.add(GoldRating(document_id=document.id, decision_id=decision.id, level=item.level,
                           item=item.item, field=item.field, value=value, method=method))
    session.flush()
    return decision


def resolve_rating(session, document, key: str, value, user, note=""):
    """The lead sets the gold value of one item (any value the schema offers)."""
    require_open(session, document)
    level, item_id, field_name = parse_key(key)
    schema = project_schema(document.project)
    spec = schema.rating(field_name, level)
    item = next((i for i in rating_items(session, document) if i.key == key), None)
    if spec is None or item is None:
        raise AdjudicationError(f"{key} is not a rated item of this document")
    if value in (None, ""):  # a gold value is a value: "not answered" is no decision
        raise ValidationFailed([{"field": "value", "message": "expected one of " + ", ".join(
            repr(v) for v in spec.option_values())}])
    if (wrong := rating_value_problem(schema, spec, value)):
        raise ValidationFailed([{"field": "value", "message": wrong}])
    return _store(session, document, item, value, "rating", user, note, False)


def route_to_third(session, document, keys: list[str], user, *, username: str | None = None,
                   note: str = ""):
    """Give a third annotator the disputed items (only those) of this document."""
    require_open(session, document)
    items = {i.key: i for i in rating_items(session, document)}
    disputed = [k for k in keys if k in items and items[k].gold is None
                and not items[k].outcome.resolved]
    if not disputed or len(disputed) != len(keys):
        raise AdjudicationError("only unresolved items without a gold value can be routed")
    third = _third_annotator(session, document, username)
    assignment = session.scalar(select(Assignment).where(
        Assignment.document_id == document.id, Assignment.user_id == third.id))
    if assignment is None:
        assignment = Assignment(document_id=document.id, user_id=third.id)
        session.add(assignment)
        session.flush()
    decision = record(session, document, "route", user, item_key=";".join(disputed),
                      before={k: dict(sorted(items[k].values.items())) for k in disputed},
                      after={"annotator": third.username, "assignment_id": assignment.id,
                             "items": disputed}, note=note)
    for key in disputed:
        level, item_id, field_name = parse_key(key)
        exists = session.scalar(select(TieBreakRequest.id).where(
            TieBreakRequest.assignment_id == assignment.id, TieBreakRequest.level == level,
            TieBreakRequest.item == item_id, TieBreakRequest.field == field_name))
        if exists is None:
            session.add(TieBreakRequest(document_id=document.id, assignment_id=assignment.id,
                                        decision_id=decision.id, level=level, item=item_id,
                                        field=field_name))
    session.flush()
    return assignment


def _third_annotator(session, document, username):
    holders = {a.user_id for a in original_assignments(session, document)}
    if username:
        user = session.scalar(select(User).where(User.username == username))
        if user is None or not user.active or user.role != "annotator":
            raise AdjudicationError(f"no active annotator named {username!r}")
        if user.id in holders:
            raise AdjudicationError(f"{username} already annotated this document")
        return user
    pool = [u for u in annotator_pool(session, document.project) if u.id not in holders]
    if not pool:  # project members are all on this document: any other active annotator
        pool = [u for u in session.scalars(select(User).where(
            User.role == "annotator", User.active.is_(True))) if u.id not in holders]
    if not pool:
        raise AdjudicationError("no third annotator available: add one with "
                                "`annotator user add NAME --role annotator`")
    load = Counter(session.scalars(select(Assignment.user_id).where(
        Assignment.user_id.in_([u.id for u in pool]))))
    return min(pool, key=lambda u: (load[u.id], u.username))


def apply_rating_rules(session, document, user=None) -> list:
    """Majority (and tie-break) resolution of every item without a gold value."""
    if not auto_majority_enabled(document):
        return []
    made = []
    for item in rating_items(session, document):
        if item.gold is not None or not item.auto:
            continue
        if item.outcome.resolved:
            made.append(_store(session, document, item, item.outcome.value, "majority", user,
                               "", True))
        elif item.tiebreak and item.with_tiebreak.resolved:
            made.append(_store(session, document, item, item.with_tiebreak.value, "tiebreak",
                               user, "", True))
    return made
