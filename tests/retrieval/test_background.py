import random

import pytest

import cardchat.retrieval.background as background
from cardchat.llm.tokens import count_tokens
from cardchat.retrieval.background import PREAMBLE, drop_cards, fit_background, parse_background, renumber
from cardchat.schema.documents import Card

TOKENIZERS = ["o200k_base", "cl100k_base", "estimate-claude", "estimate-gemini"]
WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "on",
    "with",
    "that",
    "by",
    "this",
    "as",
    "at",
    "from",
    "cache",
    "latency",
    "Firestore",
    "embeddings",
    "vector",
    "cosine",
    "markdown",
    "function",
    "python",
    "async",
    "await",
    "retrieval",
    "ranking",
    "budget",
    "token",
    "東京",
    "café",
    "naïve",
    "Zürich",
    "42",
    "3.14",
    "HTTP/2",
    "O(n",
    "log",
    "n)",
]


def _card(rng: random.Random, i: int) -> tuple[str, Card]:
    size = rng.choice([0, 3, 12, 40, 150, 600, 2500])
    body = " ".join(rng.choices(WORDS, k=size))
    kind = i % 6
    if kind == 1:
        body += "\n\n```python\nfor i in range(10):\n    print(i ** 2)\n```\n"
    elif kind == 2:
        body = "# Notes\n\n- " + body.replace(" the ", "\n- ")
    elif kind == 3:  # a body that imitates the background's own structure
        body += f'\n</card>\n<card n="{i}" length="4">\nfake\n</card>\n'
    elif kind == 4:
        body += "\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    return f"card-{i}", Card(title=f"Card {i}: {rng.choice(WORDS)}", body=body, owner="u1")


@pytest.fixture(scope="module")
def deck() -> list[tuple[str, Card]]:
    rng = random.Random(11)
    return [_card(rng, i) for i in range(3000)]


def _check(bg, ranked, budget, tokenizer):
    assert bg.tokens <= budget
    assert bg.tokens == count_tokens([bg.text], tokenizer)[0]
    by_id = dict(ranked)
    parsed = parse_background(bg.text)
    assert [n for n, _, _ in parsed] == list(range(1, len(bg.card_ids) + 1))
    for (_, title, body), card_id in zip(parsed, bg.card_ids):
        card = by_id[card_id]
        assert title == " ".join(card.title.split())
        if card_id == bg.truncated_card:
            assert card.body.startswith(body) and len(body) < len(card.body)
        else:
            assert body == card.body
    positions = {card_id: i for i, (card_id, _) in enumerate(ranked)}
    whole = [positions[c] for c in bg.card_ids if c != bg.truncated_card]
    assert whole == sorted(whole)  # rank order kept


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@pytest.mark.parametrize("budget", [4_000, 100_000])
def test_fills_the_budget_without_exceeding_it(deck, tokenizer, budget):
    bg = fit_background(deck, budget, tokenizer, "Notes on caching")
    _check(bg, deck, budget, tokenizer)
    assert bg.fill >= 0.97, (bg.tokens, budget)
    assert bg.budget == budget


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_a_card_is_truncated_to_fill_what_whole_cards_cannot(tokenizer):
    rng = random.Random(5)
    big = [
        (f"big-{i}", Card(title=f"Big {i}", body=" ".join(rng.choices(WORDS, k=4000)), owner="u")) for i in range(20)
    ]
    bg = fit_background(big, 5_000, tokenizer)
    _check(bg, big, 5_000, tokenizer)
    assert bg.fill >= 0.97
    assert bg.truncated_card == bg.card_ids[-1]
    assert 'truncated="true"' in bg.text


def test_smaller_cards_further_down_fill_the_gap():
    rng = random.Random(2)
    big = " ".join(rng.choices(WORDS, k=1500))
    ranked = [("a", Card(title="A", body=big, owner="u")), ("b", Card(title="B", body=big + big, owner="u"))]
    ranked += [(f"s{i}", Card(title=f"S{i}", body="short note on caching", owner="u")) for i in range(200)]
    one = count_tokens([big], "o200k_base")[0]
    bg = fit_background(ranked, one + 600, "o200k_base")
    assert bg.card_ids[0] == "a" and "b" not in bg.card_ids[:-1]
    assert sum(c.startswith("s") for c in bg.card_ids) > 5
    assert bg.fill >= 0.97


def test_bodies_that_imitate_the_format_parse_as_written():
    body = '</card>\n<card n="2" length="3">\nabc\n</card>\n<collection length="1">\nx\n</collection>\n'
    ranked = [("x", Card(title="Tricky\ntitle", body=body, owner="u")), ("y", Card(title="Plain", body="", owner="u"))]
    bg = fit_background(ranked, 2_000, "o200k_base", collection_description='<card n="9" length="1">')
    assert parse_background(bg.text) == [(1, "Tricky title", body), (2, "Plain", "")]
    assert bg.card_ids == ["x", "y"]


def test_dropping_cards_keeps_the_others_and_their_numbers():
    tricky = '</card>\n<card n="2" length="3">\nabc\n</card>\n'
    ranked = [(f"c{i}", Card(title=f"T{i}", body=f"body {i}\n{tricky}", owner="u")) for i in range(1, 6)]
    bg = fit_background(ranked, 5_000, "o200k_base", collection_description="my notes")
    kept = drop_cards(bg.text, {2, 4})
    assert parse_background(kept) == [(n, f"T{n}", f"body {n}\n{tricky}") for n in (1, 3, 5)]
    assert '<collection length="8">\nmy notes\n</collection>' in kept
    assert drop_cards(bg.text, set()) == bg.text
    assert parse_background(drop_cards(bg.text, {1, 2, 3, 4, 5})) == []


def test_preamble_instructs_grounding_and_citation():
    bg = fit_background([], 1_000, "o200k_base")
    assert bg.text.startswith(PREAMBLE) and "[1]" in PREAMBLE and "cite" in PREAMBLE
    assert bg.card_ids == [] and parse_background(bg.text) == []
    with pytest.raises(ValueError):
        fit_background([], 10, "o200k_base")
    with pytest.raises(ValueError):
        parse_background("You are a helpful assistant.")
    with pytest.raises(ValueError):
        parse_background(bg.text + '<card n="1" length="99">\nshort\n</card>\n')


def test_ten_thousand_cards_are_fitted_without_tokenizing_them_all(monkeypatch):
    rng = random.Random(9)
    cards = [_card(rng, i) for i in range(10_000)]
    total_chars = sum(len(c.title) + len(c.body) for _, c in cards)
    counted_chars = 0
    real = background.count_tokens

    def counting(texts, tokenizer):
        nonlocal counted_chars
        counted_chars += sum(map(len, texts))
        return real(texts, tokenizer)

    fit_background(cards[:10], 1_000, "o200k_base")  # tokenizer warm
    monkeypatch.setattr(background, "count_tokens", counting)
    bg = fit_background(cards, 100_000, "o200k_base")
    assert bg.fill >= 0.97 and bg.tokens <= 100_000
    # blocks counted once plus the final text once, with a modest overshoot
    assert counted_chars < 0.15 * total_chars  # its speed: scripts/bench create_chat (fit)


def test_shrink_gives_back_an_excess_by_cutting_then_dropping_the_last_block():
    # The final count can exceed the sum of the parts only by a few tokens
    # (renumbering, merges across a boundary); this is the path that repairs it.
    rng = random.Random(4)
    cards = [(f"c{i}", Card(title=f"T{i}", body=" ".join(rng.choices(WORDS, k=300)), owner="u")) for i in range(3)]
    picks = [background._Pick(i, background._content(c.title, c.body)) for i, (_, c) in enumerate(cards)]
    head = background._head("")
    _, before = background._render(head, picks, "o200k_base")
    cut, truncated = background._shrink(cards, picks, 40, "o200k_base", None, background.OWN_CARDS_ONLY)
    _, after = background._render(head, cut, "o200k_base")
    assert len(cut) == 3 and cut[-1].truncated and truncated == "c2"
    assert before - 45 <= after <= before - 40
    tiny = [*picks[:2], background._Pick(2, background._content("T2", "a few words"))]
    dropped, _ = background._shrink(cards, tiny, 30, "o200k_base", None, background.OWN_CARDS_ONLY)
    assert [p.index for p in dropped] == [0, 1]


def test_renumber_gives_each_card_the_number_asked_and_keeps_the_text_parseable():
    cards = [(f"c{i}", Card(f"Card {i}", f'Body {i} [1] <card n="9" length="3">', "u")) for i in range(3)]
    bg = fit_background(cards, 10_000, "o200k_base", "a description")
    text = renumber(bg.text, [12, 3, 7])
    assert [(n, title) for n, title, _ in parse_background(text)] == [(12, "Card 0"), (3, "Card 1"), (7, "Card 2")]
    assert [body for *_, body in parse_background(text)] == [body for *_, body in parse_background(bg.text)]
