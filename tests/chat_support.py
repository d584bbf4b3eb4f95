"""A chat over real cards, written as createChat writes one (chat, private
data, a background in fit_background's format, messages), for the tests of
branches and of the access re-check. Imported as `from chat_support import ...`."""

from __future__ import annotations

from datetime import timedelta

from cardchat.chat.packed_cards import packed_owners
from cardchat.generation import claims
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.repo.chats import write_new_chat
from cardchat.retrieval.background import fit_background
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, Card, Chat, ChatBackground, ChatPrivate, Collection
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage

T0 = utc_now() - timedelta(hours=1)
SPEC = MODELS[OFFLINE_MODEL_ID]

#: The chat's cards in rank order, as u1 (the chat's owner) may read them when the chat is made.
CARDS_OF_CHAT = {
    "own": Card("Tides", "The moon pulls the oceans.", "u1"),
    "shared": Card("Harbour", "The harbour gate code is 4711 and opens at dawn.", "u2", viewers=["u1"]),
    "open": Card("Spring tides", "Spring tides come with the new and the full moon.", "u2", visibility="public"),
    "mine-too": Card("Neap tides", "Neap tides fall between the quarter moons.", "u1"),
    "open-too": Card("Tide tables", "Tide tables list the high and low waters of each day.", "u2", visibility="public"),
}


#: The same with a card over one background part (250,000 characters): a copy
#: must join the parts. Too long for the offline model's window to answer.
BIG_CARDS = {**CARDS_OF_CHAT, "own": Card("Tides", "The moon pulls the oceans.\n\n" + "filler line\n" * 30_000, "u1")}


def make_chat(
    db,
    turns: list[tuple[str, str, str]],
    chat_id: str = "src",
    cards: dict[str, Card] | None = None,
    owners_kept: bool = True,
    model: str = OFFLINE_MODEL_ID,
) -> list[str]:
    """A chat of (role, status, content) turns, owned by u1, on `model` (the
    offline one by default), over `cards` (stored too); returns its card ids in
    citation order. Its complete answers keep the numbers they cite (`sources`),
    and its visitors' links are the public cards those cite, as the answers' runs
    leave them. Without `owners_kept`, a chat made before the cards' owners were kept."""
    cards = CARDS_OF_CHAT if cards is None else cards
    batch = db.batch()
    for cid, card in cards.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()
    bg = fit_background(list(cards.items()), 1_000_000, SPEC.tokenizer, "ocean notes")
    cited = {
        n: claims.citations(text, bg.card_ids)
        for n, (role, status, text) in enumerate(turns)
        if role == "assistant" and status == "complete"
    }
    linked = {n for numbers in cited.values() for n in numbers}
    chat = Chat(
        owner="u1",
        title="Tides and the moon",
        model=model,
        public_citations={
            str(n): bg.card_ids[n - 1] for n in linked if cards[bg.card_ids[n - 1]].visibility == "public"
        },
        published=True,
        message_count=len(turns),
    )
    private = ChatPrivate(
        owner="u1",
        background_length=1_000_000,
        background_tokens=bg.tokens,
        card_ids=bg.card_ids,
        card_owners=packed_owners(bg.card_ids, cards) if owners_kept else [],
        card_count_requested=7,
        collection=Collection("ocean notes", {"tag": "ocean"}),
        cards_unranked=1,
    )
    messages = [
        (
            f"{chat_id}-m{i}",
            ChatMessage(
                chat=chat_id,
                message_index=i,
                role=role,
                content=text,
                status=status,
                timestamp=T0 + timedelta(minutes=i),
                model=model,
                sources=cited.get(i),
            ),
        )
        for i, (role, status, text) in enumerate(turns)
    ]
    write_new_chat(
        db,
        chat_id,
        chat,
        private,
        ChatBackground(chat=chat_id, owner="u1", model=model, tokens=bg.tokens, parts=0),
        bg.text,
        messages,
    )
    return bg.card_ids


def make_cited_chat(db, turns: list[tuple[str, str, str]], cards: dict[str, Card] | None = None) -> list[str]:
    """make_chat "src" with each complete answer's `sources` (the numbers it cites that name a
    card), as the engine's finish writes them: what a continued chat starts from."""
    card_ids = make_chat(db, turns, cards=cards)
    for i, (role, status, text) in enumerate(turns):
        if role == "assistant" and status == "complete":
            db.collection(CHAT_MESSAGES).document(f"src-m{i}").update({"sources": claims.citations(text, card_ids)})
    return card_ids


def reindexed(db, card_id: str, owner: str = "") -> None:
    """`card_id`, just written or deleted (then `owner`'s), told to its owner's retrieval index as
    the card-write trigger tells it (no trigger runs in these tests), when the owner has an index."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo.retrieval_index.changes import Change, apply_changes
    from cardchat.repo.retrieval_index.shards import read_head

    snap = db.collection(CARDS).document(card_id).get()
    card = Card.from_dict(snap.to_dict()) if snap.exists else None
    owner = card.owner if card else owner
    if owner and read_head(db, owner) is not None:
        apply_changes(db, owner, [Change(card_id, card)], get_embedder().model_id)


def revoke(db) -> None:
    """Every way u1 loses a card of CARDS_OF_CHAT: a viewer removed, a public
    card made private, a card deleted. "own" and "open-too" stay readable."""
    db.collection(CARDS).document("shared").update({"viewers": []})
    db.collection(CARDS).document("open").update({"visibility": "private"})
    db.collection(CARDS).document("mine-too").delete()


def write_chat(
    db,
    chat_id: str,
    messages: list[tuple[str, ChatMessage]],
    owner: str = "u1",
    model: str = OFFLINE_MODEL_ID,
    background_tokens: int = 0,
    background: str = "",
    card_ids: list[str] | None = None,
) -> None:
    """A chat of the given messages with a background of `background_tokens`
    citing `card_ids` (none by default): for tests of turns, quotas and refusals."""
    chat = Chat(owner=owner, title="t", model=model, message_count=len(messages))
    private = ChatPrivate(
        owner=owner,
        background_length=background_tokens,
        background_tokens=background_tokens,
        card_ids=list(card_ids or []),
        card_count_requested=0,
    )
    write_new_chat(
        db,
        chat_id,
        chat,
        private,
        ChatBackground(chat=chat_id, owner=owner, model=model, tokens=background_tokens, parts=0),
        background,
        messages,
    )


def answered_chat(
    db,
    chat_id: str,
    owner: str = "u1",
    status: str = "complete",
    model: str = OFFLINE_MODEL_ID,
    background_tokens: int = 0,
    ids: tuple[str, str] | None = None,
    **answer_fields,
) -> str:
    """A chat with one question and its answer in `status` (never `ready`
    unless asked, so no generator runs); returns the chat id."""
    question_id, answer_id = ids or (f"{chat_id}-q0", f"{chat_id}-a1")
    write_chat(
        db,
        chat_id,
        [
            (question_id, ChatMessage(chat=chat_id, message_index=0, role="user", content="first?", status="complete")),
            (
                answer_id,
                ChatMessage(
                    chat=chat_id,
                    message_index=1,
                    role="assistant",
                    content="answer",
                    status=status,
                    model=model,
                    **answer_fields,
                ),
            ),
        ],
        owner,
        model,
        background_tokens,
    )
    return chat_id
