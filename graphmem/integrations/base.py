"""What every agent-framework integration shares: whose memory, which faces, the tools' texts.

A run names its user and conversation with a `MemoryContext` (owner, session), passed the way
its framework passes a run's context; nothing is read from a global. Each integration takes
any of graphmem's faces: `GraphMem`, `AsyncGraphMem`, `GraphMemClient`, `AsyncGraphMemClient`;
`awaitable` gives the verbs an integration awaits from any of them (a synchronous face's in a
worker thread). The tools' texts are made here, so that a model reads the same answer whatever
framework asks: a recall rendered with the message each memory came from (which
`forget_message` takes), a forgetting's outcome, the profile.

A recall an integration puts into the model's input by itself goes there as `Recall.rendered`,
exactly, under REMEMBERED (`with_remembered`), once what the input already says is left out
(`unseen`). When the recall found nothing relevant (its confidence below `min_confidence`),
that text is put in too, saying so (NOTHING_RELEVANT, after the profile lines the budget
chose): the model then knows that its memory was searched and holds nothing on the question,
rather than reading nothing and guessing, and has no weak memory to take for a relevant one.
"""

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from graphmem.aio import AsyncGraphMem
from graphmem.client import AsyncGraphMemClient, GraphMemClient
from graphmem.contract import MIN_CONFIDENCE, Forgotten, Observation, Profile, Recall
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem
from graphmem.model import Turn

Memory = GraphMem | AsyncGraphMem | GraphMemClient | AsyncGraphMemClient
"""The faces an integration takes: in process or over HTTP, synchronous or awaitable."""

RECALL_TOKENS = 1000
"""The token budget of a recall that a tool or the instructions put before the model."""


RECALL_TOOL = (
    "Recall what you remember that relates to a query (a question or topic, in the user's"
    " words): the memories, best first, each with when it was said, and the messages they were"
    " said in."
)
FORGET_TOOL = (
    "Forget a message the user wants forgotten, given its id as recall_memory lists it, with"
    " everything derived only from it."
)
PROFILE_TOOL = (
    "Who the user is, as you remember: facts by slot, conjectures with their belief, ongoing"
    " events. Cheap: call it at a conversation's start."
)
"""The tools' descriptions, which the model reads: the same in every framework."""


@dataclass(frozen=True)
class MemoryContext:
    """Whose memory a run uses: the owner (the user) and the session (the conversation).

    Subclass it to carry a run's other context beside it.
    """

    owner: str
    session: str = ""


def memory_context(context: object) -> MemoryContext:
    """The run's context as a MemoryContext, else InvalidInputError naming what came instead."""
    if not isinstance(context, MemoryContext):
        raise InvalidInputError(
            "the run's context must be a graphmem MemoryContext(owner, session) or a subclass,"
            f" not {type(context).__name__}"
        )
    return context


class AsyncMemory(Protocol):
    """The verbs an integration awaits, as AsyncGraphMem and AsyncGraphMemClient offer them."""

    async def observe_many(
        self, owner: str, items: Sequence[Mapping[str, Any]]
    ) -> list[Observation]:
        """GraphMem.observe_many."""

    async def recall(
        self,
        owner: str,
        query: str,
        *,
        max_tokens: int | None = None,
        min_confidence: float = MIN_CONFIDENCE,
    ) -> Recall:
        """GraphMem.recall."""

    async def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """GraphMem.turns."""

    async def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """GraphMem.forget_message."""

    async def profile(self, owner: str) -> Profile:
        """GraphMem.profile."""


class _InThread:
    """A synchronous face whose verbs are awaited in a worker thread each."""

    def __init__(self, memory: GraphMem | GraphMemClient) -> None:
        self._memory = memory

    async def observe_many(
        self, owner: str, items: Sequence[Mapping[str, Any]]
    ) -> list[Observation]:
        """GraphMem.observe_many, in a worker thread."""
        return await asyncio.to_thread(self._memory.observe_many, owner, items)

    async def recall(
        self,
        owner: str,
        query: str,
        *,
        max_tokens: int | None = None,
        min_confidence: float = MIN_CONFIDENCE,
    ) -> Recall:
        """GraphMem.recall, in a worker thread."""
        return await asyncio.to_thread(
            self._memory.recall,
            owner,
            query,
            max_tokens=max_tokens,
            min_confidence=min_confidence,
        )

    async def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """GraphMem.turns, in a worker thread."""
        return await asyncio.to_thread(self._memory.turns, owner, session=session, last=last)

    async def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """GraphMem.forget_message, in a worker thread."""
        return await asyncio.to_thread(self._memory.forget_message, owner, message_id)

    async def profile(self, owner: str) -> Profile:
        """GraphMem.profile, in a worker thread."""
        return await asyncio.to_thread(self._memory.profile, owner)


def awaitable(memory: Memory) -> AsyncMemory:
    """The face's verbs to await: an awaitable face as it is, a synchronous one in threads."""
    if isinstance(memory, GraphMem | GraphMemClient):
        return _InThread(memory)
    return memory


def synchronous(memory: Memory) -> GraphMem | GraphMemClient:
    """The face's synchronous verbs: AsyncGraphMem's own GraphMem; none for the async client."""
    if isinstance(memory, AsyncGraphMemClient):
        raise InvalidInputError(
            "an AsyncGraphMemClient serves only awaited runs: give a GraphMemClient for"
            " synchronous ones"
        )
    return memory.memory if isinstance(memory, AsyncGraphMem) else memory


def unseen(recall: Recall, seen: Collection[str]) -> Recall:
    """The recall without the memories whose text the model already reads in its input.

    An agent's input holds its conversation, and a session stores a message before the model
    answers it: a recall of the latest message finds that very message, and often the turns
    before it. They are left out (with the links and evocations that were theirs), so what a
    recall adds to the prompt is what the prompt lacks.
    """
    texts = set(seen)
    memories = [item for item in recall.memories if item.memory.text not in texts]
    kept = {item.memory.id for item in memories}
    return recall.model_copy(
        update={
            "memories": memories,
            "links": [link for link in recall.links if {link.source, link.target} <= kept],
            "impressions": [
                impression.model_copy(
                    update={
                        "memories": [memory for memory in impression.memories if memory in kept]
                    }
                )
                for impression in recall.impressions
                if kept.intersection(impression.memories)
            ],
        }
    )


def recalled_text(recall: Recall) -> str:
    """A recall tool's answer: the recall's rendered text, then each memory's messages."""
    if not recall.rendered:
        return "(no related memories)"
    sources = [
        f"[{number}] " + ", ".join(turn.id for turn in item.turns)
        for number, item in enumerate(recall.memories, start=1)
        if item.turns
    ]
    said_in = ["said in messages (for forget_message): " + "; ".join(sources)] if sources else []
    return "\n".join([recall.rendered, *said_in])


REMEMBERED = "What you remember that relates to the user's latest message (dated, best first):"
"""The heading of a recall put after the instructions."""


def with_remembered(instructions: str | None, remembered: str) -> str | None:
    """The instructions with a recall's `rendered` text after them, under REMEMBERED (if any)."""
    if not remembered:
        return instructions
    return "\n\n".join(filter(None, [instructions, f"{REMEMBERED}\n{remembered}"]))


def forgotten_text(forgotten: Forgotten) -> str:
    """What forgetting a message did, for a model to read."""
    if not forgotten.found:
        return f"there is no message {forgotten.message_id!r} to forget"
    deleted = sum(forgotten.deleted.values())
    return f"forgot message {forgotten.message_id!r}: {deleted} nodes deleted"


def profile_text(profile: Profile) -> str:
    """The profile for a model to read."""
    return profile.render() or "(nothing known about the user yet)"
