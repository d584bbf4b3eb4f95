"""Issue 15's fourth round of ranking ideas, measured on the eval sets.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.rank_ideas

Every idea is scored from the same per-query arrays the shipped ranker uses
(MiniLM cosine, BM25 and its bound, `rank._sparse`), so "baseline" equals
`scripts/eval`'s hybrid column. Protocol: an idea's settings are chosen on
git-demo's even queries (the half that tuned the shipped defaults) and read
on its odd half, python-faq and compounds-nl-de, which chose nothing; the
learned fusion is fitted leave-one-set-out instead. Vectors come from
`.cache/eval/` like `scripts/eval`.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from cardchat.admin import evaluation as ev
from cardchat.retrieval import fusion, rank

Scorer = Callable[["Data", int], np.ndarray]
SETS = ("git-demo", "python-faq", "compounds-nl-de")


@dataclass
class Data:
    evs: ev.EvalSet
    vectors: np.ndarray  # (n, dim) unit card vectors
    qvecs: np.ndarray  # (q, dim)
    dense: np.ndarray  # (q, n) cosine
    bm25: np.ndarray  # (q, n) BM25 scores over their bound (0..1)
    relevant: list[set[int]]
    titles: np.ndarray | None = None  # (q, n) BM25 of the question over the titles alone, over its bound
    neighbours: np.ndarray | None = None  # (n, K) card indices by cosine, best first
    nsims: np.ndarray | None = None


def load(name: str, embedder: object, cache: ev.VectorCache) -> Data:
    evs = ev.load_set(ev.SETS_DIR / f"{name}.json")
    vectors = cache.embed(embedder, evs.texts, evs.hashes)
    qs = [q for q, _ in evs.queries]
    qvecs = cache.embed(embedder, qs, [ev._query_key(q) for q in qs], queries=True)
    dense = qvecs @ vectors.T
    sparse = np.zeros_like(dense)
    for i, q in enumerate(qs):
        s, bound = rank._sparse(q, evs.card_ids, evs.texts, evs.hashes, 0.4)
        sparse[i] = s / bound if bound > 0 else 0.0
    pos = {c: i for i, c in enumerate(evs.card_ids)}
    rel = [{pos[r] for r in relevant} for _, relevant in evs.queries]
    titles = np.zeros_like(dense)
    heads = [t.partition("\n")[0] for t in evs.texts]
    for i, q in enumerate(qs):
        s, bound = rank._sparse(q, evs.card_ids, heads, ["t:" + h for h in evs.hashes], 0.4)
        titles[i] = s / bound if bound > 0 else 0.0
    return Data(evs, vectors, qvecs, dense, sparse, rel, titles)


def with_graph(d: Data, k: int = 32) -> Data:
    """The card kNN graph (cosine between card vectors, self left out)."""
    if d.neighbours is None:
        sims = d.vectors @ d.vectors.T
        np.fill_diagonal(sims, -np.inf)
        nb = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        d.neighbours, d.nsims = nb, np.take_along_axis(sims, nb, axis=1)
    return d


def metrics(d: Data, scorer: Scorer, queries: Sequence[int]) -> tuple[float, float, float]:
    """recall@5, recall@10, MRR over `queries`, scored as scripts/eval scores (evaluation.score)."""
    orders = [np.argsort(-scorer(d, qi), kind="stable").tolist() for qi in queries]
    m = ev.score(orders, replace(d.evs, queries=[d.evs.queries[qi] for qi in queries]))
    return m.recall5, m.recall10, m.mrr


def splits(d: Data) -> dict[str, list[int]]:
    """All queries; for a set that tuned the defaults (git-demo), also the
    half that tuned them ("git even") and the held-out half ("git odd")."""
    every = list(range(len(d.evs.queries)))
    odd = ev.held_out_queries(d.evs)
    if odd is None:
        return {d.evs.name: every}
    return {d.evs.name: every, "git even": sorted(set(every) - set(odd)), "git odd": list(odd)}


def dense_only(d: Data, qi: int) -> np.ndarray:
    return d.dense[qi]


def bm25_only(d: Data, qi: int) -> np.ndarray:
    return d.bm25[qi]


def baseline(d: Data, qi: int, w: float = 0.6) -> np.ndarray:
    """The shipped bounded fusion (d.bm25 is already over its bound)."""
    return fusion.bounded_fusion(d.dense[qi], d.bm25[qi], 1.0, [w, 1 - w], np.ones(len(d.bm25[qi]), bool))


# --- 1. score regularisation over the card neighbourhood ---------------------


def smoothed(k: int, alpha: float, part: str = "fused", how: str = "mean") -> Scorer:
    """A card's score plus alpha × its k nearest cards' (mean or max) score:
    of the fused score, or of the BM25 part alone (a card that shares no word
    with the question inherits its neighbours' matches)."""

    def scorer(d: Data, qi: int) -> np.ndarray:
        with_graph(d)
        assert d.neighbours is not None
        base = baseline(d, qi)
        src = base if part == "fused" else 0.4 * d.bm25[qi] if part == "bm25" else 0.6 * np.maximum(d.dense[qi], 0)
        nb = src[d.neighbours[:, :k]]
        agg = nb.mean(axis=1) if how == "mean" else nb.max(axis=1)
        return base + alpha * agg

    return scorer


# --- 3. fusion by a learned model over per-card features ---------------------


def features(d: Data, qi: int) -> np.ndarray:
    dense, bm = d.dense[qi], d.bm25[qi]
    drank = np.empty(len(dense))
    drank[np.argsort(-dense, kind="stable")] = np.arange(len(dense))
    srank = np.empty(len(bm))
    srank[np.argsort(-bm, kind="stable")] = np.arange(len(bm))
    srank[bm <= 0] = len(bm)
    dz = (dense - dense.mean()) / (dense.std() + 1e-9)
    return np.stack(
        [
            np.maximum(dense, 0),
            bm,
            1 / (60 + drank),
            1 / (60 + srank),
            dz / 10,
            dense - dense.max(),
            bm - bm.max(),
            (bm > 0).astype(float),
            d.titles[qi] if d.titles is not None else np.zeros(len(bm)),
        ],
        axis=1,
    )


def fit_logistic(xs: np.ndarray, ys: np.ndarray, l2: float = 1e-3, steps: int = 3000) -> np.ndarray:
    """Plain logistic regression by gradient descent, positives up-weighted to half the mass."""
    x = np.hstack([xs, np.ones((len(xs), 1))])
    w = np.zeros(x.shape[1])
    sw = np.where(ys > 0, 0.5 / max(ys.sum(), 1), 0.5 / max((1 - ys).sum(), 1))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (sw * (p - ys)) + l2 * w
        w -= 2.0 * grad
    return w


def training_rows(d: Data, queries: Sequence[int], top: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Features of every relevant card and of each query's top cards by the
    baseline (the negatives that matter), per query."""
    xs, ys = [], []
    for qi in queries:
        f = features(d, qi)
        keep = set(np.argsort(-baseline(d, qi))[:top].tolist()) | d.relevant[qi]
        idx = np.array(sorted(keep))
        xs.append(f[idx])
        ys.append(np.array([1.0 if i in d.relevant[qi] else 0.0 for i in idx]))
    return np.vstack(xs), np.concatenate(ys)


def learned(weights: np.ndarray) -> Scorer:
    def scorer(d: Data, qi: int) -> np.ndarray:
        out: np.ndarray = features(d, qi) @ weights[:-1]
        return out

    return scorer


# --- 2. soft term matching from MiniLM's word-piece embedding matrix ----------


def soft_bm25(d: Data, qi: int, table: dict[str, list[tuple[str, float]]], weight: float) -> np.ndarray:
    """BM25 over the bound with each query term's nearest vocabulary words
    added as extra query terms at `weight` × their similarity."""
    from cardchat.retrieval import bm25 as sparse

    query = d.evs.queries[qi][0]
    terms = sparse.tokenize(query)
    extra: dict[str, float] = {}
    for t in terms:
        for w, s in table.get(t, []):
            if w not in terms:
                extra[w] = max(extra.get(w, 0.0), weight * s)
    base, bound = rank._sparse(query, d.evs.card_ids, d.evs.texts, d.evs.hashes, 0.4)
    total = base.astype(np.float64)
    for w, s in extra.items():
        sc, b = rank._sparse(w, d.evs.card_ids, d.evs.texts, d.evs.hashes, 0.0)
        total += s * sc
        bound += s * b
    out: np.ndarray = total / bound if bound > 0 else total
    return out


def passages(text: str, words: int = 150) -> list[str]:
    """A card's 150-word passages, each with its title (one passage: the card itself)."""
    title, _, body = text.partition("\n")
    split = body.split()
    if len(split) <= words:
        return [text]
    return [title + "\n" + " ".join(split[i : i + words]) for i in range(0, len(split), words)]


def passage_sims(d: Data, embedder: object, cache: ev.VectorCache) -> np.ndarray:
    """(q, n): each card's best passage cosine per query (its card vector's when it has one passage)."""
    owner, texts = [], []
    for j, t in enumerate(d.evs.texts):
        ps = passages(t)
        if len(ps) > 1:
            owner += [j] * len(ps)
            texts += ps
    if not texts:  # no card longer than one passage
        return d.dense.copy()
    keys = ["p:" + ev._query_key(t)[2:] for t in texts]
    pv = cache.embed(embedder, texts, keys)
    cache.save()
    out = d.dense.copy()
    sims = d.qvecs @ pv.T
    owner_a = np.array(owner)
    for j in np.unique(owner_a):
        out[:, j] = np.maximum(out[:, j], sims[:, owner_a == j].max(axis=1))
    return out


Family = list[tuple[str, Scorer]]


def smoothing_family() -> Family:
    grid = itertools.product(("fused", "bm25", "dense"), ("mean", "max"), (3, 5, 10), (0.1, 0.2, 0.3, 0.5))
    return [(f"smooth {part} {how} k={k} a={alpha}", smoothed(k, alpha, part, how)) for part, how, k, alpha in grid]


def soft_family(data: dict[str, Data]) -> Family:
    from benchmarks.wordpiece import soft_table
    from cardchat.retrieval import bm25 as sparse

    terms = {t for d in data.values() for q, _ in d.evs.queries for t in sparse.tokenize(q)}
    family: Family = []
    for top, floor, weight in itertools.product((3, 10), (0.3, 0.45), (0.1, 0.2, 0.4)):
        table = soft_table(terms, top, floor)
        cached: dict[tuple[str, int], np.ndarray] = {}

        def soft(d: Data, qi: int, table=table, weight=weight, cached=cached) -> np.ndarray:  # type: ignore[no-untyped-def]
            key = (d.evs.name, qi)
            if key not in cached:
                cached[key] = soft_bm25(d, qi, table, weight)
            out: np.ndarray = 0.6 * np.maximum(d.dense[qi], 0) + 0.4 * cached[key]
            return out

        family.append((f"soft top={top} floor={floor} w={weight}", soft))
    return family


def titles_family(data: dict[str, Data], embedder: object, cache: ev.VectorCache) -> Family:
    """The question embedded with the titles of BM25's top hits (mixed with its own vector or not)."""
    family: Family = []
    for hits, mix in itertools.product((1, 3, 5), (0.0, 0.5)):
        sims = {}
        for name, d in data.items():
            texts = []
            for qi, (q, _) in enumerate(d.evs.queries):
                top = np.argsort(-d.bm25[qi], kind="stable")[:hits]
                texts.append(q + " " + " ; ".join(d.evs.texts[j].partition("\n")[0] for j in top if d.bm25[qi][j] > 0))
            v = cache.embed(embedder, texts, [ev._query_key(t) for t in texts], queries=True)
            if mix:
                v = mix * d.qvecs + (1 - mix) * v
                v /= np.linalg.norm(v, axis=1, keepdims=True)
            sims[name] = v @ d.vectors.T
        cache.save()

        def titled(d: Data, qi: int, sims=sims) -> np.ndarray:  # type: ignore[no-untyped-def]
            out: np.ndarray = 0.6 * np.maximum(sims[d.evs.name][qi], 0) + 0.4 * d.bm25[qi]
            return out

        family.append((f"query+bm25 titles hits={hits} mix={mix}", titled))
    return family


def passages_family(data: dict[str, Data], embedder: object, cache: ev.VectorCache) -> Family:
    """Dense re-scoring of BM25's top candidates by their best 150-word passage."""
    psims = {name: passage_sims(d, embedder, cache) for name, d in data.items()}
    family: Family = []
    for top, how in itertools.product((20, 50, 100), ("max", "mean")):

        def rescored(d: Data, qi: int, top=top, how=how) -> np.ndarray:  # type: ignore[no-untyped-def]
            cand = np.argsort(-d.bm25[qi], kind="stable")[:top]
            ps = psims[d.evs.name][qi]
            dense = d.dense[qi].copy()
            dense[cand] = ps[cand] if how == "max" else (ps[cand] + dense[cand]) / 2
            out: np.ndarray = 0.6 * np.maximum(dense, 0) + 0.4 * d.bm25[qi]
            return out

        family.append((f"bm25 top {top} passage {how}", rescored))
    return family


def run_learned(data: dict[str, Data]) -> None:
    """Logistic regression over `features`, fitted leave-one-set-out (and on git-demo's even half)."""
    for held in SETS:
        train = [training_rows(d, list(range(len(d.evs.queries)))) for n, d in data.items() if n != held]
        w = fit_logistic(np.vstack([x for x, _ in train]), np.concatenate([y for _, y in train]))
        cells = [f"{split} {_fmt(metrics(data[held], learned(w), qs))}" for split, qs in splits(data[held]).items()]
        print(f"learned, {held} held out: " + " | ".join(cells) + f"  (weights {np.round(w, 2).tolist()})")
    g = data["git-demo"]
    x, y = training_rows(g, splits(g)["git even"])
    report(data, "learned on git even", learned(fit_logistic(x, y)))


def _fmt(m: tuple[float, float, float]) -> str:
    return "/".join(f"{v:.3f}" for v in m)


def report(data: dict[str, Data], label: str, scorer: Scorer) -> float:
    """Prints recall@5/recall@10/MRR on every split; returns the even half's mean of the three."""
    cells, even = [], 0.0
    for d in data.values():
        for split, qs in splits(d).items():
            m = metrics(d, scorer, qs)
            cells.append(f"{split} {_fmt(m)}")
            even = sum(m) / 3 if split == "git even" else even
    print(f"{label:<34} " + " | ".join(cells), flush=True)
    return even


def choose(data: dict[str, Data], family: Family) -> None:
    """Every setting's figures, then the one git-demo's even half picks against the baseline's."""
    best = max(((report(data, label, scorer), label, scorer) for label, scorer in family), key=lambda t: t[0])
    base = report(data, "  baseline", baseline)
    verdict = "above" if best[0] > base else "not above"
    report(data, f"  chosen on git even ({verdict} baseline {base:.3f}): {best[1]} {best[0]:.3f}", best[2])


def main(argv: Sequence[str]) -> int:
    from cardchat.embeddings import get_embedder

    embedder = get_embedder("minilm")
    cache = ev.VectorCache(embedder.model_id)
    data = {n: load(n, embedder, cache) for n in SETS}
    cache.save()
    wanted = set(argv) or {"base", "smooth", "soft", "learned", "titles", "passages"}
    if "base" in wanted:
        for label, scorer in (("dense", dense_only), ("bm25", bm25_only), ("baseline (bounded 0.6)", baseline)):
            report(data, label, scorer)
    families = {
        "smooth": smoothing_family,
        "soft": lambda: soft_family(data),
        "titles": lambda: titles_family(data, embedder, cache),
        "passages": lambda: passages_family(data, embedder, cache),
    }
    for name, make in families.items():
        if name in wanted:
            print(f"--- {name}")
            choose(data, make())
    if "learned" in wanted:
        print("--- learned")
        run_learned(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
