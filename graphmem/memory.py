"""The facade an agent holds: observe what it perceives, recall what relates to a query."""

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from graphmem.config import Settings
from graphmem.embedding import CachedEmbedder, E5Embedder, Embedder, OpenAIEmbedder
from graphmem.errors import ConfigurationError, ConflictError, InvalidInputError
from graphmem.mechanisms.attention import initial_attention
from graphmem.model import Memory, MemoryKind, Tier, Turn, check_owner, check_text
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.base import Store
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.networkx import NetworkXStore

MAX_RECALL = 100
"""The most memories one recall returns."""

NEUTRAL_IMPORTANCE = 5.0
"""Importance of a new memory until the cognition port labels attention (DESIGN.md, mechanism 1)."""

MEMORY_IDS = uuid.UUID("6f3a1c52-4b8e-4f0e-9d0a-2f6c1b9e7a31")
"""Namespace of derived memory ids: the same turn always derives the same ids."""

T = TypeVar("T")


class Observation(BaseModel):
    """What `observe` stored: the turn and the memories derived from it."""

    model_config = ConfigDict(frozen=True)

    turn: Turn
    memories: list[Memory]


class RecalledMemory(BaseModel):
    """A recalled memory with why it was chosen and the turns it came from."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    similarity: float
    turns: list[Turn]


class Recall(BaseModel):
    """The answer to a recall: the owner's memories best related to the query, best first."""

    model_config = ConfigDict(frozen=True)

    owner: str
    query: str
    memories: list[RecalledMemory]

    def render(self) -> str:
        """A compact text of the recalled memories for a prompt, one line each."""
        return "\n".join(
            f"- [{item.memory.created_at:%Y-%m-%d %H:%M}] {item.memory.text}"
            for item in self.memories
        )


@contextmanager
def _as_invalid_input() -> Iterator[None]:
    """Report validation failures of caller input as InvalidInputError."""
    try:
        yield
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, item['loc'])) or 'input'}: "
            + item["msg"].removeprefix("Value error, ")
            for item in error.errors()
        )
        raise InvalidInputError(problems) from None
    except ValueError as error:
        raise InvalidInputError(str(error)) from None


def _checked(check: Callable[[T], T], value: T) -> T:
    """Run a model check on caller input, reporting failure as InvalidInputError."""
    with _as_invalid_input():
        return check(value)


class GraphMem:
    """Long-term memory for an agent: `observe` every perceived item, `recall` before answering.

    It owns the store and the embedder it is given: `close()` closes both.
    """

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder

    @classmethod
    def open(cls, settings: Settings | None = None) -> "GraphMem":
        """Open the store and embedder the settings name (from GRAPHMEM_* when not given)."""
        settings = Settings.from_env() if settings is None else settings
        embedder = CachedEmbedder(_embedder(settings), settings.embedding_cache)
        store: Store
        if settings.store == "neo4j":
            if settings.neo4j_password is None:
                raise ConfigurationError("the neo4j store needs GRAPHMEM_NEO4J_PASSWORD")
            store = Neo4jStore.connect(
                settings.neo4j_uri,
                settings.neo4j_user,
                settings.neo4j_password,
                settings.neo4j_database,
            )
        else:
            store = NetworkXStore.open(settings.path)
        store.prepare(embedder.dimensions)
        return cls(store, embedder)

    def observe(
        self,
        owner: str,
        text: str,
        *,
        message_id: str | None = None,
        at: datetime | None = None,
        speaker: str = "user",
        session: str | None = None,
    ) -> Observation:
        """Store a perceived item as a Turn and derive its Memory; one message id stores once."""
        with _as_invalid_input():
            turn = Turn(
                id=message_id if message_id is not None else str(uuid.uuid4()),
                owner=owner,
                text=text,
                created_at=at if at is not None else datetime.now(UTC),
                speaker=speaker,
                session=session,
            )
        stored = self._store.save_turn(turn)
        if stored.text != turn.text:
            raise ConflictError(
                f"message id {turn.id!r} of owner {owner} is already stored with another text"
            )
        memory = self._observation_memory(stored)
        self._store.save_memories(stored, [memory])
        return Observation(turn=stored, memories=[memory])

    def recall(self, owner: str, query: str, *, k: int = 10) -> Recall:
        """The owner's k memories most related to the query, with their source turns."""
        _checked(check_owner, owner)
        _checked(check_text, query)
        if not 1 <= k <= MAX_RECALL:
            raise InvalidInputError(f"k is {k}; it must be between 1 and {MAX_RECALL}")
        [embedding] = self._embedder.embed([query], "query")
        found = self._store.find_similar_memories(owner, embedding, k)
        return Recall(
            owner=owner,
            query=query,
            memories=[
                RecalledMemory(memory=item.memory, similarity=item.similarity, turns=item.turns)
                for item in found
            ],
        )

    def close(self) -> None:
        """Close the store (writing its last snapshot) and the embedder."""
        self._store.close()
        self._embedder.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _observation_memory(self, turn: Turn) -> Memory:
        """The observation memory a turn derives: its text, embedded, at neutral importance."""
        [embedding] = self._embedder.embed([turn.text], "passage")
        return Memory(
            id=str(uuid.uuid5(MEMORY_IDS, f"{turn.owner}\n{turn.id}\n{MemoryKind.OBSERVATION}")),
            owner=turn.owner,
            text=turn.text,
            created_at=turn.created_at,
            kind=MemoryKind.OBSERVATION,
            importance=NEUTRAL_IMPORTANCE,
            attention=initial_attention(NEUTRAL_IMPORTANCE, turn.created_at),
            tier=Tier.HOT,
            embedding=embedding,
            accessed_at=turn.created_at,
        )


def _embedder(settings: Settings) -> Embedder:
    """The embedder the settings name."""
    if settings.embedder == "openai":
        if settings.openai_api_key is None:
            raise ConfigurationError("the openai embedder needs GRAPHMEM_OPENAI_API_KEY")
        endpoint = OpenAIEndpoint(
            settings.openai_base_url,
            settings.openai_api_key,
            timeout_seconds=settings.openai_timeout_seconds,
            max_retries=settings.openai_max_retries,
        )
        return OpenAIEmbedder(
            endpoint, settings.openai_embedding_model, settings.openai_embedding_dimensions
        )
    return E5Embedder()
