"""Test doubles that ship with graphmem: a scripted OpenAI-compatible server on 127.0.0.1.

`offline_answer` lets that server stand in for a model: it answers a request of the OpenAI
cognition as the offline cognition would.
"""

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel

from graphmem.cognition.base import (
    AttentionQuestion,
    Dialogue,
    EventUpdate,
    FactComparisons,
    PerceptionQuestion,
)
from graphmem.cognition.offline import OfflineCognition

OFFLINE_TASKS: dict[str, tuple[str, type[BaseModel]]] = {
    "AttentionLabel": ("label_attention", AttentionQuestion),
    "DialogueDigest": ("digest_dialogue", Dialogue),
    "Storyline": ("merge_event", EventUpdate),
    "FactJudgements": ("judge_facts", FactComparisons),
    "Perceptions": ("perceive", PerceptionQuestion),
}
"""Each task by the name of its answer's schema: the cognition's method and its question."""


def offline_answer(cognition: OfflineCognition, body: dict[str, Any]) -> str:
    """The JSON answer the offline cognition gives to a chat completion request of graphmem's."""
    method, question = OFFLINE_TASKS[body["response_format"]["json_schema"]["name"]]
    asked = next(message for message in body["messages"] if message["role"] == "user")
    answer: BaseModel = getattr(cognition, method)(question.model_validate_json(asked["content"]))
    return answer.model_dump_json()


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a JSON body (or raw text), headers; or a hung request."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False
    """Never answer: hold the request until the server stops (to test client timeouts)."""


Responder = Callable[[dict[str, Any]], Reply]
"""Answers a request body when no scripted reply is queued."""


@dataclass
class ScriptedServer:
    """Answers each request with the next scripted reply and records what it was asked."""

    responder: Responder | None = None
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    port: int = 0
    hold: threading.Event | None = None
    """When set to an event, every request waits for it before being answered."""
    in_flight: int = 0
    max_in_flight: int = 0
    changed: threading.Condition = field(default_factory=threading.Condition)
    stopping: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order; with none queued the responder answers (or 599)."""
        self.replies.extend(replies)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        """The reply to a request."""
        if self.replies:
            return self.replies.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply(599, {"error": {"message": "unscripted request"}})


def embeddings_reply(vectors: list[list[float]], tokens: int = 3) -> Reply:
    """A successful /v1/embeddings answer holding these vectors."""
    return Reply(
        body={
            "object": "list",
            "model": "scripted",
            "data": [
                {"object": "embedding", "index": index, "embedding": vector}
                for index, vector in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )


def chat_reply(
    content: str, finish_reason: str = "stop", prompt_tokens: int = 100, completion_tokens: int = 20
) -> Reply:
    """A successful /v1/chat/completions answer with this content."""
    message = {"role": "assistant", "content": content}
    return _completion(message, finish_reason, prompt_tokens, completion_tokens)


def tool_call_reply(name: str, arguments: dict[str, Any], call_id: str = "call-1") -> Reply:
    """A successful /v1/chat/completions answer that calls one tool with these arguments."""
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return _completion(message, "tool_calls", 100, 20)


def _completion(
    message: dict[str, Any], finish_reason: str, prompt_tokens: int, completion_tokens: int
) -> Reply:
    """A chat completion holding one choice of this message."""
    return Reply(
        body={
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


@contextmanager
def scripted_openai_server(
    responder: Responder | None = None, port: int = 0
) -> Iterator[ScriptedServer]:
    """Run a scripted server on 127.0.0.1 (a free port unless given) for the block."""
    state = ScriptedServer(responder=responder)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.changed:
                state.requests.append({"path": self.path, "body": body})
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                state.changed.notify_all()
            try:
                self.answer(body)
            finally:
                with state.changed:
                    state.in_flight -= 1
                    state.changed.notify_all()

        def answer(self, body: dict[str, Any]) -> None:
            if state.hold is not None:
                state.hold.wait()
            reply = state.next_reply(body)
            if reply.hang:
                state.stopping.wait()
                return
            raw = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            payload = raw.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep the test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    state.port = server.server_address[1]
    state.base_url = f"http://127.0.0.1:{state.port}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        if state.hold is not None:
            state.hold.set()
        server.shutdown()
        server.server_close()
        thread.join()
