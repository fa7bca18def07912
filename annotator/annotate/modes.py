"""Task modes: what a project's schema asks annotators to do, and everything that depends
on it, in one registry used by the web pages, the CLI, releases and the demo.

A schema declares its mode (``mode: qa-quality``); nothing else in the code looks at a
schema's name, so a custom YAML copied from a built-in under a new name keeps its mode.

Each mode declares here which hooks it has; the functions behind them live on the
evaluation floor, above this one, and are registered at one visible place,
:mod:`annotator.evaluation.modes` (imported by the app factory and the ``annotator``
command), so no stage imports a later one and no module is named by a string:

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
  applied by :func:`rating_problem` through the one rating-value check
  (:func:`annotator.annotate.answers.rating_value_problem`): the annotation API, every
  importer, the lead's gold ratings and schema revisions alike.

A hook a mode declares but nobody registered is an error (:class:`ModeHookMissing`), never
a silent "no rule".

Pure: it imports no database code, so file readers can apply the mode's rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from annotator.core.vocabulary import TASK_MODES

HOOK_NAMES = ("payload", "done_rule", "results", "demo", "rated_documents", "rating_check")


class ModeHookMissing(LookupError):
    """A mode declares a hook that :mod:`annotator.evaluation.modes` has not registered in
    this process."""


@dataclass(frozen=True)
class TaskMode:
    name: str
    description: str
    page: str | None = None
    hooks: frozenset[str] = frozenset()  # which of HOOK_NAMES this mode has
    tiebreak_on_page: bool = False
    routes_disagreements: bool = False

    @property
    def has_results(self) -> bool:
        return "results" in self.hooks

    @property
    def has_own_page(self) -> bool:
        return self.page is not None

    def hook(self, name: str) -> Callable | None:
        """The function behind hook ``name``, or None when the mode has none."""
        if name not in HOOK_NAMES:
            raise ValueError(f"no task mode hook is called {name!r}")
        if name not in self.hooks:
            return None
        try:
            return _REGISTERED[self.name][name]
        except KeyError:
            raise ModeHookMissing(
                f"task mode {self.name!r}: its {name!r} hook is not registered; "
                "import annotator.evaluation.modes (the app and the command do)") from None


_REGISTERED: dict[str, dict[str, Callable]] = {}


def register_hooks(mode: str, **functions: Callable) -> None:
    """Register the functions behind ``mode``'s hooks: exactly the hooks it declares."""
    declared = MODES[mode].hooks
    if set(functions) != declared:
        raise ValueError(f"task mode {mode!r} declares hooks {sorted(declared)}, "
                         f"got {sorted(functions)}")
    _REGISTERED[mode] = dict(functions)


MODES: dict[str, TaskMode] = {m.name: m for m in (
    TaskMode("annotation", "Edits with spans and item ratings on the annotation page."),
    TaskMode("qa-quality", "Rate generated QA pairs on nine criteria (InfoLossQA evaluation).",
             page="eval_qa_quality.html",
             hooks=frozenset({"payload", "done_rule", "results", "demo", "rated_documents"})),
    TaskMode("qa-recall", "Say how fully model QA pairs recall reference QA pairs.",
             page="eval_recall.html",
             hooks=frozenset({"payload", "done_rule", "results", "demo", "rated_documents"})),
    TaskMode("plaba", "PLABA quality axes per output sentence, on the annotation page.",
             hooks=frozenset({"results"})),
    TaskMode("plainfact", "PlainFact sentence typing; a third annotator resolves ties.",
             page="eval_plainfact.html",
             hooks=frozenset({"payload", "results", "demo", "rating_check"}),
             tiebreak_on_page=True, routes_disagreements=True),
)}
assert tuple(MODES) == TASK_MODES, "every mode the schemas may declare is registered"


def mode_named(name: str) -> TaskMode:
    return MODES[name]


def schema_mode(schema) -> TaskMode:
    return MODES[schema.mode]


def project_mode(project) -> TaskMode:
    # Late: the schema reader (PyYAML) loads where a project's schema is read, not in every
    # process that registers the modes' hooks (`annotator import`: tests/test_cli_startup.py).
    from annotator.schemas.files import project_schema

    return schema_mode(project_schema(project))


def rating_problem(schema, field: str, value) -> str | None:
    """Why the schema's mode refuses ``value`` for rating ``field``, or None (the schema's
    options are checked by ``schemas.answers.value_problem``)."""
    check = schema_mode(schema).hook("rating_check")
    return check(field, value) if check else None
