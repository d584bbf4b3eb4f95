"""The offline extractive answerer, end to end on a real background and the
real MiniLM embedder and tiktoken counts (no network, no key)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from cardchat import providers
from cardchat.embeddings import get_embedder
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.llm.tokens import count_tokens
from cardchat.providers import declining, offline
from cardchat.providers.offline import NO_CARDS, NOTE, NOTE_DECLINED, split_sentences
from cardchat.retrieval.background import fit_background
from cardchat.schema.documents import Card
from cardchat.schema.messages import Usage

CARDS = [
    (
        "sail",
        Card(
            title="Sailing",
            owner="u",
            body=(
                "Check the tide tables before leaving the harbour. "
                "A falling tide can strand a keel boat on the sandbar."
            ),
        ),
    ),
    (
        "bake",
        Card(
            title="Baking",
            owner="u",
            body=(
                "Sourdough needs a lively starter. Proof the dough overnight in the fridge for a better crumb.\n\n"
                "- Bake at 250 degrees with steam for the first twenty minutes.\n\n```\noven.heat(250)\n```"
            ),
        ),
    ),
    (
        "tide",
        Card(
            title="Tides",
            owner="u",
            body=(
                "The moon's gravity pulls the oceans into two bulges. The earth rotates through both bulges every day, "
                "so most coasts see two high tides daily. Spring tides happen when the sun and moon line up."
            ),
        ),
    ),
]


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "0")
    monkeypatch.setenv("CARDCHAT_EMBEDDINGS", "minilm")


@pytest.fixture(scope="module")
def background():
    return fit_background(CARDS, 4000, "o200k_base")


def ask(question: str, system: str) -> list:
    return list(providers.stream(OFFLINE_MODEL_ID, [{"role": "user", "content": question}], system))


def test_quotes_relevant_sentences_with_their_citation_numbers(background):
    items = ask("Why are there two tides a day?", background.text)
    words = items[:-1]
    answer = "".join(words)
    assert answer.endswith("\n\n" + NOTE)  # says what it is, after the answer's own words
    assert len(words) > 30  # streamed word by word, not in one piece
    n_of = {card_id: n for n, card_id in enumerate(background.card_ids, start=1)}
    lines = answer.rsplit("\n\n", 1)[0].splitlines()
    quoted = [re.fullmatch(r"- (.+) \[(\d+)\]", line).groups() for line in lines]
    sources = {n_of[cid]: split_sentences(card.body) for cid, card in CARDS}
    for sentence, n in quoted:
        assert sentence in sources[int(n)]  # verbatim, cited to the card it came from
    cited = {int(n) for _, n in quoted}
    assert n_of["tide"] in cited
    assert n_of["bake"] not in cited  # unrelated cards are not padded in
    assert "The earth rotates through both bulges every day, so most coasts see two high tides daily." in answer
    # after the best one, the tide card's sentences are in reading order, and at most 3 per card
    tide = [s for s, n in quoted[1:] if int(n) == n_of["tide"]]
    assert tide == [s for s in sources[n_of["tide"]] if s in tide] and len(tide) <= 3


def test_usage_counts_prompt_and_answer_with_the_models_tokenizer(background):
    question = "How hot should the oven be for bread?"
    items = ask(question, background.text)
    answer = "".join(items[:-1])
    assert "Bake at 250 degrees with steam for the first twenty minutes. [" in answer
    assert "oven.heat" not in answer  # code blocks are not prose
    system_n, question_n, answer_n = count_tokens([background.text, question, answer], "o200k_base")
    assert items[-1] == Usage(input_tokens=system_n + question_n, output_tokens=answer_n)


def test_an_unrelated_question_is_declined_with_the_nearest_cards_by_number_only(background):
    answer = "".join(x for x in ask("What is the melting point of tungsten?", background.text) if isinstance(x, str))
    said, note = answer.split("\n\n")
    assert note == NOTE_DECLINED
    assert re.fullmatch(re.escape(declining.DECLINED) + r" The nearest cards are \[\d\], \[\d\] and \[\d\]\.", said)
    # no weak sentence quoted, and no title: a reader learns a title only where the citation layer shows it
    for _, card in CARDS:
        assert card.title not in answer and not any(s in answer for s in split_sentences(card.body))


def test_ask_anyway_quotes_the_nearest_sentences_however_weak(background):
    question = f"{declining.ANYWAY} How far away is the sun?"
    answer = "".join(x for x in ask(question, background.text) if isinstance(x, str))
    assert answer.startswith("- ") and answer.endswith(NOTE)
    plain = "".join(x for x in ask(declining.question_of(question), background.text) if isinstance(x, str))
    assert plain.startswith(declining.DECLINED)


def test_empty_background_and_malformed_background():
    answer = "".join(x for x in ask("anything at all here?", "") if isinstance(x, str))
    assert answer == f"{NO_CARDS}\n\n{NOTE}"
    with pytest.raises(providers.ProviderError) as err:
        ask("anything?", "not a background")
    assert err.value.kind == "bad_request"


def test_max_tokens_caps_the_answer(background):
    text, usage = providers.complete(OFFLINE_MODEL_ID, [{"role": "user", "content": "tides?"}], background.text, 12)
    assert usage.output_tokens <= 12
    full = "".join(x for x in ask("tides?", background.text) if isinstance(x, str))
    assert text and full.startswith(text) and len(text) < len(full)


def test_pacing_spreads_the_words_out(background, monkeypatch):
    # The clock is faked: the pause before every word but the first is what is asked for.
    slept: list[float] = []
    monkeypatch.setattr(offline, "time", SimpleNamespace(sleep=slept.append))
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "4")
    items = ask("Why are there two tides a day?", background.text)
    words = [x for x in items if isinstance(x, str)]
    assert len(words) > 3 and slept == [0.004] * (len(words) - 1)
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "0")
    slept.clear()
    assert ask("Why are there two tides a day?", background.text) == items and slept == []


def test_offline_model_needs_no_key(monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    assert MODELS[OFFLINE_MODEL_ID].key_env is None
    assert providers.resolve(OFFLINE_MODEL_ID).provider == "offline"


def test_split_sentences_handles_markdown():
    body = (
        "# A heading of five words\nFirst sentence is here. Second one follows [see](http://x.y)!\n\n"
        "* **Bold** list item text\n| a | b |\nok"
    )
    assert split_sentences(body) == [
        "A heading of five words",
        "First sentence is here.",
        "Second one follows see!",
        "Bold list item text",
    ]  # the table row and the one-word line after it are not sentences


def test_the_first_chunk_is_the_answers_own_words(background):
    first = next(
        iter(
            providers.stream(
                OFFLINE_MODEL_ID, [{"role": "user", "content": "Why are there two tides a day?"}], background.text
            )
        )
    )
    assert first.startswith("- ")  # a quoted sentence, not a preamble written before the work
    assert any(s.startswith(first[2:]) for _, card in CARDS for s in split_sentences(card.body))


def test_the_best_sentence_comes_first(background):
    question = "Why are there two tides a day?"
    answer = "".join(x for x in ask(question, background.text) if isinstance(x, str))
    quoted = [re.fullmatch(r"- (.+) \[\d+\]", line).group(1) for line in answer.rsplit("\n\n", 1)[0].splitlines()]
    vectors = get_embedder().embed([question, *quoted])
    assert len(quoted) > 1 and int((vectors[1:] @ vectors[0]).argmax()) == 0


FILLER = [
    (
        f"ledger-{i}",
        Card(
            title=f"Ledger {i}",
            owner="u",
            body=" ".join(
                f"Ledger entry {i}-{j} records the quarterly budget for office supplies and travel." for j in range(25)
            ),
        ),
    )
    for i in range(60)
]


@pytest.fixture(scope="module")
def large_background():
    """1,500+ sentences, the tides card ranked first (as createChat ranks it)."""
    return fit_background([CARDS[2], *FILLER], 40_000, "o200k_base")


def test_a_large_background_embeds_only_a_few_dozen_candidates(large_background):
    assert len(offline.sentences_of(large_background.text)) >= 1_500
    offline._VECTORS.clear()
    answer = "".join(x for x in ask("Why are there two tides a day?", large_background.text) if isinstance(x, str))
    assert "so most coasts see two high tides daily. [1]" in answer
    embedded = len(offline._VECTORS)
    assert embedded <= offline.MAX_EMBEDDED + 1
    # a follow-up on the same background reuses the sentences' vectors: only its question is new
    ask("When do spring tides happen?", large_background.text)
    assert len(offline._VECTORS) < embedded + offline.MAX_EMBEDDED // 2


def test_a_paraphrase_sharing_no_word_still_finds_the_best_ranked_card(large_background):
    answer = "".join(x for x in ask("What makes the sea rise and fall?", large_background.text) if isinstance(x, str))
    assert answer.startswith("- ") and "[1]" in answer.splitlines()[0]
    assert "Ledger" not in answer
