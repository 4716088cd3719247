"""How errors cross HTTP: the one table from graphmem's errors to statuses, and an error's body.

The server answers an error a verb raised with the status of its most specific row (any other
GraphMemError: 500); a client raises the row's error for a status (any other: StoreError).
"""

from typing import Any, NamedTuple

from pydantic import BaseModel

from graphmem.errors import (
    AccessError,
    ConflictError,
    GraphMemError,
    InvalidInputError,
    ModelError,
    RequestRefusedError,
    StoreError,
    StoreUnavailableError,
)


class Status(NamedTuple):
    """An error status: the error it stands for, the code its body names, what it means."""

    status: int
    error: type[GraphMemError]
    code: str
    meaning: str


STATUSES = (
    Status(
        400,
        InvalidInputError,
        "invalid_input",
        "bad input; the message names the field (or two Authorization headers)",
    ),
    Status(401, AccessError, "unauthorized", "no key, or an unknown or revoked one"),
    Status(403, AccessError, "forbidden", "the key may not touch this owner"),
    Status(408, RequestRefusedError, "request_timeout", "the request body did not arrive in time"),
    Status(409, ConflictError, "conflict", "the input contradicts what is stored"),
    Status(
        413,
        RequestRefusedError,
        "content_too_large",
        "the request body is too large, or a batch has too many messages",
    ),
    Status(
        415,
        InvalidInputError,
        "unsupported_media_type",
        "the body is not sent as application/json (or, on an open server, no key and no JSON)",
    ),
    Status(421, AccessError, "misdirected_request", "the Host header does not name this server"),
    Status(422, InvalidInputError, "unfit_request", "the request does not fit its schema"),
    Status(
        429,
        RequestRefusedError,
        "too_many_requests",
        "too many requests, or requests in progress, for this key; see Retry-After",
    ),
    Status(502, ModelError, "model_failed", "the model endpoint failed"),
    Status(
        503,
        StoreUnavailableError,
        "store_unavailable",
        "the store cannot be reached; see Retry-After",
    ),
)
"""Every error status an answer may carry, for the OpenAPI schema, the server and the clients."""
INTERNAL = Status(500, GraphMemError, "internal", "an error of graphmem's own")
"""The status of a GraphMemError no row stands for."""


def status_of(error: GraphMemError) -> Status:
    """The status the server answers an error with: its most specific row's, the first such."""
    rows = [row for row in STATUSES if isinstance(error, row.error)]
    return max(rows, key=lambda row: len(row.error.__mro__), default=INTERNAL)


def error_of(status: int) -> type[GraphMemError]:
    """The error a client raises for a status of the server's."""
    return next((row.error for row in STATUSES if row.status == status), StoreError)


MAX_MESSAGE_CHARS = 500
"""The most of an error's message an answer carries (a message quoting a huge input is cut)."""


def error_answer(
    code: str, message: str, request_id: str, field_name: str | None = None
) -> dict[str, Any]:
    """The JSON of an error response: its code, its message (cut), the field, the request."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "…"
    error = ErrorBody(code=code, message=message, field=field_name, request_id=request_id)
    return ErrorAnswer(error=error).model_dump(mode="json", exclude_none=True)


class ErrorBody(BaseModel):
    """What went wrong."""

    code: str
    message: str
    field: str | None = None
    request_id: str


class ErrorAnswer(BaseModel):
    """The body of every error response."""

    error: ErrorBody
