import json
import struct

import httpx
import numpy as np
import pytest
import respx

from cardchat.embeddings import gemini_embed, get_embedder, openai_embed, pack, unpack
from cardchat.embeddings.base import Embedder, EmbeddingError
from cardchat.embeddings.gemini_embed import GeminiEmbedder
from cardchat.embeddings.openai_embed import OpenAIEmbedder

OPENAI_URL = "https://api.openai.com/v1/embeddings"
GEMINI_HOST = "generativelanguage.googleapis.com"
GEMINI_PATH = r"/v1(beta)?/models/gemini-embedding-001:batchEmbedContents"


def test_pack_round_trips_little_endian_float32():
    vec = np.array([1.5, -2.25, 0.0, 3.0e-8], dtype=np.float32)
    data = pack(vec)
    assert data == struct.pack("<4f", *vec.tolist())
    assert data[:4] == b"\x00\x00\xc0\x3f"  # 1.5 as little-endian IEEE 754
    assert np.array_equal(unpack(data, 4), vec)
    with pytest.raises(ValueError):
        unpack(data, 5)


def test_get_embedder_is_cached_and_named_by_env(monkeypatch):
    monkeypatch.delenv("CARDCHAT_EMBEDDINGS", raising=False)
    default = get_embedder()
    assert default is get_embedder("minilm") and default.model_id == "all-MiniLM-L6-v2-int8"
    assert isinstance(default, Embedder) and default.dim == 384
    monkeypatch.setenv("CARDCHAT_EMBEDDINGS", "openai")
    assert get_embedder().model_id == "text-embedding-3-small"
    monkeypatch.setenv("CARDCHAT_EMBEDDINGS", "gemini")
    assert get_embedder().model_id == "gemini-embedding-001/768/retrieval"
    with pytest.raises(ValueError):
        get_embedder("word2vec")


# --- MiniLM: the real model ------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


def test_minilm_similar_texts_score_higher_than_unrelated(minilm):
    texts = [
        "How do I cache Firestore reads in a Cloud Function?",
        "Keeping Firestore documents in an in-memory cache inside a function instance",
        "Banana bread recipe with walnuts and brown sugar",
        "Bake the loaf at 180 degrees until a skewer comes out clean",
    ]
    v = minilm.embed(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 2] + 0.3 and sims[0, 1] > sims[0, 3] + 0.3
    assert sims[2, 3] > sims[2, 0] + 0.2 and sims[2, 3] > sims[2, 1] + 0.2


def test_minilm_batch_order_and_padding_do_not_change_a_vector(minilm):
    short, long = "cache invalidation", "a much longer sentence about " * 20 + "distributed systems"
    alone = minilm.embed([short])[0]
    batch = minilm.embed([long, short, "x"])
    assert float(alone @ batch[1]) > 0.99
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_reads_256_word_pieces(minilm):
    # "apple" is one word piece: texts equal in their first 256 pieces embed alike,
    # texts that differ within them (after 150 pieces) do not, so the asset's
    # 128-piece truncation was lifted.
    head = "apple " * 300
    a, b = minilm.embed([head + "banana bread recipe", head + "rocket launch science"])
    assert float(a @ b) > 0.9999
    head = "apple " * 150
    a, b = minilm.embed([head + "banana bread recipe " * 5, head + "rocket launch science " * 5])
    assert float(a @ b) < 0.999


# --- OpenAI: the real SDK against the wire format ------------------------------------------


def _openai_body(request: httpx.Request, dim: int = 1536) -> dict:
    inputs = json.loads(request.content)["input"]
    data = []
    for i, text in enumerate(inputs):
        vec = [0.0] * dim
        vec[len(text) % dim] = 3.0  # deliberately unnormalised
        vec[(len(text) + 1) % dim] = 4.0
        data.append({"object": "embedding", "index": i, "embedding": vec})
    data.reverse()  # the API may return items out of order; index is authoritative
    return {
        "object": "list",
        "data": data,
        "model": "text-embedding-3-small",
        "usage": {"prompt_tokens": 5 * len(inputs), "total_tokens": 5 * len(inputs)},
    }


@respx.mock
def test_openai_embeds_in_batches_with_the_sdk(monkeypatch):
    # Small batches keep the hand-built responses small; the batching logic is the same.
    monkeypatch.setattr(openai_embed, "MAX_BATCH_INPUTS", 8)
    route = respx.post(OPENAI_URL).mock(side_effect=lambda req: httpx.Response(200, json=_openai_body(req)))
    texts = [("word " * (i % 50)) + str(i) for i in range(19)] + [""]
    v = OpenAIEmbedder(api_key="sk-test").embed(texts)
    assert route.call_count == 3
    first = json.loads(route.calls[0].request.content)
    assert first["model"] == "text-embedding-3-small" and first["encoding_format"] == "float"
    assert first["input"] == texts[:8]
    assert route.calls[0].request.headers["authorization"] == "Bearer sk-test"
    assert json.loads(route.calls[2].request.content)["input"][-1] == " "  # empty text made valid
    assert v.shape == (20, 1536)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    for i in (0, 7, 18):
        n = len(texts[i])
        assert v[i, n % 1536] == pytest.approx(0.6) and v[i, (n + 1) % 1536] == pytest.approx(0.8)


@respx.mock
def test_openai_cuts_texts_over_the_input_limit():
    route = respx.post(OPENAI_URL).mock(side_effect=lambda req: httpx.Response(200, json=_openai_body(req)))
    OpenAIEmbedder(api_key="sk-test").embed(["token " * 9000])
    sent = json.loads(route.calls[0].request.content)["input"][0]
    from cardchat.llm.tokens import count_tokens

    assert count_tokens([sent], "cl100k_base")[0] <= 8000


@respx.mock
def test_openai_errors_do_not_echo_the_texts():
    secret = "my private card text about project Nightingale"
    respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            400,
            json={
                "error": {
                    "message": f"Invalid input: {secret}",
                    "type": "invalid_request_error",
                    "param": "input",
                    "code": "invalid_input",
                }
            },
        )
    )
    with pytest.raises(EmbeddingError) as info:
        OpenAIEmbedder(api_key="sk-test").embed([secret])
    assert "Nightingale" not in str(info.value) and "400" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


# --- Gemini: the real google-genai SDK against the wire format -------------------------------


def _gemini_body(request: httpx.Request) -> dict:
    reqs = json.loads(request.content)["requests"]
    out = []
    for r in reqs:
        text = r["content"]["parts"][0]["text"]
        vec = [0.0] * r["outputDimensionality"]
        vec[len(text) % len(vec)] = 0.5
        out.append({"values": vec})
    return {"embeddings": out}


@respx.mock
def test_gemini_embeds_in_batches_with_the_sdk(monkeypatch):
    monkeypatch.setattr(gemini_embed, "MAX_BATCH", 10)
    route = respx.post(host=GEMINI_HOST, path__regex=GEMINI_PATH).mock(
        side_effect=lambda req: httpx.Response(200, json=_gemini_body(req))
    )
    texts = [f"card number {i} " + "x" * i for i in range(25)]
    v = GeminiEmbedder(api_key="gk-test").embed(texts)
    assert route.call_count == 3
    req = route.calls[0].request
    assert req.headers["x-goog-api-key"] == "gk-test"
    body = json.loads(req.content)
    assert len(body["requests"]) == 10
    assert body["requests"][0]["model"] == "models/gemini-embedding-001"
    assert body["requests"][0]["outputDimensionality"] == 768
    assert {r["taskType"] for r in body["requests"]} == {"RETRIEVAL_DOCUMENT"}  # cards are documents
    assert body["requests"][3]["content"]["parts"][0]["text"] == texts[3]
    assert v.shape == (25, 768)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert v[22, len(texts[22]) % 768] == pytest.approx(1.0)


@respx.mock
def test_gemini_embeds_a_question_in_the_query_role():
    route = respx.post(host=GEMINI_HOST, path__regex=GEMINI_PATH).mock(
        side_effect=lambda req: httpx.Response(200, json=_gemini_body(req))
    )
    v = GeminiEmbedder(api_key="gk-test").embed_query("how do I rebase?")
    (sent,) = json.loads(route.calls[0].request.content)["requests"]
    assert sent["taskType"] == "RETRIEVAL_QUERY" and sent["content"]["parts"][0]["text"] == "how do I rebase?"
    assert v.shape == (768,) and np.linalg.norm(v) == pytest.approx(1.0)


@respx.mock
def test_gemini_errors_do_not_echo_the_texts():
    secret = "my private card text about project Nightingale"
    respx.post(host=GEMINI_HOST, path__regex=GEMINI_PATH).mock(
        return_value=httpx.Response(
            400, json={"error": {"code": 400, "message": f"Bad content: {secret}", "status": "INVALID_ARGUMENT"}}
        )
    )
    with pytest.raises(EmbeddingError) as info:
        GeminiEmbedder(api_key="gk-test").embed([secret])
    assert "Nightingale" not in str(info.value) and "INVALID_ARGUMENT" in str(info.value)


def test_provider_embedders_need_their_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        OpenAIEmbedder().embed(["x"])
    with pytest.raises(EmbeddingError, match="GEMINI_API_KEY"):
        GeminiEmbedder().embed(["x"])


def test_minilm_leaves_a_question_it_cannot_read_to_keywords(minilm):
    """A question mostly in Japanese gets a zero vector (no dense signal, so BM25 ranks alone);
    a Japanese word inside an English question does not."""
    assert not np.any(minilm.embed_query("ファイルの所有者を変えたい"))
    assert np.linalg.norm(minilm.embed_query("what does 変更 mean in a commit message")) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ファイルのアクセス権を変更するには chmod", True),
        ("git の rebase と merge の違い about branches", False),
        ("café crème", False),
        ("改变文件权限", True),
        ("", False),
    ],
)
def test_mostly_cjk(text, expected):
    from cardchat.embeddings.scripts import mostly_cjk

    assert mostly_cjk(text) is expected


def test_many_queries_are_each_what_embed_query_makes(minilm):
    from cardchat.embeddings import embed_queries

    texts = ["how do I rebase onto main?", "ファイルの所有者を変えたい", "tides and the moon"]
    many = embed_queries(minilm, texts)
    for text, vec in zip(texts, many, strict=True):
        np.testing.assert_allclose(vec, minilm.embed_query(text), atol=1e-5)


@respx.mock
def test_an_embedder_without_a_batch_of_queries_embeds_each_in_the_query_role():
    from cardchat.embeddings import embed_queries

    route = respx.post(host=GEMINI_HOST, path__regex=GEMINI_PATH).mock(
        side_effect=lambda req: httpx.Response(200, json=_gemini_body(req))
    )
    v = embed_queries(GeminiEmbedder(api_key="gk-test"), ["how do I rebase?", "why tides?"])
    sent = [json.loads(c.request.content)["requests"][0] for c in route.calls]
    assert [s["taskType"] for s in sent] == ["RETRIEVAL_QUERY"] * 2 and v.shape == (2, 768)
