"""The rendering phrases of a chunk are embedded ahead, in one call (issue #29): the
rendering search then finds each phrase in the embedder's cache, and the suggestions are
those made without embedding ahead."""

from __future__ import annotations

from annotator.align import AlignSettings, pipeline, suggest_many
from annotator.align.embeddings import Embedder
from tests.helpers import infolossqa_pairs


class _Recording(Embedder):
    """Records the texts each ``encode`` call had to run through the model."""

    def __init__(self):
        super().__init__()
        self.calls: list[list[str]] = []

    def encode(self, sentences):
        missing = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        if missing:
            self.calls.append(missing)
        return super().encode(sentences)


def test_the_rendering_search_finds_every_phrase_embedded_ahead():
    pairs = infolossqa_pairs(4)
    embedder = _Recording()
    pipeline._worker_state.update(detectors=None, settings=AlignSettings(), embedder=embedder)
    try:
        pipeline._embed_together(pairs)
        ahead = embedder.calls
        embedder.calls = []
        results = [pipeline._one(pair) for pair in pairs]
    finally:
        pipeline._worker_state.clear()
    assert embedder.calls == []          # nothing left to embed during the analysis
    assert len(ahead) == 2               # the sentences, then the phrases
    rendered = [s for _, out in results for s in out
                if s.kind == "oversimplification" and s.target_spans]
    assert rendered
    source = {p["id"]: p["source"] for p in pairs}
    phrases = {source[i][a:b] for i, out in results for s in out
               if s.kind == "oversimplification" for a, b in s.source_spans}
    assert phrases - set(ahead[0]) <= set(ahead[1])


def test_embedding_ahead_changes_no_suggestion(monkeypatch):
    pairs = infolossqa_pairs(4)
    ahead = [(i, [s.to_dict() for s in out]) for i, out in suggest_many(pairs, embedder=Embedder())]
    monkeypatch.setattr(pipeline, "rendering_phrases", lambda *args, **kwargs: [])
    searched = [(i, [s.to_dict() for s in out])
                for i, out in suggest_many(pairs, embedder=Embedder())]
    assert ahead == searched
