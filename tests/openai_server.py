"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests of the OpenAI code path."""

import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a JSON body (or raw text) and headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class ScriptedServer:
    """Answers each request with the next scripted reply and records what it was asked."""

    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order; an unscripted request gets HTTP 599."""
        self.replies.extend(replies)


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


@contextmanager
def scripted_openai_server() -> Iterator[ScriptedServer]:
    """Run a scripted server on a free port of 127.0.0.1 for the duration of the block."""
    state = ScriptedServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append(
                {"path": self.path, "body": json.loads(self.rfile.read(length) or b"{}")}
            )
            reply = (
                state.replies.popleft() if state.replies else Reply(599, {"error": "unscripted"})
            )
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

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
