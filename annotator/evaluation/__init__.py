"""Evaluation modes (issue 8): rating generated QA pairs (``qa-quality``), pairwise recall
of reference QAs (``qa-recall``), PLABA quality axes (``plaba``, ``plaba-2023``) and
PlainFact sentence typing (``plainfact``).

Pure statistics live in :mod:`quality`, :mod:`recall`, :mod:`plaba`, :mod:`plainfact`
(plain data in, plain dicts out); :mod:`store` reads the database into that plain data;
:mod:`results` assembles the results of a project for pages, exports and releases.
"""

# schema name -> mode (the page and the results builder to use)
MODES = {
    "qa-quality": "qa-quality",
    "qa-recall": "qa-recall",
    "plaba": "plaba",
    "plaba-2023": "plaba",
    "plainfact": "plainfact",
}


def mode_of(schema_name: str) -> str | None:
    return MODES.get(schema_name)
