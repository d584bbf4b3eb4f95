import math

import pytest

from cardchat.llm.tokens import ESTIMATE_FACTORS, count_tokens, truncate_tokens

PROSE = "The quick brown fox jumps over the lazy dog. " * 20
CODE = "def f(x):\n    return {k: v for k, v in x.items() if v}\n" * 10


def test_exact_counts_match_tiktoken():
    import tiktoken  # loaded offline by count_tokens above via TIKTOKEN_CACHE_DIR

    count_tokens(["warm"], "o200k_base")
    for name in ("o200k_base", "cl100k_base"):
        enc = tiktoken.get_encoding(name)
        texts = [PROSE, CODE, "", "<|endoftext|> is text here", "東京で会いましょう"] * 3
        assert count_tokens(texts, name) == [len(enc.encode_ordinary(t)) for t in texts]


def test_batch_and_single_counts_agree():
    texts = [PROSE[: i * 7] for i in range(40)]
    assert count_tokens(texts, "o200k_base") == [count_tokens([t], "o200k_base")[0] for t in texts]


@pytest.mark.parametrize("name", list(ESTIMATE_FACTORS))
def test_estimates_err_high(name):
    o200k = count_tokens([PROSE, CODE], "o200k_base")
    cl100k = count_tokens([PROSE, CODE], "cl100k_base")
    est = count_tokens([PROSE, CODE], name)
    for o, c, e in zip(o200k, cl100k, est):
        assert e == math.ceil(o * ESTIMATE_FACTORS[name])
        assert e > o and e > c  # never below what an OpenAI tokenizer counts


def test_unknown_tokenizer_is_an_error():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        count_tokens(["x"], "gpt2")


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base", "estimate-claude", "estimate-gemini"])
def test_truncate_fits_and_is_a_prefix(name):
    text = PROSE + "東京で会いましょう。" * 30
    for limit in (1, 7, 50, 333):
        cut = truncate_tokens(text, limit, name)
        assert text.startswith(cut)
        assert count_tokens([cut], name)[0] <= limit
        assert len(cut) > 0 or limit < 2
    assert truncate_tokens("short", 100, name) == "short"
    assert truncate_tokens(text, 0, name) == ""


def test_truncate_fills_its_limit():
    cut = truncate_tokens(PROSE, 100, "o200k_base")
    assert 98 <= count_tokens([cut], "o200k_base")[0] <= 100
