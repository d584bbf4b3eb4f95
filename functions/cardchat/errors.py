"""Domain errors. Endpoints map each to one HttpsError code; messages are
shown to the user, so they name the field at fault and never carry card text,
the background, keys or stack traces."""

from __future__ import annotations


class CardchatError(Exception):
    code = "internal"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Unauthenticated(CardchatError):
    code = "unauthenticated"


class PermissionDenied(CardchatError):
    code = "permission-denied"


class NotFound(CardchatError):
    code = "not-found"


class InvalidArgument(CardchatError):
    code = "invalid-argument"


class FailedPrecondition(CardchatError):
    code = "failed-precondition"


class ResourceExhausted(CardchatError):
    code = "resource-exhausted"

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after
