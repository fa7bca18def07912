"""The lead's project page shows the current agreement, recomputed when annotations change."""

import re

from annotator.models import Assignment, Edit, Span
from tests.conftest import login


def complete_with_deletion(database, assignment_ids, start, end):
    with database.session() as session:
        for assignment_id in assignment_ids:
            assignment = session.get(Assignment, assignment_id)
            session.add(Edit(assignment=assignment, edit_type="deletion",
                             fields={"question": "How much?", "answer": "2.5 mg/kg"},
                             spans=[Span(side="source", start=start, end=end)]))
            assignment.status = "done"


def exact_macro(page: str) -> str:
    match = re.search(r'data-metric="spans.source.exact_f1.macro"[^>]*>\s*<td[^>]*>[^<]*</td>'
                      r'\s*<td>([^<]*)<', page)
    return match.group(1) if match else "n/a"


def test_live_summary_follows_the_annotations(client, study, database):
    login(client, "lee")
    url = f"/projects/{study['project_id']}"
    first = client.get(url).get_data(as_text=True)
    assert "no document has two or more annotators" in first

    first_doc = [study["assignments"]["ana"][0], study["assignments"]["ben"][0]]
    complete_with_deletion(database, first_doc, 18, 27)
    second = client.get(url).get_data(as_text=True)
    assert "1 of 3 documents done by two or more annotators" in second
    assert exact_macro(second) == "1.000"

    # ben's second document gets a different span: exact agreement drops to 1/2.
    complete_with_deletion(database, [study["assignments"]["ana"][1]], 18, 27)
    complete_with_deletion(database, [study["assignments"]["ben"][1]], 40, 52)
    third = client.get(url).get_data(as_text=True)
    assert "2 of 3 documents" in third
    assert exact_macro(third) == "0.500"
