"""graphmem as the memory of a LangChain agent (`pip install 'graphmem[langchain]'`).

For `create_agent(..., middleware=[GraphMemMiddleware(memory)], context_schema=MemoryContext)`,
each run invoked with `context=MemoryContext(owner, session)`:
- before the model is called, the user's latest message is recalled (within `max_tokens`
  tokens, no memory below `min_confidence`; base.unseen leaves out what the messages already
  say) and the recall's subgraph kept in the state (`graphmem_recall`, `Recall.as_json()`), its
  rendered text (`graphmem_context`, `Recall.rendered`, which says so when nothing relevant was
  found) added to the system message;
- after the model answered, the new messages (the user's since the model's last answer, and
  the answer when it has text) are observed as turns of the owner's session, by their ids.
`memory_tools(memory)` are the tools recall_memory, forget_message and profile for the run
context's owner. Both work in `invoke` and `ainvoke` (synchronous runs need a synchronous face or
AsyncGraphMem).

No `BaseStore`: its contract is a key-value store whose `put` keeps a value under a key, `get`
returns it unchanged and `search` filters values by their fields; graphmem keeps messages and
derives memories from them (a turn is immutable, a memory's text is the model's, attention
changes on every recall), so it could honour neither `get` after `put` nor a field filter.

Imports `langchain`, `langchain_core` and `langgraph` here only.
"""

import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NotRequired, cast

from langchain.agents import AgentState
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.tools import BaseTool, ToolRuntime
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.tools import StructuredTool
from langgraph.runtime import Runtime

from graphmem.contract import MIN_CONFIDENCE, Recall
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
    synchronous,
    unseen,
    with_remembered,
)


class GraphMemState(AgentState[Any]):
    """The agent's state with the latest recall: its subgraph, and its text for the prompt."""

    graphmem_recall: NotRequired[dict[str, Any]]
    graphmem_context: NotRequired[str]


def latest_question(messages: Sequence[AnyMessage]) -> str | None:
    """The text of the latest user message, if any has text."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and message.text.strip():
            return message.text
    return None


def new_messages(messages: Sequence[AnyMessage], session: str) -> list[dict[str, Any]]:
    """What to observe after a model call: its answer and the user's messages since its last.

    Each as an item of `observe_many`, with the message's own id (so a message observed again
    is stored once); messages without text (a bare tool call) are left out.
    """
    answer = len(messages) - 1
    earlier = next(
        (place for place in range(answer - 1, -1, -1) if isinstance(messages[place], AIMessage)),
        -1,
    )
    said = [
        message
        for message in messages[earlier + 1 :]
        if isinstance(message, HumanMessage | AIMessage) and message.text.strip()
    ]
    return [
        {
            "text": message.text,
            "speaker": "assistant" if isinstance(message, AIMessage) else "user",
            "session": session,
            "message_id": message.id or str(uuid.uuid4()),
        }
        for message in said
    ]


def texts_of(messages: Sequence[AnyMessage]) -> list[str]:
    """The texts of the messages the model reads."""
    return [message.text for message in messages]


def recalled_state(recall: Recall, messages: Sequence[AnyMessage]) -> dict[str, Any]:
    """The state update that holds a recall of what the messages lack: subgraph and text."""
    news = unseen(recall, texts_of(messages))
    return {"graphmem_recall": news.as_json(), "graphmem_context": news.rendered}


def with_context(request: ModelRequest[Any]) -> ModelRequest[Any]:
    """The model request with the state's recalled text after its system message."""
    remembered = cast("GraphMemState", request.state).get("graphmem_context", "")
    given = None if request.system_message is None else request.system_message.text
    instructions = with_remembered(given, remembered)
    if instructions is None or instructions == given:
        return request
    return request.override(system_message=SystemMessage(instructions))


class GraphMemMiddleware(AgentMiddleware[GraphMemState, MemoryContext, Any]):
    """Recall before the model, the recall into the system message, observe after the model.

    A run calls the model again after each tool call with the same latest user message: the
    recall in the state is kept for it, so a message recalls (and wakes its memories) once.
    """

    state_schema = GraphMemState

    def __init__(
        self,
        memory: Memory,
        *,
        max_tokens: int = RECALL_TOKENS,
        min_confidence: float = MIN_CONFIDENCE,
    ) -> None:
        super().__init__()
        self._memory = memory
        self._max_tokens = max_tokens
        self._min_confidence = min_confidence

    def _question(self, state: GraphMemState) -> str | None:
        """The latest user message if the state holds no recall of it yet."""
        question = latest_question(state["messages"])
        if question is None or state.get("graphmem_recall", {}).get("query") == question:
            return None
        return question

    def before_model(
        self, state: GraphMemState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Recall the user's latest message into the state."""
        question = self._question(state)
        if question is None:
            return None
        owner = memory_context(runtime.context).owner
        recall = synchronous(self._memory).recall(
            owner, question, max_tokens=self._max_tokens, min_confidence=self._min_confidence
        )
        return recalled_state(recall, state["messages"])

    async def abefore_model(
        self, state: GraphMemState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Recall the user's latest message into the state, awaited."""
        question = self._question(state)
        if question is None:
            return None
        owner = memory_context(runtime.context).owner
        recall = await awaitable(self._memory).recall(
            owner, question, max_tokens=self._max_tokens, min_confidence=self._min_confidence
        )
        return recalled_state(recall, state["messages"])

    def wrap_model_call(
        self,
        request: ModelRequest[MemoryContext],
        handler: Callable[[ModelRequest[MemoryContext]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with the recalled text after the system message."""
        return handler(with_context(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[MemoryContext],
        handler: Callable[[ModelRequest[MemoryContext]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Call the model with the recalled text after the system message, awaited."""
        return await handler(with_context(request))

    def after_model(
        self, state: GraphMemState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Observe the model's answer and the user's messages before it."""
        context = memory_context(runtime.context)
        items = new_messages(state["messages"], context.session)
        if items:
            synchronous(self._memory).observe_many(context.owner, items)
        return None

    async def aafter_model(
        self, state: GraphMemState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Observe the model's answer and the user's messages before it, awaited."""
        context = memory_context(runtime.context)
        items = new_messages(state["messages"], context.session)
        if items:
            await awaitable(self._memory).observe_many(context.owner, items)
        return None


def memory_tools(
    memory: Memory, *, max_tokens: int = RECALL_TOKENS, min_confidence: float = MIN_CONFIDENCE
) -> list[BaseTool]:
    """The tools recall_memory, forget_message and profile, for the run context's owner."""

    def recall_memory(query: str, runtime: ToolRuntime[MemoryContext]) -> str:
        owner = memory_context(runtime.context).owner
        recall = synchronous(memory).recall(
            owner, query, max_tokens=max_tokens, min_confidence=min_confidence
        )
        return recalled_text(unseen(recall, texts_of(runtime.state["messages"])))

    async def arecall_memory(query: str, runtime: ToolRuntime[MemoryContext]) -> str:
        owner = memory_context(runtime.context).owner
        recall = await awaitable(memory).recall(
            owner, query, max_tokens=max_tokens, min_confidence=min_confidence
        )
        return recalled_text(unseen(recall, texts_of(runtime.state["messages"])))

    def forget_message(message_id: str, runtime: ToolRuntime[MemoryContext]) -> str:
        owner = memory_context(runtime.context).owner
        return forgotten_text(synchronous(memory).forget_message(owner, message_id))

    async def aforget_message(message_id: str, runtime: ToolRuntime[MemoryContext]) -> str:
        owner = memory_context(runtime.context).owner
        return forgotten_text(await awaitable(memory).forget_message(owner, message_id))

    def profile(runtime: ToolRuntime[MemoryContext]) -> str:
        return profile_text(synchronous(memory).profile(memory_context(runtime.context).owner))

    async def aprofile(runtime: ToolRuntime[MemoryContext]) -> str:
        owner = memory_context(runtime.context).owner
        return profile_text(await awaitable(memory).profile(owner))

    tools: list[tuple[str, str, Callable[..., str], Callable[..., Awaitable[str]]]] = [
        ("recall_memory", RECALL_TOOL, recall_memory, arecall_memory),
        ("forget_message", FORGET_TOOL, forget_message, aforget_message),
        ("profile", PROFILE_TOOL, profile, aprofile),
    ]
    return [
        StructuredTool.from_function(
            func=function, coroutine=coroutine, name=name, description=description
        )
        for name, description, function, coroutine in tools
    ]
