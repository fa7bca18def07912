"""The closed word lists of the data model, listed once.

``models`` builds its CHECK constraints from these tuples, the schema loader validates YAML
against them, and import, agreement and the web layer import them from here.
"""

from __future__ import annotations

# The two sides of a pair: the original text and its simplification.
SIDES = ("source", "target")
# How the interface names each side to people (messages, guidelines).
SIDE_LABELS = {"source": "original", "target": "simplification"}

# What a rating may be about: the whole document, one simplified sentence, one aligned
# sentence pair, or one QA item (evaluation projects).
RATING_LEVELS = ("document", "sentence", "pair", "qa")

# Where an annotator's assignment stands. ``skipped``: set aside by the annotator or lead.
ASSIGNMENT_STATUSES = ("assigned", "in_progress", "done", "skipped")
# The statuses an annotator may set from the page (done when complete, reopen, or skip:
# set the document aside without annotating it).
ANNOTATOR_SET_STATUSES = ("done", "in_progress", "skipped")

ROLES = ("admin", "lead", "annotator")
PROJECT_ROLES = ("lead", "annotator")

SUGGESTION_ACTIONS = ("accepted", "dismissed")


def sql_in(column: str, values: tuple[str, ...]) -> str:
    """A CHECK constraint's ``column IN ('a', 'b')`` text built from one of the lists above."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"

# How a project's work is done and summarised; each schema YAML declares one (``mode:``) and
# annotator.annotate.modes says what each means (page, payload, done rule, results, demo).
TASK_MODES = ("annotation", "qa-quality", "qa-recall", "plaba", "plainfact")

# The pre-highlighters a schema may ask for (``prehighlighters:``), i.e. the detectors of the
# alignment engine, and every kind of suggestion they report (the UI colours by kind).
PREHIGHLIGHTERS = ("trailing", "leaked_instruction", "repetition", "semantic_outlier",
                   "deletion", "oversimplification")
SUGGESTION_KINDS = ("deletion", "oversimplification", "trailing", "trailing_noise",
                    "insertion", "leaked_instruction", "repetition", "semantic_outlier")

# InfoLossQA's Thresh categories (Trienes et al. 2024) -> this tool's edit types: "omission" is
# a deletion, "concept" (fuzzy concept) an oversimplification. Importers, the QA evaluation and
# the pre-highlight measure all read the authors' files through this one map.
EDIT_TYPE_OF_INFOLOSSQA_CATEGORY = {"omission": "deletion", "concept": "oversimplification"}

# Background work (annotator.study.jobs): what a job does, and where it stands. A job is
# queued, claimed by one worker (running, under a lease), then done or failed.
JOB_KINDS = ("prehighlight", "refit", "queue-refresh", "release")
JOB_STATES = ("queued", "running", "done", "failed")
