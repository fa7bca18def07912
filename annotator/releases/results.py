"""Release hook: an evaluation project's results (``results/results.json`` and
``results/results.csv``) go into its release. Computed over the whole project, without
embeddings or randomness, serialised byte-stably, so releases stay deterministic."""

from __future__ import annotations

from annotator.annotate.modes import project_mode
from annotator.evaluation.export import results_csv, results_json
from annotator.evaluation.results import project_results


def results_files(session, project) -> dict[str, str]:
    if not project_mode(project).has_results:
        return {}
    data = project_results(session, project)
    return {"results/results.json": results_json(data), "results/results.csv": results_csv(data)}
