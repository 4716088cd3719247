"""`graphmem mcp`: observe, observe_many, recall, profile, consolidate, forget_message as MCP tools.

The same tools are served over streamable HTTP by `graphmem mcp --transport http` and, behind
keys, at /mcp of `graphmem serve` (`http_app`): there each request's key decides, through
PERMITTED, which owners its tool calls may touch.
"""

import inspect
import json
import math
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, suppress
from contextvars import ContextVar
from datetime import datetime
from typing import Any, Literal, cast, get_args

import anyio
from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from graphmem import __version__
from graphmem.config import Settings
from graphmem.contract import (
    Forgotten,
    KeyInfo,
    MessageRef,
    Observation,
    ObservedMessage,
    ObserveMany,
    ObserveOne,
    Profile,
    Recall,
    RecallQuestion,
    SleepReport,
    When,
)
from graphmem.errors import ConfigurationError, GraphMemError, validation_problems
from graphmem.memory import GraphMem
from graphmem.model import check_owner

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
    from mcp.server.models import InitializationOptions
    from mcp.server.stdio import stdio_server
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.shared.message import SessionMessage
    from mcp.types import (
        PARSE_ERROR,
        CallToolResult,
        ErrorData,
        InputRequiredResult,
        JSONRPCError,
        TextContent,
        ToolAnnotations,
        jsonrpc_message_adapter,
    )
except ModuleNotFoundError as missing:
    raise ConfigurationError(
        f"graphmem mcp needs the MCP SDK ({missing}): pip install 'graphmem[mcp]'"
    ) from None

PERMITTED: ContextVar[KeyInfo | None] = ContextVar("permitted", default=None)
"""The current request's key, which says the owners it may touch (graphmem serve sets it);
None: any owner."""

INSTRUCTIONS = """\
Long-term memory of the conversations with the user, kept as a graph.
Call observe with every message of the conversation (the user's and yours), each with its own
message id, or observe_many with several at once (a message and your answer, or a history);
call recall before you answer, with the question or topic as the query; call profile at the
start of a conversation to know who the user is now; call consolidate now
and then (nightly) to summarise, settle beliefs and let old memories sink; call forget_message
when the user asks you to forget something they said."""

OWNER = Field(
    None,
    description="whose memory (a tenant: 1-128 letters, digits and marks of any script and"
    " _ . : @ -); required unless the server was started with --owner, which it may then only"
    " repeat, or at /mcp of graphmem serve the request's key covers one owner only",
)
"""The owner argument every tool adds to its verb's options."""


def arguments_of(options: type[BaseModel]) -> type[ArgModelBase]:
    """A tool's arguments: its verb's options as the contract has them, and whose memory."""
    model = create_model(
        f"{options.__name__}Arguments",
        __base__=(options, ArgModelBase),
        owner=(str | None, OWNER),
    )
    return cast(type[ArgModelBase], model)


class Observations(BaseModel):
    """observe_many's result: one observation per message, in order."""

    observations: list[Observation]


class MemoryTools:
    """The tools over one GraphMem, confined to `owner` when it is set.

    One call at a time for each owner; the calls of different owners run side by side.
    """

    def __init__(self, memory: GraphMem, owner: str | None, *, max_messages: int | None) -> None:
        self.owner = owner
        self.max_messages = max_messages
        """Messages one observe_many may carry; None: any number."""
        self._memory = memory
        self._locks: dict[str, threading.Lock] = {}
        self._calls = threading.Condition()
        """Guards the owners' locks and the calls in progress, which close waits for."""
        self._in_progress = 0
        self._closed = False

    def observe(self, *, owner: str | None = None, **message: Any) -> CallToolResult:
        """Store a message of the conversation and the memory derived from it.

        Returns the stored turn, the memories derived from it by this call with their importance
        (0-10; none when the message id was already stored), whether the turn waits for the
        model (pending), whether it was forgotten earlier and so not stored (forgotten), and
        conjectures: impressions the turn made strong enough to consider, such as "The user has
        a cold".
        """
        whose = self._whose(owner)
        with self._call(whose):
            observation = self._memory.observe(whose, **message)
        observed = observation.as_json()
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(observed, ensure_ascii=False))],
            structured_content=observed,
        )

    def observe_many(
        self,
        *,
        messages: list[ObservedMessage],
        owner: str | None = None,
        readmit_forgotten: bool = False,
    ) -> CallToolResult:
        """Store several messages of the conversation at once, and the memories derived from them.

        The same as observe for each message, in order, at a fraction of the cost: the messages
        are stored in one transaction and their memories derived with one model call per 64.
        A bad message is named by its position, counting from 0 (item 2: ...), and then none is
        stored. Returns observations, one per message, in order.
        """
        if self.max_messages is not None and len(messages) > self.max_messages:
            raise ToolError(
                f"messages: {len(messages)} in one call, at most {self.max_messages}: send them"
                " in several calls"
            )
        items = [message.model_dump() for message in messages]
        whose = self._whose(owner)
        with self._call(whose):
            observations = self._memory.observe_many(
                whose, items, readmit_forgotten=readmit_forgotten
            )
        observed = {"observations": [observation.as_json() for observation in observations]}
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(observed, ensure_ascii=False))],
            structured_content=observed,
        )

    def recall(self, *, owner: str | None = None, **options: Any) -> CallToolResult:
        """Recall the memories best related to a query, with the turns they came from.

        The text is the recall's rendered text for a prompt: a numbered list of the memories,
        then the links among them; with max_tokens it opens with the lines of the user's
        profile (facts, conjectures). When what was found is unlikely to bear on the query
        (confidence below min_confidence), no memory is returned and the text says so. The
        structured content is the related-context subgraph with that text (rendered), the
        confidence (0-1) and nothing_relevant: memories best first, each with its turns, score,
        score components (relevance, lexical, time_match, speaker_match, asker_match, statement,
        importance, attention, recency, association) and via (the memory association came
        through), the links among them, the searches made (attempts) and the memories woken.
        """
        whose = self._whose(owner)
        with self._call(whose):
            recall = self._memory.recall(whose, **options)
        return CallToolResult(
            content=[TextContent(type="text", text=recall.rendered)],
            structured_content=recall.as_json(),
        )

    def profile(self, *, owner: str | None = None, at: datetime | None = None) -> CallToolResult:
        """Who the user is now, as the memory believes: facts, conjectures, ongoing events.

        The text is one line each: the current value of each fact's slot (home, allergy: milk,
        mood at work...) with its belief and since when, the conjectures about the user whose
        belief has not faded (with when it will), and the major events still going on with
        their latest development. The structured content adds the values each fact replaced
        and the memory ids each line rests on. Read without a model call: cheap to ask at the
        start of every conversation.
        """
        whose = self._whose(owner)
        with self._call(whose):
            profile = self._memory.profile(whose, at=at)
        return CallToolResult(
            content=[TextContent(type="text", text=profile.render() or "(nothing known yet)")],
            structured_content=profile.model_dump(mode="json"),
        )

    def consolidate(self, *, owner: str | None = None, at: datetime | None = None) -> SleepReport:
        """Run the sleep job: pending turns, dialogue summaries and events, beliefs, re-tiering.

        Returns the counts of what it did, the model calls by task and the seconds it took.
        """
        whose = self._whose(owner)
        with self._call(whose):
            return self._memory.consolidate(whose, at=at)

    def forget_message(self, *, message_id: str, owner: str | None = None) -> Forgotten:
        """Forget a message: delete it and every memory that derives only from it.

        Summaries and events it shared with other messages are written again without it, and
        impressions it was a cue of lose its part. Returns the nodes deleted per label and what
        was derived again; found is false when no such message was stored (nothing changes).
        """
        whose = self._whose(owner)
        with self._call(whose):
            return self._memory.forget_message(whose, message_id)

    def close(self) -> None:
        """Close the memory once the calls in progress, if any, have finished."""
        with self._calls:
            self._closed = True
            self._calls.wait_for(lambda: self._in_progress == 0)
        self._memory.close()

    def _whose(self, owner: str | None) -> str:
        """The owner a call works on: the server's, else the one named, if the key permits."""
        if self.owner is None:
            key = PERMITTED.get()
            if owner is None:
                owner = None if key is None else key.sole_owner()
            if owner is None:
                raise ToolError("name the owner: this server serves several owners")
            if key is not None and not key.permits(owner):
                raise ToolError("this key may not touch this owner")
            return owner
        if owner is not None and owner != self.owner:
            raise ToolError(
                f"owner {owner[:40]!r} is not served here: this server serves one owner only;"
                " omit the owner argument"
            )
        return self.owner

    @contextmanager
    def _call(self, owner: str) -> Iterator[None]:
        """Hold the owner's memory for one call; report graphmem's errors as tool errors."""
        with self._calls:
            if self._closed:
                raise ToolError("the server is stopping")
            self._in_progress += 1
            lock = self._locks.setdefault(owner, threading.Lock())
        try:
            with lock:
                yield
        except GraphMemError as error:
            raise ToolError(str(error)) from error
        finally:
            with self._calls:
                self._in_progress -= 1
                self._calls.notify_all()


def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a model dumped without the memories' embeddings (see as_json)."""
    schema = model.model_json_schema(mode="serialization")
    memory = schema.get("$defs", {}).get("Memory")
    if memory is not None:
        del memory["properties"]["embedding"]
        memory["required"].remove("embedding")
    return schema


def _read_again(refusal: Exception) -> SessionMessage | None:
    """A line the SDK's JSON parser refused, read by Python's; None if it is no message either.

    The SDK's parser stops at 200 levels of nesting and at a lone surrogate; Python's reads
    nesting to its recursion limit (about 1,000) and surrogates too, so that such a request
    reaches its tool, which refuses the argument by name, instead of a parse error without id.
    """
    problems = refusal.errors() if isinstance(refusal, ValidationError) else []
    line = problems[0].get("input") if problems else None
    if not isinstance(line, str) or problems[0]["type"] != "json_invalid":
        return None
    try:
        value = json.loads(line, parse_constant=_no_constant)
        return SessionMessage(jsonrpc_message_adapter.validate_python(value, by_name=False))
    except (RecursionError, ValueError):  # ValidationError is a ValueError
        return None


def _no_constant(name: str) -> None:
    """Refuse NaN and Infinity, which JSON does not have (Python's parser takes them)."""
    raise ValueError(f"{name} is not JSON")


class _Server(MCPServer):
    """The SDK's server, except for three things.

    Over stdio a line its parser refuses is read once more; a line that still is no JSON-RPC
    message is answered with a parse error (id null), as JSON-RPC says; the SDK drops it, and a
    client whose request the server could not read would wait for its answer forever.
    A tool call's arguments are checked first: an argument the tool does not take, NaN or
    Infinity is refused by name (the SDK ignores the one and takes the others), and a
    validation error says what is wrong without pydantic's links. Over HTTP the instructions
    say which owners the request's key covers.
    """

    def __init__(self, memory_tools: MemoryTools, **options: Any) -> None:
        super().__init__("graphmem", version=__version__, **options)
        self.memory_tools = memory_tools
        # The SDK reads the instructions once per server; graphmem serve answers each request
        # with its key's own, so the options are made afresh for each initialize.
        lowlevel = self._lowlevel_server
        made = lowlevel.create_initialization_options

        def for_this_key(*args: Any, **kwargs: Any) -> InitializationOptions:
            options = made(*args, **kwargs)
            return options.model_copy(update={"instructions": self.instructions_now()})

        lowlevel.create_initialization_options = for_this_key  # type: ignore[method-assign]

    def instructions_now(self) -> str:
        """The instructions, with the owners that this server, or the request's key, covers."""
        key = PERMITTED.get()
        if self.memory_tools.owner is not None:
            scope = f"owner {self.memory_tools.owner} only; leave the owner argument out"
        elif key is None:
            scope = "every owner; name the owner in each call"
        elif (sole := key.sole_owner()) is not None:
            scope = f"owner {sole} only, with this key; the owner argument may be left out"
        else:
            scope = f"with this key, {key.scope()}; name the owner in each call"
        return f"{INSTRUCTIONS}\nThis server serves {scope}."

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool once its arguments are known and finite; ToolError naming one otherwise.

        Validation errors are told in plain words, each with its argument.
        """
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            taken = sorted(tool.parameters.get("properties", {}))
            for argument, value in arguments.items():
                if argument not in taken:
                    raise ToolError(
                        f"{name} takes no argument {argument[:40]!r}; it takes {', '.join(taken)}"
                    )
                if not _finite(value):
                    raise ToolError(f"{argument}: NaN and Infinity are not numbers JSON has")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {validation_problems(cause)}") from cause

    async def run_stdio_async(self) -> None:
        """Serve over stdin and stdout until stdin closes."""
        async with stdio_server() as (lines, answers):
            send_readable, readable = anyio.create_memory_object_stream[
                SessionMessage | Exception
            ]()

            async def answer_unreadable() -> None:
                async with send_readable:
                    async for line in lines:
                        message = _read_again(line) if isinstance(line, Exception) else line
                        if message is None:
                            error = ErrorData(code=PARSE_ERROR, message="Parse error")
                            await answers.send(
                                SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error))
                            )
                        else:
                            await send_readable.send(message)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable)
                await self._lowlevel_server.run(
                    readable, answers, self._lowlevel_server.create_initialization_options()
                )


def _tool(
    function: Callable[..., Any],
    options: type[BaseModel],
    title: str,
    *,
    idempotent: bool,
    destructive: bool = False,
    output: type[BaseModel] | None = None,
) -> Tool:
    """A tool described by its method's docstring, taking its verb's `options` and the owner.

    The arguments' schema is the contract's (`arguments_of`), so an argument the contract does
    not know is refused. `output` is the model of the result for a method that builds its
    result itself (the SDK publishes the schema, which clients check).
    """
    tool = Tool.from_function(
        function,
        title=title,
        description=inspect.getdoc(function),
        annotations=ToolAnnotations(
            destructive_hint=destructive, idempotent_hint=True if idempotent else None
        ),
    )
    read = tool.fn_metadata
    tool.fn_metadata = ContractArguments(
        arg_model=arguments_of(options),
        output_schema=read.output_schema if output is None else _json_schema(output),
        output_model=read.output_model,
        wrap_output=read.wrap_output,
    )
    tool.parameters = tool.fn_metadata.arg_model.model_json_schema(by_alias=True)
    return tool


class ContractArguments(FuncMetadata):
    """The SDK's reading of a tool's arguments, a text kept a text where the contract takes one.

    The SDK parses JSON text given for any field that is not plain text (some clients send lists
    so); a query that looks like JSON must stay the query.
    """

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        """Parse the JSON text given for a list or an object, not for a field that takes text."""
        texts = {name for name, field in self.arg_model.model_fields.items() if _takes_text(field)}
        parsed = super().pre_parse_json({k: v for k, v in data.items() if k not in texts})
        return {key: data[key] if key in texts else parsed[key] for key in data}


def _takes_text(field: FieldInfo) -> bool:
    """Whether a field takes a text as it is (str, or a union with str)."""
    return field.annotation is str or str in get_args(field.annotation)


def _finite(value: object) -> bool:
    """Whether a JSON value holds no NaN or Infinity, at any depth."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(_finite, value))
    if isinstance(value, dict):
        return all(map(_finite, value.values()))
    return True


def _server(tools: MemoryTools) -> MCPServer:
    """The MCP server of the six tools."""
    return _Server(
        tools,
        instructions=INSTRUCTIONS,
        tools=[
            _tool(
                tools.observe, ObserveOne, "Observe a message", idempotent=True, output=Observation
            ),
            _tool(
                tools.observe_many,
                ObserveMany,
                "Observe several messages",
                idempotent=True,
                output=Observations,
            ),
            _tool(
                tools.recall,
                RecallQuestion,
                "Recall related memories",
                idempotent=False,
                output=Recall,
            ),
            _tool(tools.profile, When, "Profile of the user", idempotent=True, output=Profile),
            _tool(tools.consolidate, When, "Consolidate (sleep job)", idempotent=True),
            _tool(
                tools.forget_message,
                MessageRef,
                "Forget a message",
                idempotent=True,
                destructive=True,
            ),
        ],
    )


def serve(
    settings: Settings,
    *,
    owner: str | None,
    transport: Literal["stdio", "http"],
    host: str,
    port: int,
) -> None:
    """Serve the tools until the client goes away (stdio) or the process is stopped (http)."""
    if owner is not None:
        try:
            check_owner(owner)
        except ValueError as error:
            raise ConfigurationError(f"--owner: {error}") from None
    # SIGTERM stops the server as Ctrl-C does (uvicorn shuts down, then raises the signal
    # again), so that the memory is closed on the way out either way.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with (
            suppress(KeyboardInterrupt),
            closing(MemoryTools(GraphMem.open(settings), owner, max_messages=None)) as tools,
        ):
            server = _server(tools)
            if transport == "stdio":
                server.run("stdio")
            else:
                server.run("streamable-http", host=host, port=port)
    finally:
        signal.signal(signal.SIGTERM, previous)


def http_app(memory: GraphMem, *, max_messages: int) -> Any:
    """The tools over streamable HTTP at /mcp, for `graphmem serve` to mount (a Starlette app).

    Stateless, with JSON answers: each request stands alone, so the key of each request, checked
    by the server, decides what its tool calls may touch (PERMITTED). The memory stays open:
    the server closes it. The server checks the Host header of every route, /mcp's included,
    so the SDK's own check is off.
    """
    server = _server(MemoryTools(memory, None, max_messages=max_messages))
    return server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
