"""Pre-highlighting engine: pure functions over strings (no Flask, no database).

Entry points: :func:`suggest` (one pair), :func:`suggest_many` (a corpus, optionally
multi-process), the :class:`Suggestion` record and :class:`AlignSettings` thresholds.
Building blocks: :mod:`.text` (tokens, sentences), :mod:`.sentence_alignment`,
:mod:`.trailing_content` (+ :mod:`.trailing_batch`), :mod:`.overgeneration`,
:mod:`.information_loss`, :mod:`.content_classes`, :mod:`.embeddings`.
"""

from .pipeline import ALL_DETECTORS, STRING_DETECTORS, analyse_pair, suggest, suggest_many
from .settings import AlignSettings
from .suggestions import Suggestion

__all__ = ["ALL_DETECTORS", "STRING_DETECTORS", "AlignSettings", "Suggestion", "analyse_pair",
           "suggest", "suggest_many"]
