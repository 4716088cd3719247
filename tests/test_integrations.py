"""The agent frameworks' own loops with graphmem as their memory, a scripted server as the model.

Each framework runs its real agent loop against graphmem.testing's OpenAI-compatible server on
127.0.0.1: a first run where the user says something worth remembering, a second run in a new
conversation where the remembered text must reach the model's request (through a tool the
scripted model calls, or through the instructions), and a forgetting after which a third run no
longer sees it. On both stores, through GraphMem and AsyncGraphMem.
"""

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    TResponseInputItem,
    set_tracing_disabled,
)
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI
from openai import AsyncOpenAI
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from graphmem.aio import AsyncGraphMem
from graphmem.contract import NOTHING_RELEVANT
from graphmem.errors import InvalidInputError
from graphmem.integrations.base import REMEMBERED, Memory, MemoryContext, recalled_text, unseen
from graphmem.integrations.langchain import GraphMemMiddleware
from graphmem.integrations.langchain import memory_tools as langchain_tools
from graphmem.integrations.openai_agents import (
    GraphMemSession,
    RecallIntoInstructions,
    memory_tools,
)
from graphmem.integrations.pydantic_ai import GraphMemCapability
from graphmem.memory import GraphMem
from graphmem.testing import ScriptedServer, chat_reply, scripted_openai_server, tool_call_reply

from .test_cli import ASKED, DAY, tell

ALLERGY = "I'm allergic to peanuts, please remember that."

set_tracing_disabled(True)  # the SDK would export traces to OpenAI's servers


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    """The scripted chat model the frameworks call."""
    with scripted_openai_server() as server:
        yield server


@pytest.fixture(params=["GraphMem", "AsyncGraphMem"])
def face(request: pytest.FixtureRequest, memory: GraphMem) -> Memory:
    """The memory each integration is given: the facade, or its awaitable twin."""
    return memory if request.param == "GraphMem" else AsyncGraphMem(memory)


def said_to(model: ScriptedServer, request: int) -> str:
    """Everything the model was sent in one request (messages and tools), as one text."""
    return json.dumps(model.requests[request]["body"]["messages"], ensure_ascii=False)


def chat_model(model: ScriptedServer) -> OpenAIChatCompletionsModel:
    """The SDK's chat-completions model at the scripted server."""
    client = AsyncOpenAI(base_url=model.base_url, api_key="scripted", max_retries=0)
    return OpenAIChatCompletionsModel(model="scripted", openai_client=client)


def test_an_agents_sdk_session_remembers_across_conversations_until_forgotten(
    face: Memory, owner: str, model: ScriptedServer
) -> None:
    agent = Agent[MemoryContext](
        name="assistant",
        instructions="You are a helpful assistant.",
        model=chat_model(model),
        tools=memory_tools(face, min_confidence=0.0),
    )
    first, second = MemoryContext(owner, "chat-1"), MemoryContext(owner, "chat-2")

    async def run(context: MemoryContext, text: str) -> str:
        session = GraphMemSession(face, context)
        result = await Runner.run(agent, text, session=session, context=context)
        return str(result.final_output)

    async def conversations() -> None:
        model.script(chat_reply("I'll remember that."))
        assert await run(first, ALLERGY) == "I'll remember that."
        history = await GraphMemSession(face, first).get_items()
        assert history == [
            {"role": "user", "content": ALLERGY},
            {"role": "assistant", "content": "I'll remember that."},
        ]
        model.script(
            tool_call_reply("recall_memory", {"query": "what can't I eat?"}),
            chat_reply("You're allergic to peanuts."),
        )
        asked = len(model.requests)
        assert await run(second, "What should I avoid eating?") == "You're allergic to peanuts."
        assert "peanuts" not in said_to(model, asked)  # a new conversation: no history
        assert ALLERGY in said_to(model, asked + 1)  # the tool's answer reached the model
        await GraphMemSession(face, first).clear_session()
        assert await GraphMemSession(face, first).get_items() == []
        model.script(
            tool_call_reply("recall_memory", {"query": "what can't I eat?"}),
            chat_reply("I don't know of any."),
        )
        asked = len(model.requests)
        await run(MemoryContext(owner, "chat-3"), "What should I avoid eating?")
        assert "recall_memory" in said_to(model, asked + 1)
        assert ALLERGY not in said_to(model, asked + 1)  # (chat-2's answer is still remembered)

    asyncio.run(conversations())


def test_the_recall_goes_into_the_instructions_when_asked(
    face: Memory, owner: str, model: ScriptedServer
) -> None:
    agent = Agent[MemoryContext](
        name="assistant", instructions="You are a helpful assistant.", model=chat_model(model)
    )
    recalling = RecallIntoInstructions(face, max_tokens=300, min_confidence=0.0)
    config = RunConfig(call_model_input_filter=recalling)

    async def conversations() -> None:
        context = MemoryContext(owner, "chat-1")
        model.script(chat_reply("Noted."))
        await Runner.run(agent, ALLERGY, session=GraphMemSession(face, context), context=context)
        model.script(chat_reply("Avoid peanuts."))
        later = MemoryContext(owner, "chat-2")
        session = GraphMemSession(face, later)  # stores the question before the model answers
        question = "Any food I should avoid?"
        await Runner.run(agent, question, context=later, session=session, run_config=config)
        [system, *_] = model.requests[-1]["body"]["messages"]
        assert system["role"] == "system"
        assert system["content"].startswith("You are a helpful assistant.\n\n" + REMEMBERED)
        assert ALLERGY in system["content"]
        assert question not in system["content"]  # the input says it already

    asyncio.run(conversations())


def test_pop_item_forgets_the_latest_turn_and_limits_read_the_end(
    face: Memory, memory: GraphMem, owner: str
) -> None:
    session = GraphMemSession(face, MemoryContext(owner, "chat"))
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "My sister is called Ada."},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Nice name!", "annotations": []}],
        },
        {"role": "user", "content": [{"type": "input_text", "text": "She is 7."}]},
    ]

    async def edits() -> None:
        await session.add_items(cast("list[TResponseInputItem]", items))
        assert await session.get_items(limit=2) == [
            {"role": "assistant", "content": "Nice name!"},
            {"role": "user", "content": "She is 7."},
        ]
        assert await session.pop_item() == {"role": "user", "content": "She is 7."}
        assert [item["content"] for item in await session.get_items()] == [  # type: ignore[typeddict-item]
            "My sister is called Ada.",
            "Nice name!",
        ]
        await session.clear_session()
        assert await session.pop_item() is None

    asyncio.run(edits())
    assert memory.statistics(owner).nodes.get("Turn", 0) == 0


def test_a_run_without_a_memory_context_is_refused_by_name(
    memory: GraphMem, owner: str, model: ScriptedServer
) -> None:
    agent = Agent[Any](name="assistant", model=chat_model(model), tools=memory_tools(memory))
    model.script(tool_call_reply("profile", {}), chat_reply("Sorry."))
    asyncio.run(Runner.run(agent, "Who am I?", context={"owner": owner}))
    assert "must be a graphmem MemoryContext" in said_to(model, 1)
    config = RunConfig(call_model_input_filter=RecallIntoInstructions(memory))
    with pytest.raises(InvalidInputError, match="MemoryContext"):
        asyncio.run(Runner.run(agent, "Hi", context={"owner": owner}, run_config=config))


def test_a_recall_for_a_model_names_the_messages_to_forget(memory: GraphMem, owner: str) -> None:
    memory.observe(owner, ALLERGY, message_id="m-allergy")
    found = memory.recall(owner, "peanuts", peek=True, min_confidence=0.0)
    text = recalled_text(found)
    assert text == f"{found.rendered}\nsaid in messages (for forget_message): [1] m-allergy"
    nobody = memory.recall(owner + "-nobody", "peanuts", min_confidence=0.0)
    assert recalled_text(nobody) == "(no related memories)"
    profiled = nobody.model_copy(
        update={"profile": ["allergy: peanuts — I'm allergic to peanuts."]}
    )
    assert recalled_text(profiled) == "allergy: peanuts — I'm allergic to peanuts."
    irrelevant = profiled.model_copy(update={"nothing_relevant": True})
    assert recalled_text(irrelevant) == irrelevant.rendered  # says so, after the profile
    assert irrelevant.rendered.splitlines() == [*irrelevant.profile, NOTHING_RELEVANT]
    assert unseen(irrelevant, [ALLERGY]).rendered == irrelevant.rendered


def test_a_langchain_agent_recalls_into_its_system_message_and_forgets_by_tool(
    face: Memory, memory: GraphMem, owner: str, model: ScriptedServer
) -> None:
    agent = create_agent(
        model=ChatOpenAI(
            model="scripted", base_url=model.base_url, api_key="scripted", max_retries=0
        ),
        tools=langchain_tools(face),
        system_prompt="You are a helpful assistant.",
        middleware=[GraphMemMiddleware(face, max_tokens=300, min_confidence=0.0)],
        context_schema=MemoryContext,
    )

    def run(session: str, text: str) -> dict[str, Any]:
        """One run of the agent's loop: invoke for GraphMem, ainvoke for AsyncGraphMem."""
        given: Any = {"messages": [{"role": "user", "content": text}]}
        context = MemoryContext(owner, session)
        if isinstance(face, GraphMem):
            return cast("dict[str, Any]", agent.invoke(given, context=context))
        return cast("dict[str, Any]", asyncio.run(agent.ainvoke(given, context=context)))

    model.script(chat_reply("I'll remember that."))
    run("thread-1", ALLERGY)
    [said, answer] = memory.turns(owner, session="thread-1")
    assert (said.speaker, said.text) == ("user", ALLERGY)
    assert (answer.speaker, answer.text) == ("assistant", "I'll remember that.")

    asked = len(model.requests)
    model.script(
        tool_call_reply("forget_message", {"message_id": said.id}), chat_reply("Forgotten.")
    )
    state = run("thread-2", "Please forget what I told you about food.")
    [system, *_] = model.requests[asked]["body"]["messages"]
    assert system["content"].startswith("You are a helpful assistant.\n\n" + REMEMBERED)
    assert ALLERGY in system["content"]  # the middleware's recall reached the model
    assert ALLERGY in [item["memory"]["text"] for item in state["graphmem_recall"]["memories"]]
    assert f"forgot message '{said.id}'" in said_to(model, asked + 1)
    assert [(turn.speaker, turn.text) for turn in memory.turns(owner, session="thread-2")] == [
        ("user", "Please forget what I told you about food."),
        ("assistant", "Forgotten."),  # the bare tool call said nothing to remember
    ]

    asked = len(model.requests)
    model.script(chat_reply("Nothing I know of."))
    run("thread-3", "What should I avoid eating?")
    assert ALLERGY not in said_to(model, asked)


def test_a_pydantic_ai_agent_recalls_by_its_capability_and_forgets_by_tool(
    face: Memory, memory: GraphMem, owner: str, model: ScriptedServer
) -> None:
    client = AsyncOpenAI(base_url=model.base_url, api_key="scripted", max_retries=0)
    agent = PydanticAgent(
        OpenAIChatModel("scripted", provider=OpenAIProvider(openai_client=client)),
        deps_type=MemoryContext,
        instructions="You are a helpful assistant.",
        capabilities=[GraphMemCapability(face, max_tokens=300, min_confidence=0.0)],
    )

    async def run(session: str, text: str) -> str:
        return (await agent.run(text, deps=MemoryContext(owner, session))).output

    async def conversations() -> None:
        model.script(chat_reply("I'll remember that."))
        assert await run("c-1", ALLERGY) == "I'll remember that."
        [said, answer] = memory.turns(owner, session="c-1")
        assert (said.speaker, said.text, answer.speaker) == ("user", ALLERGY, "assistant")

        asked = len(model.requests)
        model.script(
            tool_call_reply("recall_memory", {"query": "food"}),
            tool_call_reply("forget_message", {"message_id": said.id}, call_id="call-2"),
            chat_reply("Forgotten."),
        )
        await run("c-2", "Please forget what I told you about food.")
        [told, remembered, *_] = model.requests[asked]["body"]["messages"]
        assert told == {"role": "system", "content": "You are a helpful assistant."}
        assert remembered["role"] == "system"  # the capability's instructions
        assert remembered["content"].startswith(REMEMBERED)
        assert ALLERGY in remembered["content"]
        recalled = said_to(model, asked + 1)  # with the recall tool's answer
        assert ALLERGY in recalled
        assert said.id in recalled.split("(for forget_message)")[1]
        assert f"forgot message '{said.id}'" in said_to(model, asked + 2)

        asked = len(model.requests)
        model.script(chat_reply("Nothing I know of."))
        await run("c-3", "What should I avoid eating?")
        assert ALLERGY not in said_to(model, asked)
        await client.close()

    asyncio.run(conversations())


QUESTION = ASKED["query"]
"""The user's message that the integrations recall."""
BUDGETED: dict[str, Any] = {"max_tokens": ASKED["max_tokens"], "min_confidence": 0.0}
"""The recall options that each integration takes, as ASKED has them."""


@pytest.fixture
def remembered(memory: GraphMem, owner: str) -> str:
    """The facade's rendered recall of QUESTION within the budget of BUDGETED (peeking), once the
    owner told it all: what an integration must put after the instructions."""
    tell(memory, owner, datetime.now(UTC) - 2 * DAY)
    expected = memory.recall(owner, QUESTION, peek=True, **BUDGETED)
    assert expected.memories
    return f"{REMEMBERED}\n{expected.render()}"


def test_the_agents_sdk_puts_the_facades_rendered_recall_after_the_instructions(
    face: Memory, owner: str, model: ScriptedServer, remembered: str
) -> None:
    agent = Agent[MemoryContext](
        name="assistant", instructions="You are a helpful assistant.", model=chat_model(model)
    )
    config = RunConfig(call_model_input_filter=RecallIntoInstructions(face, **BUDGETED))
    model.script(chat_reply("Better not."))
    context = MemoryContext(owner, "chat")
    asyncio.run(Runner.run(agent, QUESTION, context=context, run_config=config))
    [system, *_] = model.requests[-1]["body"]["messages"]
    assert system["content"] == f"You are a helpful assistant.\n\n{remembered}"


def test_the_langchain_middleware_puts_the_facades_rendered_recall_after_the_system_message(
    face: Memory, owner: str, model: ScriptedServer, remembered: str
) -> None:
    agent = create_agent(
        model=ChatOpenAI(
            model="scripted", base_url=model.base_url, api_key="scripted", max_retries=0
        ),
        system_prompt="You are a helpful assistant.",
        middleware=[GraphMemMiddleware(face, **BUDGETED)],
        context_schema=MemoryContext,
    )
    model.script(chat_reply("Better not."))
    given: Any = {"messages": [{"role": "user", "content": QUESTION}]}
    context = MemoryContext(owner, "thread")
    state = (
        agent.invoke(given, context=context)
        if isinstance(face, GraphMem)
        else asyncio.run(agent.ainvoke(given, context=context))
    )
    [system, *_] = model.requests[-1]["body"]["messages"]
    assert system["content"] == f"You are a helpful assistant.\n\n{remembered}"
    assert state["graphmem_context"] == remembered.removeprefix(f"{REMEMBERED}\n")


def test_the_pydantic_ai_capability_puts_the_facades_rendered_recall_in_its_instructions(
    face: Memory, owner: str, model: ScriptedServer, remembered: str
) -> None:
    client = AsyncOpenAI(base_url=model.base_url, api_key="scripted", max_retries=0)
    agent = PydanticAgent(
        OpenAIChatModel("scripted", provider=OpenAIProvider(openai_client=client)),
        deps_type=MemoryContext,
        instructions="You are a helpful assistant.",
        capabilities=[GraphMemCapability(face, **BUDGETED)],
    )
    model.script(chat_reply("Better not."))

    async def ask() -> None:
        await agent.run(QUESTION, deps=MemoryContext(owner, "c"))
        await client.close()

    asyncio.run(ask())
    [_told, instructions, *_] = model.requests[-1]["body"]["messages"]
    assert instructions == {"role": "system", "content": remembered}
