"""The errors graphmem raises; every one of them is a GraphMemError.

GraphMemError                 root: catch this to catch everything graphmem raises
├── InvalidInputError         bad input from the caller; nothing was stored or changed
├── ConflictError             the input contradicts what is stored (a known message id, new text)
├── ConfigurationError        settings that cannot work (missing password, wrong dimensions)
├── StoreError                the store refused an operation or holds unreadable data
│   └── StoreUnavailableError the store could not be reached
├── AccessError               graphmem serve refused the key: missing, unknown, revoked, or not
│                             one for that owner (raised by graphmem.client)
├── RequestRefusedError       graphmem serve refused the request as too large or too frequent
└── ModelError                an embedding or language-model endpoint failed
    ├── ModelRequestError     it answered the request with an error status (not busy, not down)
    └── ModelOutputError      it could not answer as asked: an invalid answer, even repaired,
        │                     or one cut off at the length limit
        └── ModelTooLongError the question is longer than the model's context: ask about less

`validation_problems` tells what pydantic refused in graphmem's words: each field and its
problem, without pydantic's links; `as_invalid_input` raises it, or any ValueError of a check of
caller input, as an InvalidInputError.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import ValidationError


class GraphMemError(Exception):
    """Root of every error graphmem raises."""


class InvalidInputError(GraphMemError, ValueError):
    """The caller's input is invalid; the message names the problem."""


class ConflictError(GraphMemError):
    """The input contradicts what is already stored."""


class ConfigurationError(GraphMemError):
    """The settings cannot work as given."""


class StoreError(GraphMemError):
    """The store refused an operation or holds data it cannot read."""


class StoreUnavailableError(StoreError):
    """The store could not be reached."""


class AccessError(GraphMemError):
    """graphmem serve refused the request's key (HTTP 401 or 403)."""


class RequestRefusedError(GraphMemError):
    """graphmem serve refused the request as too large (413) or too frequent (429)."""


class ModelError(GraphMemError):
    """An embedding or language-model endpoint failed after its retries."""


class ModelRequestError(ModelError):
    """The endpoint answered with an error status, not busy (429) nor down (503): a refusal."""


class ModelOutputError(ModelError):
    """The model could not answer as asked.

    Its answer did not fit the expected schema, even after one repair request, or it was cut off
    at the length limit (never repaired: asked again, the answer would be as long).
    """


class ModelTooLongError(ModelOutputError):
    """The endpoint refused the question as longer than the model's context window."""


def validation_problems(error: ValidationError) -> str:
    """What a validation refused: each problem with its field, none of pydantic's links."""
    return "; ".join(
        (f"{'.'.join(map(str, item['loc']))}: " if item["loc"] else "")
        + item["msg"].removeprefix("Value error, ")
        for item in error.errors()
    )


@contextmanager
def as_invalid_input() -> Iterator[None]:
    """Report validation failures of caller input as InvalidInputError."""
    try:
        yield
    except ValidationError as error:
        raise InvalidInputError(validation_problems(error)) from None
    except ValueError as error:
        raise InvalidInputError(str(error)) from None
