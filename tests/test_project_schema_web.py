"""Issue 35 (item 12): a lead revises a running project's schema on the settings page,
without a browser. The preview lists what changes and every stored annotation that would
break, and writes nothing; applying revises only when everything fits (audited, the
adjudication queue marked); a bad file, a breaking revision or a stale preview is refused
with the reason and changes nothing; only the project's leads and admins get in."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, select

from annotator.models import AdjudicationQueueEntry, AuditEvent, Document, Project, User
from annotator.operations.schema_revision import digest
from annotator.study.accounts import create_user
from annotator.study.schema_history import REVISED
from tests.conftest import PASSWORD
from tests.test_get_writes_nothing_on_any_route import WRITE
from tests.test_lead_study_web import THRESH, Lead, upload

OPTIONAL_TOPIC = ("      - name: topic\n        label: Topic\n        type: choice\n"
                  "        options:\n          - {value: dose, label: Dose}\n"
                  "          - {value: risk, label: Risk}\n")
COMMENT_FIELD = "      - name: comment_text\n        label: Comment\n        type: text\n" \
                "        required: true\n"


@pytest.fixture
def trial(app, database, study):
    """study ('trial', infolossqa, lead lee) with a comment edit of ana on d1 and a
    deletion of ana whose severity is 3 (critical)."""
    ana = Lead(app, "ana")
    aid = study["assignments"]["ana"][0]
    for body in ({"edit_type": "comment", "fields": {"comment_text": "no loss"}, "spans": []},
                 {"edit_type": "deletion", "spans": [{"side": "source", "start": 0, "end": 5}],
                  "fields": {"question": "What dose?", "answer": "Ten.", "severity": 3}}):
        response = ana.client.post(f"/api/assignments/{aid}/edits", json=body,
                                   headers={"X-CSRFToken": ana.token})
        assert response.status_code == 201, response.get_json()
    return study


def stored(database, project_id) -> tuple[str, int]:
    """The project's schema text and how many revisions are audited."""
    with database.session() as session:
        text = session.get(Project, project_id).schema_yaml
        events = session.scalars(select(AuditEvent).where(AuditEvent.action == REVISED)).all()
        return text, len(events)


def current_text(database, project_id) -> str:
    return stored(database, project_id)[0]


def with_topic(text: str) -> str:
    assert COMMENT_FIELD in text
    return text.replace(COMMENT_FIELD, COMMENT_FIELD + OPTIONAL_TOPIC)


def without_comment_type(text: str) -> str:
    start = text.index("\n  - name: comment\n") + 1
    end = text.index("prehighlighters:")
    return text[:start] + text[end:]


def items(html: str, list_class: str) -> list[str]:
    block = html.split(f'class="{list_class}"', 1)[1].split("</ul>", 1)[0]
    return [re.sub(r"<[^>]+>", "", li).strip() for li in block.split("<li>")[1:]]


def test_the_settings_page_shows_the_schema_and_its_yaml_downloads(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    page = lee.get(f"/projects/{pid}/settings").get_data(as_text=True)
    assert "deletion (Deletion): original, several spans per side" in page
    assert 'id="schema-text"' in page and "name: infolossqa" in page
    yaml_file = lee.get(f"/projects/{pid}/schema.yaml")
    assert yaml_file.status_code == 200
    assert yaml_file.headers["Content-Disposition"] == 'attachment; filename="trial-schema.yaml"'
    assert yaml_file.get_data(as_text=True) == current_text(database, pid)


def test_a_preview_lists_the_changes_and_writes_nothing(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    before = stored(database, pid)
    response = lee.post(f"/projects/{pid}/schema/preview",
                        {"schema_text": with_topic(before[0]).replace("\n", "\r\n")})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'data-applies="yes"' in html
    assert "<li>comment: field topic added</li>" in html
    assert "Every stored annotation fits the revised schema." in html
    assert "topic: choice [&#39;dose&#39;, &#39;risk&#39;]" in html
    assert 'id="schema-apply-form"' in html
    assert stored(database, pid) == before


def test_applying_revises_audits_and_marks_the_queue(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    with database.session() as session:
        queued = {e.document_id: e.changes for e in session.scalars(
            select(AdjudicationQueueEntry))}
    old = current_text(database, pid)
    response = lee.post(f"/projects/{pid}/schema", {
        "schema_text": with_topic(old).replace("\n", "\r\n"), "base_sha256": digest(old)})
    assert response.status_code == 302, response.get_data(as_text=True)
    assert response.headers["Location"].endswith(f"/projects/{pid}/settings")
    page = lee.get(f"/projects/{pid}/settings").get_data(as_text=True)
    assert "Schema revised (now infolossqa): comment: field topic added." in page
    assert current_text(database, pid) == with_topic(old)  # LF kept, not the form's CRLF
    with database.session() as session:
        (event_,) = session.scalars(select(AuditEvent).where(AuditEvent.action == REVISED))
        assert event_.user_id == trial["users"]["lee"]
        assert event_.details["changes"] == ["comment: field topic added"]
        after = {e.document_id: e.changes for e in session.scalars(
            select(AdjudicationQueueEntry))}
        documents = set(session.scalars(select(Document.id).where(Document.project_id == pid)))
    assert set(after) == documents
    assert all(after[d] == queued.get(d, 0) + 1 for d in documents)


def test_a_breaking_revision_is_listed_and_refused_with_422(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    before = stored(database, pid)
    fewer = without_comment_type(before[0]).replace(
        "          - {value: 3, label: critical}\n", "")
    preview = lee.post(f"/projects/{pid}/schema/preview", {"schema_text": fewer})
    assert preview.status_code == 200
    html = preview.get_data(as_text=True)
    assert 'data-applies="no"' in html and 'id="schema-apply-form"' not in html
    assert "2 stored annotation(s) would not fit" in html
    listed = items(html, "schema-problems")
    assert len(listed) == 2
    assert re.fullmatch(r"edit \d+ \(comment, ana on d1\): no such edit type in the new "
                        r"schema", listed[0])
    assert re.fullmatch(r"edit \d+ \(deletion, ana on d1\): severity: .*3.*", listed[1])
    refused = lee.post(f"/projects/{pid}/schema",
                       {"schema_text": fewer, "base_sha256": digest(before[0])})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "Schema not changed: 2 stored annotation(s) would not fit" in html
    assert items(html, "schema-problems") == listed
    assert stored(database, pid) == before


BAD_UPLOADS = [
    ("broken.yaml", "name: x\ntitle: X\nedit_types:\n  - label: No name\n",
     r"broken\.yaml: key 'edit_types\[0\]\.name'"),
    ("syntax.yml", "name: x\nedit_types: [\n", r"syntax\.yml: key 'line \d+': expected valid YAML"),
    ("latin1.yaml", "name: caf\xe9\n".encode("latin-1"),
     r"latin1\.yaml: key 'file': expected a UTF-8 text file"),
    ("config.xml", "<View><Labels name='x'/></View>", r"config\.xml: key '[^']+'"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_UPLOADS,
                         ids=[u[0] for u in BAD_UPLOADS])
def test_a_bad_upload_is_a_422_naming_the_file_and_key(app, database, trial, name, content,
                                                       message):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    before = stored(database, pid)
    for url in (f"/projects/{pid}/schema/preview", f"/projects/{pid}/schema"):
        response = lee.post(url, {"schema_file": upload(name, content)})
        assert response.status_code == 422, url
        alert = response.get_data(as_text=True).split('id="schema-error"', 1)[1]
        assert re.search(message, alert.replace("&#39;", "'")), alert[:400]
    assert stored(database, pid) == before


def test_empty_or_broken_text_is_a_422_and_the_text_stays(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    before = stored(database, pid)
    empty = lee.post(f"/projects/{pid}/schema/preview", {"schema_text": "  "})
    assert empty.status_code == 422
    assert "edited schema: key &#39;(top level)&#39;" in empty.get_data(as_text=True)
    broken = before[0].replace("type: ordinal", "type: stars", 1)
    response = lee.post(f"/projects/{pid}/schema", {"schema_text": broken})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Schema not changed: edited schema: key" in html and "&#39;stars&#39;" in html
    assert "type: stars" in html.split('id="schema-text"', 1)[1]  # the lead's text stays
    assert stored(database, pid) == before


def test_a_typology_upload_is_read_as_such(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    response = lee.post(f"/projects/{pid}/schema/preview",
                        {"schema_file": upload("omissions.yml", THRESH)})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Thresh typology: omissions (Omissions)" in html
    assert "<li>edit type omission added</li>" in html
    assert 'data-applies="no"' in html  # ana's deletion and comment have no type there


def test_a_preview_made_stale_by_another_revision_is_refused(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    old = current_text(database, pid)
    assert lee.post(f"/projects/{pid}/schema", {"schema_text": with_topic(old),
                                               "base_sha256": digest(old)}).status_code == 302
    after = stored(database, pid)
    stale = lee.post(f"/projects/{pid}/schema", {
        "schema_text": old.replace("label: minor", "label: small"), "base_sha256": digest(old)})
    assert stale.status_code == 409
    assert "revised since this preview" in stale.get_data(as_text=True)
    assert stored(database, pid) == after


def test_only_the_projects_leads_and_admins_get_in(app, database, trial):
    pid = trial["project_id"]
    with database.session() as session:
        create_user(session, "lou", PASSWORD, "lead")
    old = current_text(database, pid)
    body = {"schema_text": with_topic(old), "base_sha256": digest(old)}
    for name, expected in (("ana", 403), ("lou", 404)):
        person = Lead(app, name)
        assert person.get(f"/projects/{pid}/settings").status_code == expected
        assert person.get(f"/projects/{pid}/schema.yaml").status_code == expected
        assert person.post(f"/projects/{pid}/schema/preview", dict(body)).status_code == expected
        assert person.post(f"/projects/{pid}/schema", dict(body)).status_code == expected
    assert stored(database, pid)[1] == 0
    root = Lead(app, "root")
    assert root.post(f"/projects/{pid}/schema/preview", dict(body)).status_code == 200
    assert root.post(f"/projects/{pid}/schema", dict(body)).status_code == 302
    with database.session() as session:
        (event_,) = session.scalars(select(AuditEvent).where(AuditEvent.action == REVISED))
        assert event_.user_id == session.scalar(select(User.id).where(User.username == "root"))
    # Without the CSRF token a revision is refused.
    no_token = root.client.post(f"/projects/{pid}/schema", data={"schema_text": old})
    assert no_token.status_code == 400 and current_text(database, pid) == with_topic(old)


def test_the_schema_gets_write_nothing(app, database, trial):
    lee = Lead(app, "lee")
    pid = trial["project_id"]
    statements: list[str] = []
    engine = app.extensions["annotator_db"].engine

    def record(_conn, _cursor, statement, *_):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        for path in (f"/projects/{pid}/settings", f"/projects/{pid}/schema.yaml"):
            assert lee.get(path).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert statements and not [s for s in statements if WRITE.match(s)]
