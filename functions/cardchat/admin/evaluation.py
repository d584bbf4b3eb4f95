"""Offline evaluation of card ranking on labelled query sets (eval/sets/*.json).

Each query is ranked over the set's cards with dense, sparse and hybrid
ranking (retrieval.rank.rank_cards, the code createChat runs) and scored by
recall@5, recall@10 and MRR. Two more columns keep the fusions hybrid
used before for comparison: `hybrid-minmax` (min-max normalised scores,
same weights) and `hybrid-rrf`, plain Reciprocal Rank Fusion (k=60, equal
weights). A set that names the queries its ranker
defaults were tuned on (`"tuned_on": "even"`) also gets the figures of the
held-out rest. Embeddings are cached on disk under
.cache/eval/ keyed by text hash, so a rerun only embeds what changed.
The format is documented in eval/README.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cardchat.retrieval.bm25 import default_bm25
from cardchat.retrieval.rank import MODES, RankingConfig, rank_cards

ROOT = Path(__file__).resolve().parents[3]
SETS_DIR = ROOT / "eval" / "sets"
CACHE_DIR = ROOT / ".cache" / "eval"


@dataclass
class EvalSet:
    name: str
    language: str
    card_ids: list[str]
    texts: list[str]
    hashes: list[str]
    queries: list[tuple[str, list[str]]]
    kinds: list[str]  # optional per-query label ("paraphrase", "exact"), "" if none
    tuned_on: str = ""  # "even": the even-indexed queries (0, 2, ...) tuned the defaults


def set_cards(data: dict[str, Any]) -> list[dict[str, Any]]:
    """An eval file's cards: the demo deck (`"deck": "demo"`), else its own `cards`."""
    if data.get("deck") == "demo":
        from cardchat.admin.demo_deck import build_deck

        return build_deck()
    return list(data["cards"])


def load_set(path: Path) -> EvalSet:
    from cardchat.embeddings.text import embeddable_text, text_hash

    data = json.loads(path.read_text(encoding="utf-8"))
    cards = set_cards(data)
    ids = [c["id"] for c in cards]
    known = set(ids)
    queries = []
    for i, q in enumerate(data["queries"]):
        missing = [r for r in q["relevant"] if r not in known]
        if missing or not q["relevant"]:
            raise ValueError(f"{path.name} query #{i} ({q['query']!r}): unknown relevant ids {missing}")
        queries.append((q["query"], list(q["relevant"])))
    return EvalSet(
        name=data.get("name", path.stem),
        language=data.get("language", "en"),
        card_ids=ids,
        texts=[embeddable_text(c["title"], c["body"]) for c in cards],
        hashes=[text_hash(c["title"], c["body"]) for c in cards],
        queries=queries,
        kinds=[q.get("kind", "") for q in data["queries"]],
        tuned_on=data.get("tuned_on", ""),
    )


class VectorCache:
    """Vectors by content hash in one .npz per embedding model."""

    def __init__(self, model_id: str, directory: Path = CACHE_DIR) -> None:
        self.path = directory / (re.sub(r"[^\w.-]+", "_", model_id) + ".npz")
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as f:
                self.vectors = dict(zip(f["keys"].tolist(), f["vecs"]))
        self.dirty = False

    def embed(self, embedder: Any, texts: Sequence[str], keys: Sequence[str]) -> np.ndarray:
        todo = list({k: t for k, t in zip(keys, texts) if k not in self.vectors}.items())
        for i in range(0, len(todo), 256):
            # Saved batch by batch: a first run over the deck takes minutes.
            batch = todo[i : i + 256]
            self.vectors.update(zip((k for k, _ in batch), embedder.embed([t for _, t in batch])))
            self.dirty = True
            self.save()
        return np.stack([self.vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if self.dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            keys = list(self.vectors)
            np.savez(self.path, keys=np.array(keys), vecs=np.stack([self.vectors[k] for k in keys]))
            self.dirty = False


def report_sets(
    paths: Sequence[str], default_dir: Path, model: str | None, report: Callable[[Path, Any, VectorCache], str]
) -> int:
    """What each `cardchat eval-*` command does: print `report(path, embedder, cache)` for every set of
    `paths` (default: every `default_dir/*.json`), one embedder and its vector cache for all, the cache
    saved after each set (a first run over a deck takes minutes)."""
    from cardchat.embeddings import get_embedder

    embedder = get_embedder(model)
    cache = VectorCache(embedder.model_id)
    for path in [Path(p) for p in paths] or sorted(default_dir.glob("*.json")):
        text = report(path, embedder, cache)
        cache.save()
        print(text)
    return 0


def embed_queries(embedder: Any, queries: Sequence[str]) -> np.ndarray:
    """Questions one by one in the query role (Embedder.embed_query), never cached: how an embedder
    reads a question can change with its code under the same model id, and questions are few."""
    return np.stack([embedder.embed_query(q) for q in queries]).astype(np.float32)


@dataclass
class Metrics:
    recall5: float
    recall10: float
    mrr: float


def score(rankings: Sequence[Sequence[int]], evs: EvalSet) -> Metrics:
    r5 = r10 = rr = 0.0
    for order, (_, relevant) in zip(rankings, evs.queries):
        ids = [evs.card_ids[i] for i in order]
        rel = set(relevant)
        r5 += len(rel & set(ids[:5])) / len(rel)
        r10 += len(rel & set(ids[:10])) / len(rel)
        first = next((n for n, cid in enumerate(ids, 1) if cid in rel), None)
        rr += 1.0 / first if first else 0.0
    n = max(len(evs.queries), 1)
    return Metrics(r5 / n, r10 / n, rr / n)


def run_set(evs: EvalSet, vectors: np.ndarray, query_vecs: np.ndarray, config: RankingConfig) -> Metrics:
    return score(_rankings(evs, vectors, query_vecs, config), evs)


def _rankings(evs: EvalSet, vectors: np.ndarray, query_vecs: np.ndarray, config: RankingConfig) -> list[list[int]]:
    return [
        rank_cards(q, qv, evs.card_ids, evs.texts, vectors, None, config, evs.hashes)
        for (q, _), qv in zip(evs.queries, query_vecs)
    ]


def by_kind(evs: EvalSet, embedder: Any, cache: VectorCache, base: RankingConfig) -> dict[str, dict[str, Metrics]]:
    """Metrics per query kind (when the set labels kinds), per mode."""
    vectors = cache.embed(embedder, evs.texts, evs.hashes)
    query_vecs = embed_queries(embedder, [q for q, _ in evs.queries])
    out: dict[str, dict[str, Metrics]] = {}
    for kind in sorted({k for k in evs.kinds if k}):
        keep = [i for i, k in enumerate(evs.kinds) if k == kind]
        sub = replace(evs, queries=[evs.queries[i] for i in keep], kinds=[kind] * len(keep))
        out[kind] = {m: run_set(sub, vectors, query_vecs[keep], replace(base, mode=m)) for m in MODES}
    return out


#: The fusions hybrid ranking used before, reported beside it.
MIN_MAX = RankingConfig(mode="hybrid", fusion="scores")
PLAIN_RRF = RankingConfig(mode="hybrid", fusion="rrf", rrf_k=60, dense_weight=1.0, sparse_weight=1.0)


def held_out_queries(evs: EvalSet) -> range | None:
    """The indices of the queries that did not tune the defaults (the odd
    ones), when the set says which did."""
    return range(1, len(evs.queries), 2) if evs.tuned_on == "even" else None


def held_out(evs: EvalSet) -> EvalSet | None:
    """The queries that did not tune the defaults, when the set says which did."""
    keep = held_out_queries(evs)
    if keep is None:
        return None
    return replace(
        evs,
        name=f"{evs.name}, held-out odd queries",
        queries=[evs.queries[i] for i in keep],
        kinds=[evs.kinds[i] for i in keep],
        tuned_on="",
    )


def evaluate(evs: EvalSet, embedder: Any, cache: VectorCache, base: RankingConfig | None = None) -> dict[str, Metrics]:
    base = base or RankingConfig()
    vectors = cache.embed(embedder, evs.texts, evs.hashes)
    query_vecs = embed_queries(embedder, [q for q, _ in evs.queries])
    out = {mode: run_set(evs, vectors, query_vecs, replace(base, mode=mode)) for mode in MODES}
    out["hybrid-minmax"] = run_set(evs, vectors, query_vecs, replace(MIN_MAX, compound_weight=base.compound_weight))
    out["hybrid-rrf"] = run_set(evs, vectors, query_vecs, replace(PLAIN_RRF, compound_weight=base.compound_weight))
    return out


def table(evs: EvalSet, results: dict[str, Metrics]) -> str:
    tuned = {"even": ", defaults tuned on the even-indexed queries"}.get(evs.tuned_on, "")
    lines = [
        f"{evs.name} ({evs.language}, {len(evs.card_ids)} cards, {len(evs.queries)} queries{tuned})",
        f"  {'metric':<10}" + "".join(f"{m:>14}" for m in results),
    ]
    for label, attr in (("recall@5", "recall5"), ("recall@10", "recall10"), ("MRR", "mrr")):
        lines.append(f"  {label:<10}" + "".join(f"{getattr(r, attr):>14.3f}" for r in results.values()))
    return "\n".join(lines)


def margin(results: dict[str, Metrics]) -> str:
    """How far hybrid is above the better of dense and sparse (the goal: ≥ 0.02 each, so that
    fusing the two is worth its cost)."""
    parts = []
    for label, attr in (("recall@5", "recall5"), ("recall@10", "recall10"), ("MRR", "mrr")):
        best = max(getattr(results["dense"], attr), getattr(results["sparse"], attr))
        parts.append(f"{label} {getattr(results['hybrid'], attr) - best:+.3f}")
    return "  hybrid − best single ranker: " + ", ".join(parts)


def off_on(switch: str, off: dict[str, Metrics], on: dict[str, Metrics], modes: Sequence[str]) -> str:
    """One line per mode: the figures with `switch` off, then on (the default)."""
    return "\n".join(
        f"  {switch} off → on, {mode}: recall@5 {off[mode].recall5:.3f} → {on[mode].recall5:.3f}, "
        f"recall@10 {off[mode].recall10:.3f} → {on[mode].recall10:.3f}, MRR {off[mode].mrr:.3f} → {on[mode].mrr:.3f}"
        for mode in modes
    )


def by_language(evs: EvalSet, embedder: Any, cache: VectorCache, base: RankingConfig) -> str:
    """Hybrid with the dense weight fixed, then scaled by the question's English share (the
    default), on the whole set and on each half of its queries, beside BM25 alone: the rule was
    fitted on no set, and each half shows how much the whole set's figure owes to chance."""
    lines = []
    for label, keep in (
        ("", None),
        ("even half, ", range(0, len(evs.queries), 2)),
        ("odd half, ", range(1, len(evs.queries), 2)),
    ):
        sub = (
            evs
            if keep is None
            else replace(evs, queries=[evs.queries[i] for i in keep], kinds=[evs.kinds[i] for i in keep])
        )
        on = evaluate(sub, embedder, cache, base)
        off = evaluate(sub, embedder, cache, replace(base, by_language=False))
        bm25 = on["sparse"]
        lines.append(
            off_on(f"{label}dense weight by the question's language", off, on, ("hybrid",))
            + f" (BM25 {bm25.recall5:.3f} / {bm25.recall10:.3f} / {bm25.mrr:.3f})"
        )
    return "\n".join(lines)


def main(paths: Sequence[str], model: str | None = "minilm") -> int:
    from cardchat.embeddings import get_embedder

    files = [Path(p) for p in paths] or sorted(SETS_DIR.glob("*.json"))
    embedder = get_embedder(model)
    cache = VectorCache(embedder.model_id)
    base = RankingConfig()
    print(
        f"embeddings: {embedder.model_id}; hybrid = {base.fusion} fusion, weights dense {base.dense_weight} "
        f"{'× the question’s English share ' if base.by_language else ''}/ "
        f"sparse {base.sparse_weight}; BM25 title weight {default_bm25().title_weight}; "
        f"compound weight {base.compound_weight}\n"
    )
    for path in files:
        evs = load_set(path)
        results = evaluate(evs, embedder, cache, base)
        cache.save()
        print(table(evs, results))
        print(margin(results))
        for kind, per_mode in by_kind(evs, embedder, cache, base).items():
            n = evs.kinds.count(kind)
            print(
                f"  {kind + f' ({n})':<18} recall@10 "
                + "  ".join(f"{m} {r.recall10:.3f}" for m, r in per_mode.items())
                + "  MRR "
                + "  ".join(f"{m} {r.mrr:.3f}" for m, r in per_mode.items())
            )
        if evs.language != "en":
            off = evaluate(evs, embedder, cache, replace(base, compound_weight=0.0))
            print(off_on("compound fallback", off, results, ("sparse", "hybrid")))
            print(by_language(evs, embedder, cache, base))
        rest = held_out(evs)
        if rest is not None:
            rest_results = evaluate(rest, embedder, cache, base)
            print(table(rest, rest_results) + "\n" + margin(rest_results))
        print()
    return 0
