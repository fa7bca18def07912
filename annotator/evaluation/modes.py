"""The evaluation modes' hooks, registered in one visible place: for each task mode of
:mod:`annotator.annotate.modes` that declares hooks, the evaluation functions behind them
(page payloads and "done" rules: :mod:`.pages`; results: :mod:`.results`; demo set-up:
:mod:`.demo`; what raters get assigned: :mod:`.store`; PlainFact's rating rule:
:mod:`.plainfact`).

The registry sits below this floor (annotation saves and importers apply a mode's done and
rating rules); this module fills it from above, so no stage imports a later one. The app
factory and the ``annotator`` command import it. Each hook loads its module on its first
call: registering the modes must not cost `annotator import` or `annotator --help` the
statistics stack (numpy, the adjudication code; tests/test_cli_startup.py).
"""

from __future__ import annotations

from annotator.annotate.modes import register_hooks

# Imports inside functions: each accessor loads its evaluation module on the first call of
# a hook that needs it (module docstring: start-up time of commands that never call one).


def _pages():
    from annotator.evaluation import pages

    return pages


def _results():
    from annotator.evaluation import results

    return results


def _demo():
    from annotator.evaluation import demo

    return demo


def _store():
    from annotator.evaluation import store

    return store


def _plainfact():
    from annotator.evaluation import plainfact

    return plainfact


register_hooks(
    "qa-quality",
    payload=lambda session, assignment: _pages().qa_quality_payload(session, assignment),
    done_rule=lambda session, assignment: _pages().qa_quality_missing(session, assignment),
    results=lambda session, project: _results().qa_quality(session, project),
    demo=lambda session, project, data_dir: _demo().prepare_qa_quality(
        session, project, data_dir),
    rated_documents=lambda session, project: _store().documents_with_sampled_items(
        session, project),
)
register_hooks(
    "qa-recall",
    payload=lambda session, assignment: _pages().qa_recall_payload(session, assignment),
    done_rule=lambda session, assignment: _pages().qa_recall_missing(session, assignment),
    results=lambda session, project: _results().qa_recall(session, project),
    demo=lambda session, project, data_dir: _demo().prepare_qa_recall(
        session, project, data_dir),
    rated_documents=lambda session, project: _store().documents_with_candidate_pairs(
        session, project),
)
register_hooks(
    "plaba",
    results=lambda session, project: _results().plaba(session, project),
)
register_hooks(
    "plainfact",
    payload=lambda session, assignment: _pages().plainfact_payload(session, assignment),
    results=lambda session, project: _results().plainfact(session, project),
    demo=lambda session, project, data_dir: _demo().prepare_plainfact(
        session, project, data_dir),
    rating_check=lambda field, value: _plainfact().rating_problem(field, value),
)
