"""graphmem as the memory of an OpenAI Agents SDK agent (`pip install 'graphmem[openai-agents]'`).

Three pieces, each usable alone:
- `GraphMemSession(memory, MemoryContext(owner, session))`, the SDK's `Session`: the messages of
  each run (the user's input and the agent's answers) are observed as turns of the owner's
  session, in order, so the memory builds as the agent talks; `get_items` reads them back.
- `memory_tools(memory)`: the function tools `recall_memory`, `forget_message` and `profile`,
  for the owner the run's context names (`Runner.run(..., context=MemoryContext(...))`).
- `RecallIntoInstructions(memory)`, a `RunConfig.call_model_input_filter`: before each model
  call, what the memory recalls of the user's latest message is added to the instructions, as
  its rendered text (`Recall.rendered`, which says so when nothing relevant was found).

Imports the `agents` package here only.
"""

import uuid
from collections.abc import Mapping
from typing import Any, cast

from agents import (
    RunContextWrapper,
    Tool,
    TResponseInputItem,
    default_tool_error_function,
    function_tool,
)
from agents.memory import SessionSettings
from agents.run_config import CallModelData, ModelInputData

from graphmem.contract import MIN_CONFIDENCE
from graphmem.errors import GraphMemError
from graphmem.integrations.base import (
    FORGET_TOOL,
    PROFILE_TOOL,
    RECALL_TOKENS,
    RECALL_TOOL,
    Memory,
    MemoryContext,
    awaitable,
    forgotten_text,
    memory_context,
    profile_text,
    recalled_text,
    unseen,
    with_remembered,
)
from graphmem.model import Turn, is_agent


def said(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """The role and text of a user's or the agent's message item; None for any other item.

    A message's content is a string or a list of parts, whose texts are joined a line each;
    a message without text (an image alone) says nothing to remember.
    """
    role = item.get("role")
    if item.get("type", "message") != "message" or role not in ("user", "assistant"):
        return None
    content = item.get("content")
    if isinstance(content, str):
        text = content
    else:
        parts = content if isinstance(content, list) else []
        text = "\n".join(
            part["text"]
            for part in parts
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    return (role, text) if text.strip() else None


def messages_of(items: list[TResponseInputItem]) -> list[tuple[str, str]]:
    """The role and text of each message among input items (`said`), in order."""
    return list(filter(None, map(said, cast("list[Mapping[str, Any]]", items))))


def item_of(turn: Turn) -> TResponseInputItem:
    """A turn as the SDK's input item: the agent's own turns as "assistant", others' as "user"."""
    role = "assistant" if is_agent(turn.speaker) else "user"
    return cast("TResponseInputItem", {"role": role, "content": turn.text})


class GraphMemSession:
    """The SDK's Session, kept as the turns of one session of one owner in graphmem.

    What is kept is what was said: user and assistant messages, observed as turns (speaker
    "user" or "assistant", a new message id each) in the order the SDK adds them. Tool calls,
    their outputs and reasoning items are a run's working state, not memories: they are not
    kept, so `get_items` gives back the conversation's messages only. `pop_item` and
    `clear_session` forget turns as `forget_message` does, with what derives only from them.
    """

    session_settings: SessionSettings | None = None

    def __init__(self, memory: Memory, context: MemoryContext) -> None:
        self._memory = awaitable(memory)
        self._owner = context.owner
        self.session_id = context.session

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's messages in order: all, or the latest `limit`."""
        turns = await self._memory.turns(self._owner, session=self.session_id, last=limit)
        return [item_of(turn) for turn in turns]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Observe the message items as the session's next turns, in one call."""
        messages = [
            {
                "text": text,
                "speaker": role,
                "session": self.session_id,
                "message_id": str(uuid.uuid4()),
            }
            for role, text in messages_of(items)
        ]
        if messages:
            await self._memory.observe_many(self._owner, messages)

    async def pop_item(self) -> TResponseInputItem | None:
        """Forget the session's latest turn and return it; None when the session is empty."""
        latest = await self._memory.turns(self._owner, session=self.session_id, last=1)
        if not latest:
            return None
        await self._memory.forget_message(self._owner, latest[0].id)
        return item_of(latest[0])

    async def clear_session(self) -> None:
        """Forget every turn of the session, with what derives only from them."""
        for turn in await self._memory.turns(self._owner, session=self.session_id):
            await self._memory.forget_message(self._owner, turn.id)


def told_to_model(wrapper: RunContextWrapper[Any], error: Exception) -> str:
    """A graphmem error as the model reads it (it names the problem); others as the SDK says."""
    if isinstance(error, GraphMemError):
        return f"graphmem refused: {error}"
    return default_tool_error_function(wrapper, error)


def memory_tools(
    memory: Memory, *, max_tokens: int = RECALL_TOKENS, min_confidence: float = MIN_CONFIDENCE
) -> list[Tool]:
    """The tools recall_memory, forget_message and profile, for the run context's owner.

    A graphmem error (a query it refuses, a run without a MemoryContext) is told to the model.
    """
    remembering = awaitable(memory)

    @function_tool(description_override=RECALL_TOOL, failure_error_function=told_to_model)
    async def recall_memory(wrapper: RunContextWrapper[Any], query: str) -> str:
        """The owner's recall of the query, for the model."""
        owner = memory_context(wrapper.context).owner
        recall = await remembering.recall(
            owner, query, max_tokens=max_tokens, min_confidence=min_confidence
        )
        seen = [text for _, text in messages_of(wrapper.turn_input)]
        return recalled_text(unseen(recall, seen))

    @function_tool(description_override=FORGET_TOOL, failure_error_function=told_to_model)
    async def forget_message(wrapper: RunContextWrapper[Any], message_id: str) -> str:
        """Forget the owner's message, for the model."""
        owner = memory_context(wrapper.context).owner
        return forgotten_text(await remembering.forget_message(owner, message_id))

    @function_tool(description_override=PROFILE_TOOL, failure_error_function=told_to_model)
    async def profile(wrapper: RunContextWrapper[Any]) -> str:
        """The owner's profile, for the model."""
        owner = memory_context(wrapper.context).owner
        return profile_text(await remembering.profile(owner))

    return [recall_memory, forget_message, profile]


class RecallIntoInstructions:
    """A `RunConfig.call_model_input_filter` that adds what the user's latest message recalls.

    Before each model call, the run context's owner recalls the latest user message of the
    input (within `max_tokens` tokens, no memory below `min_confidence`), and its rendered text
    goes after the instructions (base.with_remembered), without what the input already says
    (base.unseen). A run calls the model again after each tool call with the same messages: the
    recall of the last owner and messages is kept and given again, so a run recalls (and wakes
    its memories) once.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        max_tokens: int = RECALL_TOKENS,
        min_confidence: float = MIN_CONFIDENCE,
    ) -> None:
        self._memory = awaitable(memory)
        self._max_tokens = max_tokens
        self._min_confidence = min_confidence
        self._last: tuple[tuple[str, ...], str] | None = None

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The model's input unchanged, its instructions with the recall after them."""
        given = data.model_data
        owner = memory_context(data.context).owner
        messages = messages_of(given.input)
        latest = [text for role, text in messages if role == "user"][-1:]
        if not latest:
            return given
        conversation = [text for _, text in messages]
        key = (owner, *conversation)
        if self._last is None or self._last[0] != key:
            recall = await self._memory.recall(
                owner,
                latest[0],
                max_tokens=self._max_tokens,
                min_confidence=self._min_confidence,
            )
            self._last = (key, unseen(recall, conversation).rendered)
        instructions = with_remembered(given.instructions, self._last[1])
        return ModelInputData(input=given.input, instructions=instructions)
