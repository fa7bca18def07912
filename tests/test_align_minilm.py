"""The numpy MiniLM encoder reproduces sentence-transformers' all-MiniLM-L6-v2 vectors.

Real sentences: the first ten SALSA records' sources and simplifications (Thresh's copy of
the SALSA example data, Heineman et al. 2023).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from annotator.align.embeddings import Embedder, default_model_path
from annotator.align.minilm import MiniLMEncoder, is_supported
from annotator.config import Config, use
from tests.helpers import SALSA as SALSA_EXAMPLE

SALSA = SALSA_EXAMPLE / "salsa.json"
ROOT = Path(__file__).resolve().parents[1]


def _real_sentences() -> list[str]:
    records = json.loads(SALSA.read_text(encoding="utf-8"))[:10]
    sentences = [text for r in records for text in (r["source"], r["target"])]
    assert len(sentences) == 20 and len(set(sentences)) == 20
    return sentences


def test_numpy_encoder_matches_sentence_transformers_on_real_sentences():
    from sentence_transformers import SentenceTransformer

    sentences = _real_sentences()
    path = default_model_path()
    ours = MiniLMEncoder(path).encode(sentences, batch_size=7)  # several ragged batches
    reference = SentenceTransformer(path, device="cpu").encode(
        sentences, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
    assert ours.shape == reference.shape == (20, 384)
    assert ours.dtype == np.float32
    cosines = (ours * reference).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_default_model_qualifies_and_a_different_pooling_does_not(tmp_path):
    path = Path(default_model_path())
    assert is_supported(path)
    for name in ("config.json", "modules.json", "model.safetensors", "tokenizer.json"):
        (tmp_path / name).symlink_to(path / name)
    (tmp_path / "1_Pooling").mkdir()
    pooling = json.loads((path / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling), encoding="utf-8")
    assert not is_supported(tmp_path)
    assert not is_supported(tmp_path / "missing")


def test_embedder_uses_numpy_encoder_offline_without_importing_torch():
    """A fresh process with HF_HUB_OFFLINE=1: the default embedder encodes, torch stays out."""
    script = (
        "import sys\n"
        "from annotator.align.embeddings import Embedder\n"
        "from annotator.align.minilm import MiniLMEncoder\n"
        "e = Embedder()\n"
        "v = e.encode(['The drug lowered blood pressure.', 'Blood pressure went down.'])\n"
        "assert isinstance(e.model, MiniLMEncoder), type(e.model)\n"
        "print(v.shape, e.dimension(), round(float(v[0] @ v[1]), 3), 'torch' in sys.modules)\n"
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=str(ROOT))
    env.pop("ANNOTATOR_EMBEDDING_BACKEND", None)
    env.pop("ANNOTATOR_EMBEDDING_MODEL", None)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shape, dim, cosine, torch_loaded = done.stdout.rsplit(" ", 3)
    assert shape.strip() == "(2, 384)" and dim == "384"
    assert float(cosine) > 0.5  # paraphrases are close
    assert torch_loaded.strip() == "False"


def test_backend_switch_selects_sentence_transformers():
    use(Config.from_env({"ANNOTATOR_EMBEDDING_BACKEND": "sentence-transformers"}))
    embedder = Embedder()
    assert not isinstance(embedder.model, MiniLMEncoder)
    assert embedder.dimension() == 384


def test_long_batches_are_split_without_changing_the_vectors(monkeypatch):
    import annotator.align.minilm as minilm

    sentences = _real_sentences()
    encoder = MiniLMEncoder(default_model_path())
    whole = encoder.encode(sentences, batch_size=20)
    monkeypatch.setattr(minilm, "_ACTIVATION_BUDGET", 1)  # every batch halves to single texts
    split = encoder.encode(sentences, batch_size=20)
    assert np.allclose(whole, split, atol=1e-5)



def test_gelu_in_place_and_by_blocks_is_the_exact_erf_gelu(monkeypatch):
    """The in-place, block-by-block GELU (issue #29) gives the bits of one pass over the
    whole array, and x * Phi(x) with the exact erf within float32 noise."""
    import math

    import annotator.align.minilm as minilm

    x = np.random.default_rng(29).normal(0.0, 3.0, size=(37, 1536)).astype(np.float32)
    x[0, :4] = [0.0, -0.0, 40.0, -40.0]
    whole = x.copy()
    monkeypatch.setattr(minilm, "_GELU_BLOCK", 10 ** 9)
    assert minilm._gelu(whole) is whole
    blocks = x.copy()
    monkeypatch.setattr(minilm, "_GELU_BLOCK", 5000)   # 3 rows per block, the last short
    minilm._gelu(blocks)
    assert np.array_equal(whole, blocks)
    exact = np.array([v * 0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x.ravel()[:3000]])
    assert np.allclose(whole.ravel()[:3000], exact, rtol=1e-5, atol=1e-6)
    assert whole[0, 2] == np.float32(40.0) and whole[0, 3] == 0.0


def test_layer_norm_in_place_is_the_formula():
    from annotator.align.minilm import _layer_norm

    rng = np.random.default_rng(7)
    x = rng.normal(1.0, 2.0, size=(3, 5, 384)).astype(np.float32)
    weight, bias = rng.normal(size=384).astype(np.float32), rng.normal(size=384).astype(np.float32)
    mean = x.mean(axis=-1, keepdims=True)
    expected = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-12) \
        * weight + bias
    scratch = x.copy()
    assert _layer_norm(scratch, weight, bias, 1e-12) is scratch
    assert np.array_equal(scratch, expected)


def test_batches_by_token_count_give_each_text_its_own_vector():
    """Texts of similar length in characters but not in word pieces ("0.5 mg/kg i.v." is
    many pieces, "appointment" one): batched together they get the vectors each gets alone."""
    encoder = MiniLMEncoder(default_model_path())
    texts = ["0.5 mg/kg i.v.", "appointment", "𝛼-thalassemia 😀", "25(OH)D <30 ng/ml",
             "the doctors", "", "low vitamin D levels in adults", "NRS"]
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    together = encoder.encode(texts, batch_size=3)
    assert np.allclose(alone, together, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_a_batch_closes_when_full_or_when_padding_would_cost_more_than_a_batch():
    from annotator.align.minilm import _BATCH_OVERHEAD_TOKENS, _batches_by_length

    # Shortest first, at most batch_size per batch.
    assert _batches_by_length([5, 3, 4, 3], 2) == [[1, 3], [2, 0]]
    # Ten 8-token windows and a 60-token sentence: the sentence would pad the ten by 520
    # tokens, so it gets its own batch; a 9-token window joins them (10 more tokens).
    lengths = [8] * 10 + [60, 9]
    assert _batches_by_length(lengths, 64) == [list(range(10)) + [11], [10]]
    assert 10 * (9 - 8) <= _BATCH_OVERHEAD_TOKENS < 10 * (60 - 9)
    assert _batches_by_length([], 64) == []


def test_token_states_kept_from_the_sentence_pass_equal_a_pass_of_their_own():
    """Issue #29: the rendering search reads the target sentence's token vectors from the
    forward pass that embedded the sentence (padded in a batch of others) instead of running
    a second pass; they are the same vectors."""
    sentences = _real_sentences()
    encoder = MiniLMEncoder(default_model_path())
    kept: dict = {}
    encoder.encode(sentences, batch_size=7, states=kept)
    assert set(kept) == set(sentences)
    for text in sentences:
        vectors, offsets = encoder.token_states(text)
        assert kept[text][1] == offsets
        assert kept[text][0].shape == vectors.shape
        assert np.abs(kept[text][0] - vectors).max() < 1e-4


def test_embedder_answers_token_states_without_a_second_pass():
    embedder = Embedder()
    sentences = _real_sentences()[:4]
    embedder.encode(sentences)
    calls = []
    original = embedder.model.token_states
    embedder.model.token_states = lambda text: calls.append(text) or original(text)
    for text in sentences:
        assert embedder.token_states(text) is not None
    assert calls == []
    assert embedder.token_states("A sentence never encoded before.") is not None
    assert calls == ["A sentence never encoded before."]
