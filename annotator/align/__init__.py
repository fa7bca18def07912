"""Pre-highlighting engine: pure functions over strings (no Flask, no database).

Entry points: :func:`suggest` (one pair), :func:`suggest_many` (a corpus, optionally
multi-process), the :class:`Suggestion` record and :class:`AlignSettings` thresholds.
Building blocks: :mod:`.text` (tokens, sentences), :mod:`.sentence_alignment`,
:mod:`.trailing_content` (+ :mod:`.trailing_batch`), :mod:`.overgeneration`,
:mod:`.information_loss`, :mod:`.content_classes`, :mod:`.embeddings`. The database side:
:mod:`.store` (a package: suggestions, :mod:`.store.learning`, :mod:`.store.auto_refresh`).

The entry points are imported on first use: the pipeline brings NLTK and numpy, which the
web app and the database-side modules (e.g. the automatic refresh hook of a save) need not
load.
"""

from importlib import import_module

_EXPORTS = {"ALL_DETECTORS": "pipeline", "STRING_DETECTORS": "pipeline",
            "analyse_pair": "pipeline", "suggest": "pipeline", "suggest_many": "pipeline",
            "AlignSettings": "settings", "Suggestion": "suggestions"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
