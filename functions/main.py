"""Cloud Functions entry points, by concern in endpoints/; Firebase finds them here, where each is
re-exported. Each is thin: parse, authorise, call the domain (cardchat.*), map its errors to HttpsError.
Heavy modules (ONNX, tokenizers, provider SDKs) are imported inside the functions that need them: a cold
start never pays for the embedding model."""

from cardchat.schema.documents import FUNCTION_NAMES
from endpoints.account import (
    createAccessToken,
    deleteAccount,
    deleteApiKey,
    finishAccountDeletions,
    listApiKeys,
    listModels,
    resolveViewers,
    revokeAccessToken,
    setApiKey,
)
from endpoints.base import SECRETS, USES_KEYS, db
from endpoints.cards import checkDraft, mcp, searchCards, syncCards
from endpoints.chats import (
    branchChat,
    continueChat,
    createChat,
    deleteChat,
    leaveChat,
    postMessage,
    rateAnswer,
    retryMessage,
    searchChats,
    shareChat,
)
from endpoints.nearby import findOverlaps, relatedCards, suggestFollowups
from endpoints.pins import excludeCard, pinCard
from endpoints.triggers import embedCard, generateAnswer, resumeEmbedding, sweepAnswers

# What Firebase loads (every decorated function) and what tests and benchmarks use (db, the secrets).
__all__ = [
    "SECRETS",
    "USES_KEYS",
    "branchChat",
    "checkDraft",
    "continueChat",
    "createAccessToken",
    "createChat",
    "db",
    "deleteAccount",
    "deleteApiKey",
    "deleteChat",
    "embedCard",
    "excludeCard",
    "findOverlaps",
    "finishAccountDeletions",
    "generateAnswer",
    "leaveChat",
    "listApiKeys",
    "listModels",
    "mcp",
    "pinCard",
    "postMessage",
    "rateAnswer",
    "relatedCards",
    "resolveViewers",
    "resumeEmbedding",
    "retryMessage",
    "revokeAccessToken",
    "searchCards",
    "searchChats",
    "setApiKey",
    "shareChat",
    "suggestFollowups",
    "sweepAnswers",
    "syncCards",
]

# Names the SPA calls (common/collections.json): a rename not made here fails at import, not at a call.
assert set(FUNCTION_NAMES.values()) <= set(globals()), "common/collections.json names a function main.py lacks"
