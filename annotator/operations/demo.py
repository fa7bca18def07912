"""The demo: small projects (one per built-in schema) on the embedded defaults.

The texts are invented trial abstracts written for this project, with planted problems
recorded in ``demo_data/infolossqa_demo_planted.json``. Two projects come with finished
work, adjudication and a first release (:mod:`annotator.operations.demo_work`).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.annotate.assignment import assign_documents
from annotator.core.resources import demo_data_dir
from annotator.evaluation.demo import prepare
from annotator.ingest import import_file
from annotator.models import Project
from annotator.operations.demo_work import add_demo_work
from annotator.study.accounts import create_user, find_user
from annotator.study.projects import create_project

# Fixed, printed credentials: the demo only ever serves on 127.0.0.1.
DEMO_USERS = (
    ("lee", "lead", "demo-lead-pw"),
    ("ana", "annotator", "demo-ana-pw"),
    ("ben", "annotator", "demo-ben-pw"),
    ("cas", "annotator", "demo-cas-pw"),  # the third annotator of some demo-infoloss texts
)
DEMO_PROJECTS = (
    ("demo-infoloss", "infolossqa", "infolossqa_demo.jsonl"),
    ("demo-overgeneration", "overgeneration", "overgeneration_demo.jsonl"),
    ("demo-factuality", "factuality", "factuality_demo.jsonl"),
    ("demo-qa-quality", "qa-quality", "eval_demo.jsonl"),
    ("demo-qa-recall", "qa-recall", "eval_demo.jsonl"),
    ("demo-plaba", "plaba", "plaba_demo.jsonl"),
    ("demo-plainfact", "plainfact", "eval_demo.jsonl"),
)


def create_demo(session: Session, *, with_work: bool = True) -> list[str]:
    """Create the demo users and projects that do not exist yet; the names of all demo
    projects. ``with_work=False`` leaves out the finished work (tests that add their own)."""
    users = {}
    for username, role, password in DEMO_USERS:
        users[username] = find_user(session, username) or create_user(
            session, username, password, role)
    names = []
    for name, schema, data_file in DEMO_PROJECTS:
        names.append(name)
        if session.scalar(select(Project).where(Project.name == name)) is not None:
            continue
        project = create_project(session, name, schema, leads=[users["lee"]])
        import_file(session, project, demo_data_dir() / data_file)
        prepare(session, project, demo_data_dir())  # evaluation projects: QA items, ...
        assign_documents(session, project, ["ana", "ben"])
        if with_work:
            add_demo_work(session, project)
    return names
