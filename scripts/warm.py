"""Warms a running stack's functions before scripts/dev prints its URL: one
throwaway offline chat as the demo user (createChat, its answer, a follow-up,
deleteChat), so the first real Send does not pay loading the embedding model,
the tokenizers and the Firestore clients. Prints what it took."""

import json
import os
import sys
import time
import urllib.request

from google.cloud import firestore

AUTH = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
PROJECT = os.environ["GCLOUD_PROJECT"]
BASE = f"http://{os.environ['CARDCHAT_FUNCTIONS_HOST']}/{PROJECT}/us-central1"
OFFLINE = "offline-extractive"


def post(url: str, body: dict, token: str | None = None) -> dict:
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=180) as r:
        return json.loads(r.read())


def call(name: str, data: dict, token: str) -> dict:
    out = post(f"{BASE}/{name}", {"data": data}, token)
    if "error" in out:
        raise RuntimeError(f"{name}: {out['error']}")
    return out["result"]


def wait_answer(db: firestore.Client, message_id: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = db.collection("chat_messages").document(message_id).get()
        if doc.exists and doc.get("status") in ("complete", "failed"):
            return
        time.sleep(0.2)
    raise RuntimeError(f"the warm-up answer {message_id} did not finish in {timeout:.0f} s")


def main() -> int:
    start = time.monotonic()
    token = post(
        f"http://{AUTH}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key",
        {
            "email": os.environ["CARDCHAT_DEMO_EMAIL"],
            "password": os.environ["CARDCHAT_DEMO_PASSWORD"],
            "returnSecureToken": True,
        },
    )["idToken"]
    db = firestore.Client(project=PROJECT)
    # All the demo user's cards, as "Chat with these cards" sends them: the
    # card and BM25 caches then hold the deck too.
    cards = [
        d.id
        for d in db.collection("cards")
        .where(filter=firestore.FieldFilter("owner", "==", "demo-user"))
        .select([])
        .stream()
    ]
    chat = call("createChat", {"card_ids": cards, "initial_message": "How do I start?", "model": OFFLINE}, token)[
        "chat_id"
    ]
    try:
        wait_answer(db, f"{chat}-0001")
        wait_answer(db, call("postMessage", {"chat_id": chat, "content": "And then?"}, token)["message_id"])
    finally:
        call("deleteChat", {"chat_id": chat}, token)
    print(f"warmed the functions in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
