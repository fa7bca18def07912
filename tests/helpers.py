"""Small builders used across tests (not fixtures, so tests call them explicitly)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import func, select

from annotator.annotate.assignment import assign_documents
from annotator.ingest import import_file
from annotator.models import Assignment, AuditEvent, Document, Edit, Rating, Span, User
from annotator.operations import work
from annotator.study.projects import create_project

# Real, published study files kept with the tests (tests/data/README.md: sources, licences,
# attribution). Read-only: tests copy what they change into tmp_path.
STUDY_DATA = Path(__file__).resolve().parent / "data"

# Thresh's SALSA example (Heineman et al. 2023, Apache-2.0): annotations and typology.
SALSA = STUDY_DATA / "thresh-salsa"

# The InfoLossQA rating studies (Trienes et al. 2024, CC BY 4.0): their Label Studio
# labeling configs and both raters' JSON-MIN exports of batch 1, per study.
INFOLOSSQA = STUDY_DATA / "infolossqa-dev"
INFOLOSSQA_CONFIG = {s: INFOLOSSQA / "config" / f"label-studio-{s}.xml"
                     for s in ("accuracy", "recall")}
INFOLOSSQA_FILES = {s: {r: INFOLOSSQA / f"eval-{s}-annotations" / f"batch1-{r}.json"
                        for r in ("kathryn", "keziah")} for s in ("accuracy", "recall")}
# The authors' Thresh typology of the annotation study (its ``instructions`` are the
# annotators' guideline) and their Thresh annotation exports, one folder per annotator.
INFOLOSSQA_TYPOLOGY = INFOLOSSQA / "config" / "thresh.yml"
INFOLOSSQA_ANNOTATIONS = INFOLOSSQA / "annotations"


def infolossqa_pair(doc_id: str) -> tuple[str, str]:
    """(original, simplification) of one InfoLossQA development document, as its Thresh
    export holds them (Trienes et al. 2024, CC BY 4.0)."""
    for path in sorted((INFOLOSSQA / "annotations").glob(f"*/{doc_id}-annotations.json")):
        record = json.loads(path.read_text(encoding="utf-8"))[0]
        return record["source"], record["target"]
    raise FileNotFoundError(f"{INFOLOSSQA}: no document {doc_id}")


def infolossqa_pairs(n: int) -> list[dict]:
    """The first ``n`` InfoLossQA development documents as pairs to import or align
    (``id``, ``source``, ``target``), in the order of their Thresh exports."""
    pairs: dict[str, dict] = {}
    for path in sorted((INFOLOSSQA / "annotations").glob("annotations-*/*-annotations.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            pairs.setdefault(str(record["id"]), {"id": str(record["id"]),
                                                 "source": record["source"],
                                                 "target": record["target"]})
    return list(pairs.values())[:n]


def http_login(base_url: str, username: str, password: str) -> int:
    """A fresh browser-like client against a served app: GET the form (CSRF token +
    cookie), POST it; the status of the answer (redirects not followed)."""
    import re

    import requests

    client = requests.Session()
    page = client.get(f"{base_url}/login").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return client.post(f"{base_url}/login", allow_redirects=False, data={
        "username": username, "password": password, "csrf_token": token}).status_code


def poison_job_json(database, job_id: int, raw: str, column: str = "payload") -> bool:
    """Store ``raw`` as a job's payload (or result) by hand, past the ORM, as the probe of
    issue 41 did; False when the database itself refuses it (PostgreSQL's json type takes
    only JSON text)."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    try:
        with database.engine.begin() as connection:
            value = "CAST(:raw AS json)" if connection.dialect.name == "postgresql" else ":raw"
            connection.execute(text(f"UPDATE jobs SET {column} = {value} WHERE id = :id"),
                               {"raw": raw, "id": job_id})
    except DBAPIError:
        return False
    return True


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return path


def pairs(n: int, prefix: str = "d") -> list[dict]:
    return [{"id": f"{prefix}{i}",
             "source": f"Patients received {i}.5 mg/kg i.v. daily. The trial was double-blind.",
             "target": f"Patients got medicine {i}. The study was fair.",
             "meta": {"system": "sys-a"}} for i in range(1, n + 1)]


def table_count(database_url: str, table: str) -> int:
    """Rows of ``table`` in the database at ``database_url`` (as a command left it)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    with engine.connect() as connection:
        value = connection.execute(text(f"SELECT count(*) FROM {table}")).scalar()
    engine.dispose()
    return value


def row_counts(session) -> dict[str, int]:
    return {model.__tablename__: session.scalar(select(func.count()).select_from(model))
            for model in (Document, Assignment, Edit, Span, Rating, AuditEvent)}


def factuality_sentence_pairs(database, users, tmp_path) -> list[int]:
    """Project 'facts' (factuality schema): one document of two sentence pairs assigned to
    ana and ben; returns ana's assignment ids."""
    records = [{"id": "f1", "sentences": [
        {"source": "Systolic pressure fell by 11.2 mmHg with spironolactone.",
         "target": "Blood pressure went down with the medicine."},
        {"source": "Hyperkalaemia occurred in 3 patients.",
         "target": "Three patients had high potassium, and all of them died."}]}]
    with work.session(database) as session:
        project = create_project(session, "facts", "factuality",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "facts.jsonl", records))
        assign_documents(session, project, ["ana", "ben"])
        return session.scalars(select(Assignment.id).join(Assignment.user)
                               .where(Assignment.user.has(username="ana"))).all()


# A Thresh typology with a conditional sub-question and a document-level edit (the shapes
# of SALSA's and InfoLossQA's typologies), for the annotation page and API tests.
MINI_TYPOLOGY = """
template_name: mini-salsa
edits:
  - name: deletion
    label: Deletion
    enable_input: true
    annotation:
      - name: deletion_type
        question: Select the type of this deletion.
        options:
          - name: good_deletion
            label: Insignificant
            question: How much does it help?
            options: likert-3
          - name: bad_deletion
            label: Significant
  - name: comment
    label: Comment
    annotation:
      - name: comment_text
        question: Any remarks on this pair?
        options: textarea
        required: true
"""


def mini_typology_assignment(database, tmp_path) -> dict:
    """Project 'mini' made from MINI_TYPOLOGY, one document assigned to ana."""
    return schema_file_assignment(database, tmp_path, "mini", "typology.yml", MINI_TYPOLOGY)


def schema_file_assignment(database, tmp_path, project_name: str, file_name: str,
                           text: str) -> dict:
    """Project ``project_name`` made from a schema file holding ``text`` (any kind the
    loader reads), one document assigned to ana."""
    schema = tmp_path / file_name
    schema.write_text(text, encoding="utf-8")
    records = pairs(1)
    with work.session(database) as session:
        project = create_project(session, project_name, str(schema))
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", records))
        assign_documents(session, project, ["ana"], per_document=1)
        assignment = session.query(Assignment).one()
        return {"assignment": assignment.id, "source": records[0]["source"]}


# Documents in every shape a documents file may give them (a plain pair, a number as id with
# meta, sentence pairs, sentence offsets, non-ASCII text): the importers' row tests use them.
VARIED_RECORDS = [
    {"id": "plain", "source": "Patients got 2.5 mg/kg i.v. daily. It worked.",
     "target": "Patients got the drug. It worked."},
    {"id": 7, "source": "One line.\n\nA second paragraph.", "target": "Short.",
     "system": "gpt-4o", "meta": {"section": "Methods", "nested": {"a": [1, 2]}}},
    {"id": "sentences", "sentences": [{"source": "First original.", "target": "First."},
                                      {"source": "Second original.", "target": "Second."}]},
    {"id": "offsets", "source": "Ab cd. Ef gh.", "target": "Ab. Ef.",
     "source_sentences": [[0, 6], [7, 13]], "target_sentences": [[0, 3], [4, 7]]},
    {"id": "unicode", "source": "Ärzte gaben 5 µg — täglich. “Quoted.”",
     "target": "Doctors gave a drug 🙂."},
]
