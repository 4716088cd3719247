"""AsyncGraphMem: the facade's verbs awaitable, many at once, on both stores."""

import asyncio
import inspect
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from graphmem.aio import AsyncGraphMem
from graphmem.contract import GraphCounts
from graphmem.embedding import CachedEmbedder, Purpose
from graphmem.memory import GraphMem
from graphmem.model import Memory, Turn
from graphmem.store.base import Store

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
TEXTS = [
    "Penguins waddle across frozen Antarctic ice.",
    "Violins need rosin on their bows.",
    "Volcanoes erupt molten basalt lava.",
    "Sourdough bread rises overnight slowly.",
    "Comets trail glowing dust tails.",
    "Bicycles require tyre pumps sometimes.",
    "Orchids bloom in humid greenhouses.",
    "Glaciers carve deep fjords gradually.",
    "Chess openings reward careful study.",
    "Lighthouses guide ships along coasts.",
]
"""Ten messages with no content word in common, so no one's label depends on another's."""


def graph_of(memory: GraphMem, owner: str) -> tuple[set[tuple[str, str]], set[tuple[str, float]]]:
    """An owner's turns (id, text) and observations (text, importance), apart from ids."""
    graph = memory.export(owner)
    turns = {(node.id, node.text) for node in graph.nodes if isinstance(node, Turn)}
    memories = {
        (node.text, node.importance)
        for node in graph.nodes
        if isinstance(node, Memory) and node.kind == "observation"
    }
    return turns, memories


def test_every_verb_of_graphmem_is_awaitable_with_the_same_arguments() -> None:
    public = {
        name
        for name, _function in inspect.getmembers(GraphMem, inspect.isfunction)
        if not name.startswith("_") and name not in {"open", "close"}
    }
    for name in public:
        mirrored = getattr(AsyncGraphMem, name)
        assert inspect.iscoroutinefunction(mirrored), name
        assert inspect.signature(mirrored) == inspect.signature(getattr(GraphMem, name)).replace(
            return_annotation=inspect.signature(mirrored).return_annotation
        ), name


def test_the_async_memory_opens_with_the_arguments_of_graphmem_open_and_its_workers() -> None:
    opened = inspect.signature(AsyncGraphMem.open).parameters
    assert list(opened) == [*inspect.signature(GraphMem.open).parameters, "workers"]
    for name, parameter in inspect.signature(GraphMem.open).parameters.items():
        assert opened[name].default == parameter.default, name
        assert opened[name].kind == parameter.kind, name


def test_twenty_concurrent_calls_for_two_owners_store_what_one_by_one_does(
    memory: GraphMem, owner: str
) -> None:
    async def work(aio: AsyncGraphMem, name: str, index: int) -> list[str]:
        at = START + timedelta(minutes=index)
        await aio.observe(name, TEXTS[index], message_id=f"m{index}", at=at)
        found = await aio.recall(name, TEXTS[index], peek=True, at=at)
        return [item.memory.text for item in found.memories]

    async def together() -> list[list[str]]:
        aio = AsyncGraphMem(memory, workers=8)
        calls = [work(aio, f"{owner}-{side}", index) for side in "ab" for index in range(10)]
        return await asyncio.gather(*calls)

    found = asyncio.run(together())
    assert all(TEXTS[index] in found[side * 10 + index] for side in (0, 1) for index in range(10))
    for index, text in enumerate(TEXTS):
        memory.observe(
            f"{owner}-c", text, message_id=f"m{index}", at=START + timedelta(minutes=index)
        )
    alone = graph_of(memory, f"{owner}-c")
    assert graph_of(memory, f"{owner}-a") == alone
    assert graph_of(memory, f"{owner}-b") == alone
    assert len(alone[0]) == 10


class HeldEmbedder:
    """The tests' embedder, held at its first call until the test releases it."""

    def __init__(self, inner: CachedEmbedder) -> None:
        self._inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.started = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Say the call started, wait for the release, then embed."""
        self.started.set()
        self.release.wait()
        return self._inner.embed(texts, purpose)

    def close(self) -> None:
        """Nothing to release."""


def test_a_cancelled_call_leaves_the_whole_effect_or_none(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    held = HeldEmbedder(embedder)
    aio = AsyncGraphMem(GraphMem(store, held), workers=1)

    async def cancel_each() -> GraphCounts:
        tasks = [
            asyncio.ensure_future(aio.observe(owner, text, message_id=f"c{index}", at=START))
            for index, text in enumerate(TEXTS)
        ]
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, held.started.wait)  # the first observe is running
        for task in tasks:
            task.cancel()
        # Every caller sees its call cancelled before the running one may end: the calls still
        # queued are withdrawn from the pool first (asyncio does so before it wakes a caller),
        # so none can start in the worker once the first is released.
        await asyncio.wait(tasks)
        held.release.set()
        return await aio.statistics(owner)  # runs after the running observe: one worker

    counts = asyncio.run(cancel_each())
    assert all(task_count == 1 for task_count in (counts.nodes["Turn"], counts.nodes["Memory"]))
    turns, memories = graph_of(aio.memory, owner)
    assert turns == {("c0", TEXTS[0])}  # the running call's whole effect; the others' none
    assert {text for text, _importance in memories} == {TEXTS[0]}


def test_an_awaited_observe_says_when_its_message_was_already_stored(
    memory: GraphMem, owner: str
) -> None:
    async def twice() -> list[bool]:
        aio = AsyncGraphMem(memory, workers=2)
        first = await aio.observe(owner, TEXTS[0], message_id="m0", at=START)
        again = await aio.observe_many(
            owner, [{"text": TEXTS[0], "message_id": "m0"}, {"text": TEXTS[1]}]
        )
        return [first.already_stored, *(observed.already_stored for observed in again)]

    assert asyncio.run(twice()) == [False, True, False]
