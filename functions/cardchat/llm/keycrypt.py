"""Users' own API keys at rest: sealed with AES-GCM (the `cryptography`
package) under a 256-bit key that lives only in the environment / Firebase
secrets (KEY_ENV, base64), never in Firestore or a client.

Each ciphertext is bound to its user and provider as associated data, so one
copied into another user's record, or under another provider, does not open.
A fresh 96-bit random nonce per seal: a key is sealed a handful of times.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from cardchat.errors import FailedPrecondition

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

#: The secret holding the encryption key: `base64.b64encode(os.urandom(32))`.
KEY_ENV = "CARDCHAT_KEY_ENCRYPTION_KEY"
NONCE_BYTES = 12


class NotConfigured(FailedPrecondition):
    """This deployment holds no (valid) encryption key: personal API keys are off."""


def _aead(env: Mapping[str, str] | None) -> AESGCM:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = ((os.environ if env is None else env).get(KEY_ENV) or "").strip()
    try:
        key = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:  # the value is never named: it is a secret, even when wrong
        raise NotConfigured(f"Personal API keys are not enabled on this server ({KEY_ENV} is not set up)")
    return AESGCM(key)


def enabled(env: Mapping[str, str] | None = None) -> bool:
    try:
        _aead(env)
    except NotConfigured:
        return False
    return True


def seal(plaintext: str, context: str, env: Mapping[str, str] | None = None) -> tuple[bytes, bytes]:
    """(ciphertext, nonce) of `plaintext`, bound to `context` ("uid/provider")."""
    nonce = os.urandom(NONCE_BYTES)
    return _aead(env).encrypt(nonce, plaintext.encode("utf-8"), context.encode("utf-8")), nonce


def unseal(ciphertext: bytes, nonce: bytes, context: str, env: Mapping[str, str] | None = None) -> str:
    """The plaintext; cryptography's InvalidTag if the record was tampered
    with, moved to another context or sealed under another key."""
    return _aead(env).decrypt(nonce, ciphertext, context.encode("utf-8")).decode("utf-8")
