"""Gold ratings: majority on Devaraj-style items, the lead's choice, the third-annotator
route (PlainFact), and `annotator adjudicate auto` in batch."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from annotator.adjudication import store
from annotator.adjudication.gold import gold_record
from annotator.adjudication.overview import apply_automatic, complete, open_items
from annotator.adjudication.ratings import rating_items, resolve_rating, route_to_third
from annotator.annotate.store import ValidationFailed, set_rating
from annotator.cli import main
from annotator.models import Document, TieBreakRequest, User


@pytest.fixture
def f1(database, factuality_study):
    with database.session() as session:
        document = session.get(Document, factuality_study["document_id"])
        yield session, document, session.get(User, factuality_study["users"]["lee"])


def values(session, document):
    return {i.key: (i.outcome.status, i.gold.value if i.gold else None, i.gold and i.gold.method)
            for i in rating_items(session, document)}


def test_majority_resolves_agreeing_items_and_leaves_ties(f1):
    session, document, lee = f1
    result = apply_automatic(session, document, lee)
    assert result["ratings_resolved"] == 4 and not result["completed"]
    got = values(session, document)
    assert got["pair|0|deletion"] == ("unanimous", 1, "majority")
    assert got["pair|1|substitution"] == ("unanimous", 2, "majority")
    assert got["pair|1|insertion"] == ("tie", None, None)
    assert got["pair|1|deletion"] == ("tie", None, None)
    assert open_items(session, document)["ratings"] == 2


def test_lead_resolves_a_tie_and_may_change_it_later(f1):
    session, document, lee = f1
    with pytest.raises(ValidationFailed):
        resolve_rating(session, document, "pair|1|insertion", 7, lee)
    resolve_rating(session, document, "pair|1|insertion", 1, lee, "main idea kept")
    resolve_rating(session, document, "pair|1|insertion", 2, lee, "on reflection: changed")
    assert values(session, document)["pair|1|insertion"][1:] == (2, "rating")
    history = [x for x in store.history(session, document) if x.item_key == "pair|1|insertion"]
    assert [x.after["value"] for x in history] == [1, 2]
    assert history[0].retracted_by_id == history[1].id
    assert history[1].before["values"] == {"ana": 1, "ben": 2}


def test_third_annotator_breaks_the_tie(f1, factuality_study):
    session, document, lee = f1
    apply_automatic(session, document, lee)
    with pytest.raises(store.AdjudicationError, match="unresolved"):
        route_to_third(session, document, ["pair|0|deletion"], lee)
    assignment = route_to_third(session, document, ["pair|1|insertion", "pair|1|deletion"], lee,
                                note="PlainFact: third annotator")
    assert assignment.user_id == factuality_study["cy"]  # the only annotator not on f1
    asked = session.scalars(select(TieBreakRequest).where(
        TieBreakRequest.assignment_id == assignment.id)).all()
    assert sorted((r.item, r.field) for r in asked) == [("1", "deletion"), ("1", "insertion")]
    assert open_items(session, document)["tiebreaks"] == 2
    # cy rates only the disputed items: insertion 2 breaks the 1-vs-2 tie; deletion 2 makes
    # {0, 1, 2}, all different (Devaraj): still no label, the lead decides.
    for field in ("insertion", "deletion"):
        set_rating(session, assignment, {"level": "pair", "item": "1", "field": field,
                                         "value": 2}, assignment.user_id)
    apply_automatic(session, document, lee)
    got = values(session, document)
    assert got["pair|1|insertion"] == ("tie", 2, "tiebreak")
    assert got["pair|1|deletion"][1] is None
    resolve_rating(session, document, "pair|1|deletion", 1, lee)
    complete(session, document, lee)
    ratings = {(r["item"], r["field"]): r for r in gold_record(session, document)["ratings"]}
    assert ratings[("1", "insertion")]["provenance"]["tiebreak"] == {"cy": 2}
    assert ratings[("1", "insertion")]["provenance"]["values"] == {"ana": 1, "ben": 2}
    assert gold_record(session, document)["annotators"] == ["ana", "ben"]  # cy is no annotator


def test_route_refuses_someone_who_annotated_the_document(f1):
    session, document, lee = f1
    with pytest.raises(store.AdjudicationError, match="already annotated"):
        route_to_third(session, document, ["pair|1|insertion"], lee, username="ana")


def test_auto_majority_can_be_switched_off_per_project(f1):
    session, document, lee = f1
    document.project.settings = {"adjudication": {"auto_majority": False}}
    session.flush()
    assert apply_automatic(session, document, lee)["ratings_resolved"] == 0


def test_adjudicate_auto_command_reports_what_is_left(env, qa_study):
    result = CliRunner().invoke(main, ["adjudicate", "auto", "qa", "--no-embeddings", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["documents"] == 2 and summary["completed"] == 1
    assert summary["units_accepted"] == 1
    assert [x["id"] for x in summary["left"]] == ["q1"] and summary["left"][0]["units"] == 2
    status = CliRunner().invoke(main, ["adjudicate", "status", "qa"])
    assert status.exit_code == 0
    lines = status.output.splitlines()
    assert lines[0].startswith("q1\topen") and lines[1].startswith("q2\tcomplete")
    missing = CliRunner().invoke(main, ["adjudicate", "auto", "nope", "--no-embeddings"])
    assert missing.exit_code == 1 and "no project named 'nope'" in missing.output
