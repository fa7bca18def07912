"""Task modes: what a project's schema asks annotators to do, and everything that depends
on it, in one registry used by the web pages, the CLI, releases and the demo.

A schema declares its mode (``mode: qa-quality``); nothing else in the code looks at a
schema's name, so a custom YAML copied from a built-in under a new name keeps its mode.

Each mode names (lazily, as ``module:function`` so that this module imports nothing
heavy and no stage imports a later one at start-up):

- ``page``: the template of its own annotation page, or None for the ordinary annotation
  page (edits with spans, item ratings);
- ``payload(session, assignment) -> dict``: extra keys of its page's JSON payload;
- ``done_rule(session, assignment) -> list[dict]``: what blocks "done" beyond the schema's
  required fields and ratings;
- ``results(session, project) -> dict``: the mode's results (results page, exports,
  release files); modes without results have none of these;
- ``demo(session, project, data_dir)``: extra set-up of a demo project;
- ``rated_documents(session, project) -> {document id: items}``: what raters get assigned;
- ``tiebreak_on_page``: a third annotator's tie-break opens the mode's page;
- ``routes_disagreements``: the lead routes disagreements to a third annotator in bulk;
- ``rating_check(field, value) -> str | None``: the mode's own rule on a rating value
  beyond the schema's options (PlainFact: "external" cannot go with sentence numbers),
  applied by :func:`rating_problem` for the annotation API and every importer alike.

Pure: it imports no database code, so file readers can apply the mode's rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Callable

from annotator.core.vocabulary import TASK_MODES
from annotator.schemas.files import project_schema


@dataclass(frozen=True)
class TaskMode:
    name: str
    description: str
    page: str | None = None
    payload: str | None = None
    done_rule: str | None = None
    results: str | None = None
    demo: str | None = None
    rated_documents: str | None = None
    tiebreak_on_page: bool = False
    routes_disagreements: bool = False
    rating_check: str | None = None

    @property
    def has_results(self) -> bool:
        return self.results is not None

    @property
    def has_own_page(self) -> bool:
        return self.page is not None

    def hook(self, name: str) -> Callable | None:
        """The function behind hook ``name``, or None when the mode has none."""
        target = getattr(self, name)
        if target is None:
            return None
        module, function = target.split(":")
        return getattr(import_module(module), function)


_PAGES = "annotator.evaluation.pages"
_RESULTS = "annotator.evaluation.results"
_DEMO = "annotator.evaluation.demo"
_STORE = "annotator.evaluation.store"

MODES: dict[str, TaskMode] = {m.name: m for m in (
    TaskMode("annotation", "Edits with spans and item ratings on the annotation page."),
    TaskMode("qa-quality", "Rate generated QA pairs on nine criteria (InfoLossQA evaluation).",
             page="eval_qa_quality.html", payload=f"{_PAGES}:qa_quality_payload",
             done_rule=f"{_PAGES}:qa_quality_missing", results=f"{_RESULTS}:qa_quality",
             demo=f"{_DEMO}:prepare_qa_quality",
             rated_documents=f"{_STORE}:documents_with_sampled_items"),
    TaskMode("qa-recall", "Say how fully model QA pairs recall reference QA pairs.",
             page="eval_recall.html", payload=f"{_PAGES}:qa_recall_payload",
             done_rule=f"{_PAGES}:qa_recall_missing", results=f"{_RESULTS}:qa_recall",
             demo=f"{_DEMO}:prepare_qa_recall",
             rated_documents=f"{_STORE}:documents_with_candidate_pairs"),
    TaskMode("plaba", "PLABA quality axes per output sentence, on the annotation page.",
             results=f"{_RESULTS}:plaba"),
    TaskMode("plainfact", "PlainFact sentence typing; a third annotator resolves ties.",
             page="eval_plainfact.html", payload=f"{_PAGES}:plainfact_payload",
             results=f"{_RESULTS}:plainfact", demo=f"{_DEMO}:prepare_plainfact",
             tiebreak_on_page=True, routes_disagreements=True,
             rating_check="annotator.evaluation.plainfact:rating_problem"),
)}
assert tuple(MODES) == TASK_MODES, "every mode the schemas may declare is registered"


def mode_named(name: str) -> TaskMode:
    return MODES[name]


def schema_mode(schema) -> TaskMode:
    return MODES[schema.mode]


def project_mode(project) -> TaskMode:
    return schema_mode(project_schema(project))


def rating_problem(schema, field: str, value) -> str | None:
    """Why the schema's mode refuses ``value`` for rating ``field``, or None (the schema's
    options are checked by ``schemas.answers.value_problem``)."""
    check = schema_mode(schema).hook("rating_check")
    return check(field, value) if check else None
