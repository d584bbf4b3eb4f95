"""What every embedder is (the Embedder protocol), the error a remote one raises, and the row
normalisation they share. Apart from the package's factory, which imports the embedders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


class EmbeddingError(RuntimeError):
    """A provider call failed. The message carries the status and the
    provider's error code only: never the texts sent, which are card text."""


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Documents (cards): (len(texts), dim) float32, rows L2-normalised;
        batches internally."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """A search query (a chat's first message), to rank documents by.
        Models trained with separate query and document roles are told which."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = matrix / np.maximum(norms, np.float32(1e-12))
    return unit
