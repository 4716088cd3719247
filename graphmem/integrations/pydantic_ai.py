"""graphmem as the memory of a Pydantic AI agent (`pip install 'graphmem[pydantic-ai]'`).

`Agent(model, deps_type=MemoryContext, capabilities=[GraphMemCapability(memory)])`, each run
given `deps=MemoryContext(owner, session)` (the dependency that says whose memory it is):
- instructions: what the run's prompt recalls (within `max_tokens` tokens, no memory below
  `min_confidence`), its rendered text (`Recall.rendered`, which says so when nothing relevant
  was found) after the agent's own instructions (base.with_remembered);
- tools: recall_memory, forget_message and profile, for the owner of the run's deps; a
  graphmem error there goes back to the model as a retry, naming the problem;
- after the run, its new messages (the user's prompts, the model's texts) are observed as turns
  of the owner's session.
A conversation's history stays the caller's (`message_history=`), as Pydantic AI keeps it.

Imports `pydantic_ai` here only.
"""

import uuid
from dataclasses import dataclass
from typing import Any

from pydantic_ai import AgentRunResult, FunctionToolset, ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart

from graphmem.contract import MIN_CONFIDENCE
from graphmem.errors import GraphMemError
from graphmem.integrations.base import (
    FORGET_TOOL,
    PROFILE_TOOL,
    RECALL_TOKENS,
    RECALL_TOOL,
    AsyncMemory,
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


def prompt_text(prompt: object) -> str:
    """The text of a user prompt: a string, or the strings among its parts, a line each."""
    if isinstance(prompt, str):
        return prompt
    parts = prompt if isinstance(prompt, list | tuple) else []
    return "\n".join(part for part in parts if isinstance(part, str))


def spoken(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    """The speaker and text of the user's prompts and the model's texts among messages."""
    said: list[tuple[str, str]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            said += [
                ("user", prompt_text(part.content))
                for part in message.parts
                if isinstance(part, UserPromptPart)
            ]
        elif isinstance(message, ModelResponse) and message.text:
            said.append(("assistant", message.text))
    return [(speaker, text) for speaker, text in said if text.strip()]


def said_in(messages: list[ModelMessage], session: str) -> list[dict[str, Any]]:
    """The user's prompts and the model's texts among a run's messages, as items to observe."""
    return [
        {"text": text, "speaker": speaker, "session": session, "message_id": str(uuid.uuid4())}
        for speaker, text in spoken(messages)
    ]


def texts_of(messages: list[ModelMessage]) -> list[str]:
    """The texts of the user's prompts and the model's answers among messages."""
    return [text for _, text in spoken(messages)]


def memory_toolset(
    memory: Memory, *, max_tokens: int = RECALL_TOKENS, min_confidence: float = MIN_CONFIDENCE
) -> FunctionToolset[Any]:
    """The tools recall_memory, forget_message and profile, for the owner of the run's deps."""
    remembering = awaitable(memory)
    toolset = FunctionToolset[Any]()

    @toolset.tool(name="recall_memory", description=RECALL_TOOL)
    async def recall_memory(ctx: RunContext[MemoryContext], query: str) -> str:
        owner = memory_context(ctx.deps).owner
        try:
            recall = await remembering.recall(
                owner, query, max_tokens=max_tokens, min_confidence=min_confidence
            )
        except GraphMemError as error:
            raise ModelRetry(f"graphmem refused: {error}") from error
        return recalled_text(unseen(recall, texts_of(ctx.messages)))

    @toolset.tool(name="forget_message", description=FORGET_TOOL)
    async def forget_message(ctx: RunContext[MemoryContext], message_id: str) -> str:
        owner = memory_context(ctx.deps).owner
        try:
            return forgotten_text(await remembering.forget_message(owner, message_id))
        except GraphMemError as error:
            raise ModelRetry(f"graphmem refused: {error}") from error

    @toolset.tool(name="profile", description=PROFILE_TOOL)
    async def profile(ctx: RunContext[MemoryContext]) -> str:
        return profile_text(await remembering.profile(memory_context(ctx.deps).owner))

    return toolset


@dataclass(init=False)
class GraphMemCapability(AbstractCapability[Any]):
    """The memory's instructions, tools and observing, as one capability of an agent.

    The instructions are asked for before each model request of a run: the recall of the last
    (owner, run) is kept and given again, so a run recalls (and wakes its memories) once.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        max_tokens: int = RECALL_TOKENS,
        min_confidence: float = MIN_CONFIDENCE,
    ) -> None:
        self._memory: AsyncMemory = awaitable(memory)
        self._max_tokens = max_tokens
        self._min_confidence = min_confidence
        self._toolset = memory_toolset(memory, max_tokens=max_tokens, min_confidence=min_confidence)
        self._last: tuple[tuple[str, str], str | None] | None = None

    def get_instructions(self) -> Any:
        """The instruction that adds what the run's prompt recalls."""
        return self._remembered

    def get_toolset(self) -> FunctionToolset[Any]:
        """The memory's tools."""
        return self._toolset

    async def _remembered(self, ctx: RunContext[MemoryContext]) -> str | None:
        """What the run's prompt recalls, under REMEMBERED; None when it recalls nothing."""
        owner = memory_context(ctx.deps).owner
        prompt = prompt_text(ctx.prompt)
        if not prompt.strip():
            return None
        run = ctx.run_id or prompt
        if self._last is None or self._last[0] != (owner, run):
            recall = await self._memory.recall(
                owner, prompt, max_tokens=self._max_tokens, min_confidence=self._min_confidence
            )
            news = unseen(recall, [prompt, *texts_of(ctx.messages)])
            self._last = ((owner, run), with_remembered(None, news.rendered))
        return self._last[1]

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        """Observe the run's new messages as turns of the owner's session."""
        context = memory_context(ctx.deps)
        items = said_in(result.new_messages(), context.session)
        if items:
            await self._memory.observe_many(context.owner, items)
        return result
