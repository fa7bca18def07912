"""Property-based tests: arbitrary and malformed input gives a clear error, never a crash
and never a partial write."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.ingest import IngestError, read_documents

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
records = st.dictionaries(
    st.sampled_from(["id", "source", "target", "meta", "sentences", "source_sentences",
                     "target_sentences", "system"]) | st.text(max_size=6),
    json_values, max_size=6)


@FUZZ
@given(content=st.binary(max_size=400))
def test_reader_on_arbitrary_bytes_raises_only_ingest_errors(tmp_path_factory, content):
    for suffix in (".jsonl", ".json", ".csv"):
        path = tmp_path_factory.mktemp("fuzz") / f"input{suffix}"
        path.write_bytes(content)
        try:
            documents = read_documents(path)
        except IngestError as exc:
            assert str(exc).startswith(str(path)), str(exc)
        else:
            assert all(d.source.strip() and d.target.strip() for d in documents)


@FUZZ
@given(rows=st.lists(records, min_size=1, max_size=5))
def test_reader_on_arbitrary_records_validates_or_names_line_and_field(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("fuzz") / "input.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    try:
        documents = read_documents(path)
    except IngestError as exc:
        for problem in exc.problems:
            assert problem.line is not None and 1 <= problem.line <= len(rows)
    else:
        for document in documents:
            for offsets, text in ((document.source_sentences, document.source),
                                  (document.target_sentences, document.target)):
                for start, end in offsets or []:
                    assert 0 <= start < end <= len(text)


span = st.fixed_dictionaries({"side": st.sampled_from(["source", "target", "both", 3]),
                              "start": st.integers(-5, 200) | st.text(max_size=3),
                              "end": st.integers(-5, 200) | st.none()})
edit_bodies = st.fixed_dictionaries({
    "edit_type": st.sampled_from(["deletion", "oversimplification", "nope", None, 7]),
    "fields": st.dictionaries(st.sampled_from(["question", "answer", "severity", "x"]),
                              json_values, max_size=3) | json_values,
    "spans": st.lists(span, max_size=3) | json_values,
})


def test_api_never_answers_500_and_never_half_writes(client, study, database):
    from tests.conftest import login
    from tests.helpers import row_counts

    login(client, "ana")
    page = client.get("/my").get_data(as_text=True)
    headers = {"X-CSRFToken": page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]}
    assignment = study["assignments"]["ana"][0]

    @FUZZ
    @given(body=edit_bodies | json_values)
    def check(body):
        with database.session() as session:
            before = row_counts(session)
        # Sent as Python writes it (NaN/Infinity included): the server must refuse those.
        response = client.post(f"/api/assignments/{assignment}/edits", data=json.dumps(body),
                               content_type="application/json", headers=headers)
        assert response.status_code in (201, 400, 409, 422), response.get_data(as_text=True)
        assert response.is_json
        with database.session() as session:
            after = row_counts(session)
        if response.status_code != 201:
            assert after["edits"] == before["edits"] and after["spans"] == before["spans"]
        else:
            edit = response.get_json()["edit"]
            assert edit["edit_type"] in ("deletion", "oversimplification")
            assert all(0 <= s["start"] < s["end"] for s in edit["spans"])

    check()


thresh_like = st.lists(st.fixed_dictionaries({
    "id": st.sampled_from(["d1", "d2", 3, None]) | json_values,
    "source": st.sampled_from(["Mice got 5 mg.", ""]) | json_values,
    "target": st.sampled_from(["Mice got a drug.", None]) | json_values,
    "edits": st.lists(st.fixed_dictionaries({
        "category": st.sampled_from(["omission", "concept", "fluency", None]) | json_values,
        "annotation": json_values,
        "input_idx": st.lists(st.lists(st.integers(-3, 30), max_size=3), max_size=2) | json_values,
        "output_idx": st.lists(st.lists(st.integers(-3, 30), max_size=3), max_size=2) | json_values,
    }), max_size=3) | json_values,
    "_seconds_spent": json_values, "_completed": json_values,
}) | json_values, max_size=4)


def test_annotation_importers_refuse_cleanly_and_write_nothing(database, users, tmp_path):
    """Thresh, Label Studio, InfoLossQA and JSONL annotation files: any content gives an
    IngestError naming the file, or a complete import; never another exception and never
    a partial write."""
    from annotator.interop.importing import import_annotations
    from annotator.models import Project
    from annotator.study.projects import create_project
    from tests.helpers import row_counts

    with database.session() as session:
        project_id = create_project(session, "fuzz", "infolossqa").id
    formats = ["thresh", "labelstudio", "labelstudio-min", "annotations-jsonl", "infolossqa"]

    @FUZZ
    @given(rows=thresh_like, fmt=st.sampled_from(formats), as_lines=st.booleans())
    def check(rows, fmt, as_lines):
        path = tmp_path / ("in.jsonl" if as_lines or fmt == "annotations-jsonl" else "in.json")
        if path.suffix == ".jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in (rows if isinstance(rows, list)
                                                                    else [rows])))
        else:
            path.write_text(json.dumps(rows))
        with database.session() as session:
            before = row_counts(session)
        try:
            with database.session() as session:
                import_annotations(session, session.get(Project, project_id), path, fmt)
        except IngestError as exc:
            assert str(path) in str(exc)
            with database.session() as session:
                assert row_counts(session) == before
        else:
            with database.session() as session:
                after = row_counts(session)
            assert after["assignments"] >= before["assignments"]

    check()


def test_every_json_endpoint_answers_4xx_not_500_to_arbitrary_bodies(client, study, database):
    """Ratings, edit updates and deletes, suggestion actions, time and status, with any
    JSON body: a clear 4xx (or success), never a 500, never a partial write."""
    from annotator.models import Edit, Span, Suggestion
    from tests.conftest import login
    from tests.helpers import row_counts

    assignment = study["assignments"]["ana"][0]
    with database.session() as session:
        from annotator.models import Assignment
        a = session.get(Assignment, assignment)
        edit = Edit(assignment=a, edit_type="deletion", fields={"question": "Q?"},
                    spans=[Span(side="source", start=0, end=8)])
        suggestion = Suggestion(document_id=a.document_id, kind="deletion", method="test",
                                source_spans=[[0, 8]], target_spans=[], explanation="x")
        session.add_all([edit, suggestion])
        session.flush()
        edit_id, suggestion_id = edit.id, suggestion.id
    login(client, "ana")
    page = client.get("/my").get_data(as_text=True)
    headers = {"X-CSRFToken": page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]}
    endpoints = [
        ("PUT", f"/api/assignments/{assignment}/ratings"),
        ("PUT", f"/api/edits/{edit_id}"),
        ("POST", f"/api/assignments/{assignment}/suggestions/{suggestion_id}"),
        ("POST", f"/api/assignments/{assignment}/time"),
        ("POST", f"/api/assignments/{assignment}/status"),
    ]
    bodies = st.fixed_dictionaries({}, optional={
        "version": st.integers(-1, 5) | json_values, "level": st.sampled_from(
            ["document", "pair", "qa"]) | json_values,
        "item": json_values, "field": st.sampled_from(["simple", "x"]) | json_values,
        "value": json_values, "rationale": json_values, "fields": json_values,
        "spans": st.lists(span, max_size=2) | json_values, "edit_type": json_values,
        "action": st.sampled_from(["accepted", "dismissed"]) | json_values,
        "edit_id": st.just(edit_id) | json_values, "seconds": json_values,
        "status": st.sampled_from(["done", "in_progress"]) | json_values,
    }) | json_values

    @FUZZ
    @given(endpoint=st.sampled_from(endpoints), body=bodies,
           delete_version=st.sampled_from([-1, 0, 999]) | st.none())
    def check(endpoint, body, delete_version):
        method, path = endpoint
        with database.session() as session:
            before = row_counts(session)
        response = client.open(path, method=method, data=json.dumps(body),
                               content_type="application/json", headers=headers)
        assert response.status_code < 500, (method, path, body, response.get_data(as_text=True))
        assert response.is_json
        if response.status_code >= 400:
            with database.session() as session:
                assert row_counts(session)["spans"] == before["spans"]
                assert row_counts(session)["ratings"] == before["ratings"]
        # A delete without the current version is refused and deletes nothing.
        query = "" if delete_version is None else f"?version={delete_version}"
        removed = client.delete(f"/api/edits/{edit_id}{query}", headers=headers)
        assert removed.status_code in (409, 422), removed.get_data(as_text=True)
        with database.session() as session:
            assert session.get(Edit, edit_id) is not None

    check()
