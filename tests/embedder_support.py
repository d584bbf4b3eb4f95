"""What the tests of stored embeddings share: the real MiniLM embedder, and an
emptied vector cache around each test (a vector cached by one test would hide
what the next one stores). Imported as `from embedder_support import ...`;
importing the fixtures into a test module makes them that module's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cardchat.embeddings import Embedder, get_embedder
from cardchat.repo import embeddings as repo


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    repo.clear_cache()
    yield
    repo.clear_cache()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder("minilm")
