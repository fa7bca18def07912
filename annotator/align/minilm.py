"""all-MiniLM-L6-v2 as a small pure-numpy BERT encoder (no torch).

sentence-transformers runs this model as: BERT (6 layers, hidden 384, 12 heads, exact-erf
GELU, post-layer-norm, eps 1e-12) -> mean of the token vectors under the attention mask ->
L2 normalisation, on inputs truncated to 256 word pieces (``sentence_bert_config.json``).
This module does the same forward pass with numpy matrix products, reading the weights
from the shipped ``model.safetensors`` and tokenising with the ``tokenizers`` package from
the shipped ``tokenizer.json``; nothing is downloaded, so it works with ``HF_HUB_OFFLINE=1``.

Why: importing torch + transformers costs ~0.5 GB of resident memory and tens of seconds
on a loaded machine, for a 22 M-parameter model whose weights are 90 MB.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), as in transformers' ``gelu`` (not the tanh form),
    computed in place on ``x`` (float32, rows of the feed-forward layer) and returned.

    Phi(x) = (1 + erf(x / sqrt 2)) / 2 with erf by Abramowitz & Stegun 7.1.26 (absolute
    error < 1.5e-7, below float32 noise of the activations), so no scipy is needed.

    Speed (issue #29; the same arithmetic in the same order, so the same bits): the
    feed-forward activations are the largest arrays of the forward pass and this takes
    about twenty passes over them, so it runs over blocks of ``_GELU_BLOCK`` floats, each
    pass reading a block the previous one left in the CPU cache, with scratch buffers
    allocated once; and the sign of x / sqrt 2 is (z > 0) - (z < 0), because ``np.sign``
    branches on every element and mispredicts on activations of random sign (it took
    half of this function's time).
    """
    flat = x.reshape(-1, x.shape[-1])
    rows = max(1, _GELU_BLOCK // flat.shape[1])
    scratch = np.empty((4, min(rows, len(flat)) * flat.shape[1]), dtype=np.float32)
    for start in range(0, len(flat), rows):
        block = flat[start:start + rows]
        _gelu_block(block, *(b[:block.size].reshape(block.shape) for b in scratch))
    return x


# Floats per GELU block: a few buffers of this size fit in a core's L2 cache.
_GELU_BLOCK = 32_768


def _gelu_block(x: np.ndarray, z: np.ndarray, a: np.ndarray, t: np.ndarray,
                poly: np.ndarray) -> None:
    """:func:`_gelu` of one block, in place; ``z``, ``a``, ``t``, ``poly``: scratch arrays
    of its shape."""
    np.multiply(x, np.float32(1.0 / np.sqrt(2.0)), out=z)
    np.abs(z, out=a)
    np.multiply(a, np.float32(0.3275911), out=t)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    np.multiply(t, np.float32(1.061405429), out=poly)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a                                   # 1 - erf(|z|)
    np.subtract(np.float32(1.0), poly, out=poly)
    np.subtract(np.greater(z, 0.0), np.less(z, 0.0), dtype=np.float32, out=z)   # sign(z)
    poly *= z                                   # erf(z)
    poly += np.float32(1.0)
    poly *= np.float32(0.5)                     # Phi(x)
    x *= poly


# Largest activation of a forward pass, in floats (4 M = 16 MB; a few copies live at once).
_ACTIVATION_BUDGET = 4_000_000

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as read-only memory-mapped arrays.

    The format is an 8-byte little-endian header length, a JSON header giving each
    tensor's dtype, shape and byte range, then the raw data. Mapping the file (instead of
    ``safetensors.numpy.load_file``, which holds a second copy while loading) keeps the
    resident cost at the weights actually touched: the 30522-row vocabulary table is
    mostly never read.
    """
    with open(path, "rb") as handle:
        header_len = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(header_len))
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _SAFETENSORS_DTYPES:
            raise ValueError(f"{path}: tensor {name!r} has unsupported dtype {info['dtype']!r}")
        begin, end = info["data_offsets"]
        array = raw[base + begin:base + end].view(_SAFETENSORS_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"])
    return tensors


# A forward pass costs about as much per batch (numpy calls for 6 layers) as 20 more
# tokens of a batch: padding beyond that is worth a batch of its own.
_BATCH_OVERHEAD_TOKENS = 20


def _batches_by_length(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of texts of similar word-piece count, shortest first.

    Every text of a batch is padded to its longest, and padded tokens cost as much as real
    ones; sentence-transformers sorts by characters and fills each batch, which made
    padding 46-66% of the tokens computed for abstracts and the 1-5 word windows of a
    rendering search. A batch is closed when it is full or when the next text would add
    more padding to it than a batch's own overhead (``_BATCH_OVERHEAD_TOKENS``).
    """
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        padding = len(current) * lengths[i] - total   # what this text adds to the others
        if current and (len(current) == batch_size or padding > _BATCH_OVERHEAD_TOKENS):
            batches.append(current)
            current, total = [], 0
        current.append(i)
        total += lengths[i]
    if current:
        batches.append(current)
    return batches


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis, in place on ``x``
    (a scratch array of the forward pass) and returned: one temporary instead of five."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.square(x).mean(axis=-1, keepdims=True)
    x /= np.sqrt(var + eps)
    x *= weight
    x += bias
    return x


class MiniLMEncoder:
    """Sentence embeddings of a BERT sentence-transformers folder, computed with numpy.

    Only models shaped like all-MiniLM-L6-v2 are accepted (BERT, absolute positions,
    mean pooling, normalisation); :func:`is_supported` says whether a folder qualifies.
    """

    def __init__(self, model_dir: str | Path):
        # loaded with the model, not by every command that imports the engine
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir)
        config = json.loads((self.model_dir / "config.json").read_text(encoding="utf-8"))
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.intermediate = int(config["intermediate_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        st_config = self.model_dir / "sentence_bert_config.json"
        self.max_length = 256
        if st_config.exists():
            self.max_length = int(json.loads(st_config.read_text(encoding="utf-8"))
                                  .get("max_seq_length", 256))
        self.max_length = min(self.max_length, int(config["max_position_embeddings"]))
        weights = read_safetensors(self.model_dir / "model.safetensors")
        # Dense weights stay (out, in) as stored; ``x @ W.T`` is a transposed BLAS view, no copy.
        self.w = {name: value for name, value in weights.items()
                  if not name.endswith("position_ids")}
        # Query, key and value of a layer as one (3 x hidden, hidden) product: one gemm
        # three times as wide runs faster than three narrow ones (issue #29). Each output
        # is still the dot product of the same row and column: the same bits.
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}.attention.self."
            for part in ("weight", "bias"):
                self.w[p + "qkv." + part] = np.concatenate(
                    [self.w[p + name + "." + part] for name in ("query", "key", "value")])
        self.tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        # tokenizer.json ships fixed 128 padding/truncation; sentence-transformers pads to
        # the longest text of the batch and truncates at max_seq_length. Padding is done
        # here, per batch of texts of similar token count (see ``encode``).
        self.tokenizer.enable_truncation(max_length=self.max_length)
        self.tokenizer.no_padding()

    def dimension(self) -> int:
        return self.hidden

    def encode(self, sentences: list[str], batch_size: int = 64,
               states: dict | None = None) -> np.ndarray:
        """L2-normalised mean-pooled embeddings, shape (len(sentences), hidden), float32.

        ``states``: a dict that receives, for each sentence, what :meth:`token_states`
        would return for it, from the same forward pass (the rendering search of an
        oversimplification reads the target sentence's token vectors; issue #29: it ran a
        second pass over every such sentence)."""
        out = np.zeros((len(sentences), self.hidden), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(sentences)
        ids = [e.ids for e in encodings]
        for batch in _batches_by_length([len(t) for t in ids], batch_size):
            kept = [] if states is not None else None
            out[batch] = self._encode_batch([ids[i] for i in batch], kept)
            for i, vectors in zip(batch, kept or ()):
                states[sentences[i]] = (vectors, [tuple(o) for o in encodings[i].offsets])
        return out

    def _encode_batch(self, token_ids: list[list[int]], kept: list | None = None) -> np.ndarray:
        """Pooled vectors of one batch; ``kept`` (a list) receives each text's unpadded
        last-layer token vectors, in order."""
        length = max(len(t) for t in token_ids)
        widest = max(self.heads * length, self.intermediate)
        if len(token_ids) > 1 and len(token_ids) * length * widest > _ACTIVATION_BUDGET:
            # Long sentences: the attention scores (batch x heads x length^2 floats) and the
            # feed-forward activations (batch x length x 1536) would dominate peak memory,
            # so halve the batch instead.
            half = len(token_ids) // 2
            return np.concatenate([self._encode_batch(token_ids[:half], kept),
                                   self._encode_batch(token_ids[half:], kept)])
        x, mask = self._hidden_states(token_ids)
        if kept is not None:
            kept.extend(x[row, :len(tokens)].copy() for row, tokens in enumerate(token_ids))
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def token_states(self, text: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The last layer's vector of every word piece of ``text`` (special tokens
        included) and each piece's character offsets ((0, 0) for [CLS] and [SEP])."""
        encoding = self.tokenizer.encode(text)
        x, _ = self._hidden_states([encoding.ids])
        return x[0], [tuple(o) for o in encoding.offsets]

    def _hidden_states(self, token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The last layer's token vectors (batch x length x hidden) and the padding mask."""
        length = max(len(t) for t in token_ids)
        ids = np.zeros((len(token_ids), length), dtype=np.int64)   # 0 = [PAD]
        mask = np.zeros((len(token_ids), length), dtype=np.float32)
        for row, tokens in enumerate(token_ids):
            ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1.0
        types = np.zeros_like(ids)   # one segment
        w = self.w
        n, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                        self.eps)
        # Additive mask: padded keys get a large negative score before the softmax.
        key_bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        head_dim = self.hidden // self.heads
        scale = np.float32(1.0 / np.sqrt(head_dim))
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(t, name, residual=None):
                # A 2-D product goes to one BLAS gemm; numpy's stacked 3-D matmul does not.
                # Bias (and residual) are added in place: a new array per addition cost
                # as much as a third of the product itself on batches of a few hundred
                # word pieces (issue #29). Same additions in the same order: same bits.
                out = t.reshape(-1, t.shape[-1]) @ w[p + name + ".weight"].T
                out += w[p + name + ".bias"]
                out = out.reshape(n, length, -1)
                if residual is not None:
                    out += residual
                return out

            # (n, length, 3, heads, head_dim) -> query, key, value as (n, heads, length,
            # head_dim) views: numpy hands each head's strided matrix to BLAS as it is.
            qkv = dense(x, "attention.self.qkv").reshape(n, length, 3, self.heads, head_dim)
            q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= scale
            scores += key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores, out=scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, self.hidden)
            x = _layer_norm(dense(context, "attention.output.dense", residual=x),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            hidden = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(dense(hidden, "output.dense", residual=x),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
                            self.eps)
        return x, mask


def is_supported(model_dir: str | Path) -> bool:
    """True for a local sentence-transformers folder this encoder reproduces exactly:
    a BERT with absolute positions and GELU, safetensors weights, a tokenizer.json, and
    the modules Transformer -> mean Pooling -> Normalize."""
    folder = Path(model_dir)
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        pooling_path = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
        pooling = json.loads((folder / pooling_path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, StopIteration):
        return False
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    return (config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and (folder / "model.safetensors").exists()
            and (folder / "tokenizer.json").exists()
            and kinds == ["Transformer", "Pooling", "Normalize"]
            and pooling.get("pooling_mode_mean_tokens") is True
            and not any(pooling.get(k) for k in ("pooling_mode_cls_token",
                                                 "pooling_mode_max_tokens",
                                                 "pooling_mode_mean_sqrt_len_tokens")))
