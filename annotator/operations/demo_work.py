"""The demo's finished work: what a study looks like a few days in (issue 47).

Two projects carry work by the team's annotators, written by hand in this tool's own
annotations JSONL (``demo_data/*_demo_work.jsonl``, the ``annotator import --format
annotations-jsonl`` shape, so the files are also examples of it) and stored through that
import, as any other tool's work would be:

- ``demo-infoloss``: ana and ben finished the first five abstracts, cas (a third
  annotator) the first three; they disagree on spans, edit types, severities and the wording
  of questions and answers, and once on granularity (ana marks both doses of demo-05 as one
  deletion with two spans, ben as two deletions). ben skipped demo-06, ana is halfway
  through demo-07, and the rest is untouched. The project decides units by the majority
  rule (two of three annotators suffice; a finding one annotator of three marked alone is
  rejected).
- ``demo-overgeneration``: ana and ben finished six texts and disagree on categories,
  spans and whether a text overgenerates; the project keeps the default rule (identical
  edits of every annotator).

Then the automatic rules run as ``annotator adjudicate auto`` runs them, which adjudicates
the documents they settle and leaves the rest open in the queue, and release ``v0.1`` is
cut from what is adjudicated, so the agreement report, the adjudication queue and the
releases page all have content on first start. Times: ``seconds_spent`` is what the file
says; every start and completion time is the moment the demo was built.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from annotator.adjudication.automatic import adjudicate_project
from annotator.adjudication.rules import AutoRules
from annotator.core.resources import demo_data_dir
from annotator.interop.importing import import_annotations
from annotator.models import Project
from annotator.releases.writer import cut_release

# project -> (work file in demo_data/, the project's automatic adjudication rules)
DEMO_WORK = {
    "demo-infoloss": ("infolossqa_demo_work.jsonl", AutoRules(edit_rule="majority")),
    "demo-overgeneration": ("overgeneration_demo_work.jsonl", AutoRules()),
}
DEMO_RELEASE = "v0.1"
DEMO_RELEASE_NOTES = "first gold set of the demo: the documents the automatic rules settled"


def add_demo_work(session: Session, project: Project) -> bool:
    """Import the project's finished work, run the automatic rules and cut the first
    release; False (nothing done) for a demo project without work."""
    if project.name not in DEMO_WORK:
        return False
    file_name, rules = DEMO_WORK[project.name]
    # What `annotator adjudicate rules` stores.
    project.settings = {**(project.settings or {}), "adjudication": rules.as_settings()}
    import_annotations(session, project, demo_data_dir() / file_name, "annotations-jsonl")
    adjudicate_project(session, project)  # span overlap only: no model to load
    cut_release(session, project, DEMO_RELEASE, notes=DEMO_RELEASE_NOTES)
    return True
