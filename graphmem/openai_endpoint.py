"""The one module that talks to OpenAI-compatible HTTP endpoints (OpenAI, Ollama, vLLM, ...).

Every call goes through `OpenAIEndpoint._call`, and every request through the `Traffic` of its
base URL, which all endpoints of the process for that URL share (`traffic_for`): at most
`max_concurrent` requests in flight, an optional budget of requests and tokens per minute, and a
pause for everyone when the endpoint answers with Retry-After. Calls are retried with exponential
backoff and full jitter on 429, 5xx, timeouts and connection errors; tokens and calls are counted
per operation, and each call runs in a `graphmem.telemetry.traced_model_call` block (a span of
the verb that made it, when telemetry is on). Structured completions are validated with
pydantic, get one repair request when invalid (not when cut off at the length limit), and can be
cached on disk by model, prompt and schema so that a rerun does not pay twice.
"""

import email.utils
import hashlib
import json
import logging
import random
import sqlite3
import threading
import time
import urllib.parse
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError

from graphmem.errors import (
    ConfigurationError,
    ModelError,
    ModelOutputError,
    ModelRequestError,
    ModelTooLongError,
)
from graphmem.private_files import prepare_private_file
from graphmem.telemetry import ModelCall, traced_model_call

if TYPE_CHECKING:  # openai itself is imported by the first endpoint made (see OpenAIEndpoint)
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
    from openai.types.chat.completion_create_params import ResponseFormat

log = logging.getLogger("graphmem")

Output = TypeVar("Output", bound=BaseModel)
Reply = TypeVar("Reply")

CUT_OFF = "cut off at the length limit"
"""The problem of an answer the endpoint stopped at its length limit."""

MAX_RETRY_AFTER_SECONDS = 120.0
"""A Retry-After longer than this is not waited for: the call fails instead."""

BUSY_STATUSES = (429, 503)
"""Statuses that say the endpoint is busy or down, not that it refuses the request."""

TOO_LONG_STATUSES = (400, 413)
"""Statuses with which endpoints refuse a request longer than the model's context, saying so
in the message (OpenAI's context_length_exceeded, vLLM's and llama.cpp's own words)."""

REFUSAL_CHARS = 300
"""How much of an endpoint's error message a refusal repeats."""

WINDOW_SECONDS = 60.0
"""The window of the requests-per-minute and tokens-per-minute budgets."""


class OperationUsage(BaseModel):
    """What one kind of operation cost: calls, HTTP requests, retries, tokens."""

    calls: int = 0
    """Operations asked for (each answered from the cache or by the endpoint, or failed)."""
    requests: int = 0
    """HTTP requests sent, retries and repairs included."""
    retries: int = 0
    repairs: int = 0
    failures: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def plus(self, other: "OperationUsage") -> "OperationUsage":
        """The sum of two usages."""
        return OperationUsage.model_validate(
            {
                name: getattr(self, name) + getattr(other, name)
                for name in OperationUsage.model_fields
            }
        )


class Accounting:
    """Thread-safe usage per operation name, with totals."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage: dict[str, OperationUsage] = {}

    def add(self, operation: str, **counts: int) -> None:
        """Add counts (field name to amount) to one operation's usage."""
        with self._lock:
            usage = self._usage.get(operation, OperationUsage())
            self._usage[operation] = usage.plus(OperationUsage(**counts))

    def by_operation(self) -> dict[str, OperationUsage]:
        """A copy of the usage of each operation so far."""
        with self._lock:
            return dict(self._usage)

    def total(self) -> OperationUsage:
        """The usage of all operations together."""
        total = OperationUsage()
        for usage in self.by_operation().values():
            total = total.plus(usage)
        return total


class ResponseCache:
    """Valid model answers kept in SQLite, keyed by model, messages and output schema."""

    def __init__(self, path: Path) -> None:
        prepare_private_file(path)
        self._lock = threading.Lock()
        self._database = sqlite3.connect(str(path), check_same_thread=False)
        with self._database:
            self._database.execute(
                "CREATE TABLE IF NOT EXISTS response (key TEXT PRIMARY KEY, content TEXT NOT NULL)"
            )

    @staticmethod
    def key(model: str, messages: Sequence["ChatCompletionMessageParam"], schema: object) -> str:
        """The cache key of one request."""
        text = json.dumps([model, list(messages), schema], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, key: str) -> str | None:
        """The cached content for a key, if any."""
        with self._lock:
            row = self._database.execute(
                "SELECT content FROM response WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, content: str) -> None:
        """Keep a valid answer."""
        with self._lock, self._database:
            self._database.execute(
                "INSERT OR REPLACE INTO response (key, content) VALUES (?, ?)", (key, content)
            )

    def close(self) -> None:
        """Close the database."""
        self._database.close()


def used_tokens(reply: object) -> int | None:
    """The tokens an answer says it used (prompt and completion), if it says."""
    total = getattr(getattr(reply, "usage", None), "total_tokens", None)
    return total if isinstance(total, int) else None


def said_in(body: object) -> str:
    """The start of the message in an endpoint's error body, or nothing."""
    message = body.get("message") if isinstance(body, dict) else body
    if not isinstance(message, str):
        return ""
    words = " ".join(message.split())
    return words[:REFUSAL_CHARS] + ("..." if len(words) > REFUSAL_CHARS else "")


def retry_after_seconds(headers: Mapping[str, str], now: datetime) -> float | None:
    """The wait a response asks for (retry-after-ms, or Retry-After in seconds or as a date).

    Header names are looked up in lower case; the HTTP client's headers ignore case.
    """
    if "retry-after-ms" in headers:
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            return None
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((moment - now).total_seconds(), 0.0)


def prompt_tokens_estimate(texts: Iterable[str]) -> int:
    """The tokens a prompt is counted as before its answer tells: ASCII characters / 4 + others.

    English runs at about four characters a token; Chinese at about one token a character, so
    every character outside ASCII counts as a token. It only has to be near: the answer's usage
    replaces it in the budget.
    """
    ascii_chars = other_chars = 0
    for text in texts:
        ascii_only = len(text.encode("ascii", errors="ignore"))
        ascii_chars += ascii_only
        other_chars += len(text) - ascii_only
    return -(-ascii_chars // 4) + other_chars


class TrafficLimits(BaseModel):
    """The bounds of the traffic to one base URL."""

    max_concurrent: int
    """Requests in flight at once."""
    requests_per_minute: int | None = None
    """Requests sent in any 60 seconds; None: no budget."""
    tokens_per_minute: int | None = None
    """Tokens (prompt and answer) in any 60 seconds; None: no budget."""


class TrafficState(BaseModel):
    """What the traffic to one base URL is doing now, and how long callers have waited for it."""

    base_url: str
    limits: TrafficLimits
    in_flight: int
    """Requests sent and not yet answered."""
    waiting: int
    """Callers waiting now for a slot, the budget or a pause."""
    requests_last_minute: int
    tokens_last_minute: int
    """Tokens of the requests of the last 60 seconds: the answer's usage where it came, else
    the prompt's estimate (`prompt_tokens_estimate`)."""
    paused_for_seconds: float
    """How much longer every request waits because the endpoint said Retry-After; 0 if not."""
    waits: int
    """Requests that had to wait, since the traffic was made."""
    waited_seconds: float
    """Their waits together."""


@dataclass
class Sent:
    """One request in the budget's window: when it was sent and the tokens it counts for."""

    at: float
    tokens: int


class Traffic:
    """The requests to one base URL: a concurrency bound, a per-minute budget and pauses.

    A request waits, in its caller's thread, until all three allow it: no pause is running, the
    last 60 seconds (a sliding window) leave room for one more request and for its estimated
    tokens, and fewer than `max_concurrent` requests are in flight. A request counts in the
    window from the moment it is sent; its tokens are the prompt's estimate until the answer's
    usage (prompt and completion) replaces them, and stay the estimate if no usage comes. A
    request whose estimate alone exceeds the token budget waits for an empty window and then
    goes. Waits for the budget or a pause use `sleep` (time to sleep, measured by `clock`);
    waits for a slot are woken by the request that frees it. Callers are not served in order.
    """

    def __init__(
        self,
        base_url: str,
        limits: TrafficLimits,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._changed = threading.Condition()
        self._sent: deque[Sent] = deque()
        self._in_flight = 0
        self._waiting = 0
        self._paused_until = 0.0
        self._waits = 0
        self._waited_seconds = 0.0

    @contextmanager
    def request(self, estimated_tokens: int) -> Iterator[Sent]:
        """Wait until a request may be sent, and hold its slot for the block."""
        sent = self._admit(estimated_tokens)
        try:
            yield sent
        finally:
            with self._changed:
                self._in_flight -= 1
                self._changed.notify_all()

    def used(self, sent: Sent, tokens: int | None) -> None:
        """Count a request as the tokens its answer says it used (None: keep the estimate)."""
        if tokens is not None:
            with self._changed:
                sent.tokens = tokens

    def pause(self, seconds: float) -> None:
        """Hold every request for `seconds` from now (a pause running longer is kept)."""
        with self._changed:
            self._paused_until = max(self._paused_until, self._clock() + seconds)
        log.info("%s asked to wait %.1f s: every request to it waits", self.base_url, seconds)

    def state(self) -> TrafficState:
        """The traffic's state now."""
        with self._changed:
            now = self._clock()
            self._forget(now)
            return TrafficState(
                base_url=self.base_url,
                limits=self.limits,
                in_flight=self._in_flight,
                waiting=self._waiting,
                requests_last_minute=len(self._sent),
                tokens_last_minute=sum(sent.tokens for sent in self._sent),
                paused_for_seconds=max(self._paused_until - now, 0.0),
                waits=self._waits,
                waited_seconds=self._waited_seconds,
            )

    def _admit(self, estimated_tokens: int) -> Sent:
        """Wait for a pause, the budget and a slot; then count the request as sent."""
        arrived = self._clock()
        waited = False
        with self._changed:
            self._waiting += 1
        try:
            while True:
                with self._changed:
                    now = self._clock()
                    self._forget(now)
                    until = self._ready_at(estimated_tokens)
                    if until <= now and self._in_flight < self.limits.max_concurrent:
                        if waited:
                            self._waits += 1
                            self._waited_seconds += now - arrived
                        self._in_flight += 1
                        sent = Sent(at=now, tokens=estimated_tokens)
                        self._sent.append(sent)
                        return sent
                    waited = True
                    if until <= now:  # only a slot is missing: the request that frees one wakes us
                        self._changed.wait()
                        continue
                log.debug("%s: a request waits %.1f s for its budget", self.base_url, until - now)
                self._sleep(until - now)
        finally:
            with self._changed:
                self._waiting -= 1

    def _ready_at(self, estimated_tokens: int) -> float:
        """When the pause and the budget allow one more request (under the lock, window fresh)."""
        until = self._paused_until
        sent = self._sent
        most = self.limits.requests_per_minute
        if most is not None and len(sent) >= most:
            until = max(until, sent[len(sent) - most].at + WINDOW_SECONDS)
        budget = self.limits.tokens_per_minute
        if budget is not None:
            total = sum(request.tokens for request in sent) + estimated_tokens
            for request in sent:  # oldest first: wait until enough of them leave the window
                if total <= budget:
                    break
                total -= request.tokens
                until = max(until, request.at + WINDOW_SECONDS)
        return until

    def _forget(self, now: float) -> None:
        """Drop the requests older than the window (under the lock)."""
        while self._sent and self._sent[0].at + WINDOW_SECONDS <= now:
            self._sent.popleft()


def url_shown(base_url: str) -> str:
    """A base URL as traffic is keyed and logged by: without user and password, nor a last /."""
    parts = urllib.parse.urlsplit(base_url.rstrip("/"))
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=host))


_traffic_lock = threading.Lock()
_traffic: "weakref.WeakValueDictionary[str, Traffic]" = weakref.WeakValueDictionary()
"""The traffic of each base URL, held as long as an endpoint holds it."""


def traffic_for(
    base_url: str,
    max_concurrent: int,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
) -> Traffic:
    """The traffic of a base URL that every live endpoint of this process for it shares.

    The first endpoint's limits make it; an endpoint asking for other limits while it lives gets
    it with the first limits, and a warning says so. When no endpoint holds it any more it is
    forgotten, and the next endpoint for the URL starts a new one with its own limits.
    """
    limits = TrafficLimits(
        max_concurrent=max_concurrent,
        requests_per_minute=requests_per_minute,
        tokens_per_minute=tokens_per_minute,
    )
    key = url_shown(base_url)
    with _traffic_lock:
        traffic = _traffic.get(key)
        if traffic is None:
            traffic = Traffic(key, limits)
            _traffic[key] = traffic
        elif traffic.limits != limits:
            log.warning(
                "%s is already in use in this process with limits %s; they hold, not %s",
                key,
                traffic.limits,
                limits,
            )
    return traffic


def traffic_states() -> list[TrafficState]:
    """The state of the traffic of every base URL that a live endpoint of the process uses."""
    with _traffic_lock:
        traffics = list(_traffic.values())
    return [traffic.state() for traffic in traffics]


class OpenAIEndpoint:
    """An OpenAI-compatible endpoint with retries, shared traffic limits, accounting and a cache.

    Its requests go through `traffic`: given, or else the one all endpoints of the process for
    the same base URL share (`traffic_for`, whose first limits hold). The openai package is
    imported when the first endpoint is made, not with graphmem: it takes about a second, which
    every `graphmem` command would pay without a model in use.
    """

    def __init__(
        self,
        base_url: str,
        api_key: SecretStr,
        *,
        timeout_seconds: float,
        max_retries: int,
        backoff_seconds: float = 0.5,
        max_concurrent: int = 4,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        cache: ResponseCache | None = None,
        json_mode: Literal["json_schema", "json_object"] | None = None,
        max_tokens: int | None = None,
        traffic: Traffic | None = None,
    ) -> None:
        import openai  # noqa: PLC0415 (imported on first use; see the class docstring)

        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value(),
            timeout=timeout_seconds,
            max_retries=0,  # retries are ours, so that they are counted
        )
        self._max_retries = max_retries
        self._backoff_seconds = backoff_seconds
        if traffic is None:
            traffic = traffic_for(base_url, max_concurrent, requests_per_minute, tokens_per_minute)
        self.traffic = traffic
        """The bounds this endpoint's requests share with the other endpoints of its URL."""
        self._cache = cache
        self._limit = None if max_tokens is None else {"max_tokens": max_tokens}
        """The answer's token cap as an extra body field: sent the same way by every version of
        the openai package that graphmem allows (their types for an absent value differ)."""
        self._random = random.Random()  # noqa: S311 (jitter, not secrets)
        self.accounting = Accounting()
        self.json_mode = json_mode
        """How this endpoint takes structured answers: a JSON schema (OpenAI, vLLM...), or JSON
        with the schema in the prompt (llama.cpp's own server answers HTTP 500 to a schema);
        None until the first answer tells."""

    def embed(self, texts: Sequence[str], model: str, dimensions: int) -> list[list[float]]:
        """Embed texts with `model`, one vector of `dimensions` per text, in order."""
        self.accounting.add("embed", calls=1)
        with traced_model_call("embed", model) as call:
            response = self._call(
                "embed",
                lambda: self._client.embeddings.create(model=model, input=list(texts)),
                prompt_tokens_estimate(texts),
            )
            self.accounting.add("embed", prompt_tokens=response.usage.prompt_tokens)
            call.used(response.usage.prompt_tokens, 0)
            vectors = [
                item.embedding for item in sorted(response.data, key=lambda item: item.index)
            ]
            if len(vectors) != len(texts) or any(len(vector) != dimensions for vector in vectors):
                self.accounting.add("embed", failures=1)
                raise ModelError(
                    f"the embedding endpoint returned {len(vectors)} vectors for {len(texts)}"
                    f" texts, expected each of {dimensions} dimensions"
                )
            return vectors

    def complete(
        self,
        operation: str,
        model: str,
        messages: Sequence["ChatCompletionMessageParam"],
        output: type[Output],
    ) -> Output:
        """Ask for a JSON answer of the output model's schema; repair once, then fail.

        Raises ModelOutputError when the answer is invalid twice or cut off at the length limit
        (at once: asked again, it would be as long), ModelTooLongError when the endpoint refuses
        the question as longer than the model's context.
        """
        with traced_model_call(operation, model) as call:
            return self._answer(operation, model, messages, output, call)

    def _answer(
        self,
        operation: str,
        model: str,
        messages: Sequence["ChatCompletionMessageParam"],
        output: type[Output],
        call: ModelCall,
    ) -> Output:
        """The JSON answer of `complete`: from the cache, asked for, or repaired once."""
        self.accounting.add(operation, calls=1)
        schema = output.model_json_schema()
        key = ResponseCache.key(model, messages, schema)
        cached = self._cache.get(key) if self._cache is not None else None
        if cached is not None:
            self.accounting.add(operation, cache_hits=1)
            call.cached()
            return output.model_validate_json(cached)
        conversation = list(messages)
        for attempt in ("first", "repair"):
            if attempt == "repair":
                self.accounting.add(operation, repairs=1)
            content, problem = self._ask(operation, model, conversation, output, schema, call=call)
            if problem == CUT_OFF:
                break
            if problem is None:
                if self._cache is not None:
                    self._cache.put(key, content)
                return output.model_validate_json(content)
            conversation += [
                {"role": "assistant", "content": content},
                {
                    "role": "user",
                    "content": f"That answer is not valid: {problem}. Answer again with one"
                    " complete JSON object that follows the schema, and nothing else.",
                },
            ]
        self.accounting.add(operation, failures=1)
        if problem == CUT_OFF:
            raise ModelOutputError(f"the model's answer to {operation} was {problem}")
        raise ModelOutputError(
            f"the model's answer to {operation} was invalid twice; last problem: {problem}"
        )

    def traffic_state(self) -> TrafficState:
        """The state of the traffic this endpoint shares: in flight, budget used, waits."""
        return self.traffic.state()

    def close(self) -> None:
        """Close the HTTP connections and the cache."""
        self._client.close()
        if self._cache is not None:
            self._cache.close()

    def _ask(
        self,
        operation: str,
        model: str,
        messages: Sequence["ChatCompletionMessageParam"],
        output: type[BaseModel],
        schema: dict[str, object],
        *,
        call: ModelCall,
    ) -> tuple[str, str | None]:
        """One completion; returns its content and what is wrong with it (None when valid).

        The first completion asks for the answer by JSON schema and, if the endpoint answers that
        with an error status (not busy, not unavailable: a timeout or a 503 says nothing about
        the schema), asks again for a JSON object with the schema in the prompt; the way that
        worked is kept.
        """
        if self.json_mode is None:
            try:
                response = self._complete(
                    operation, model, messages, output, schema, by_schema=True
                )
                self.json_mode = "json_schema"
            except ModelRequestError:
                log.warning("%s: no answer by JSON schema; asking for a JSON object", operation)
                response = self._complete(
                    operation, model, messages, output, schema, by_schema=False
                )
                self.json_mode = "json_object"
        else:
            by_schema = self.json_mode == "json_schema"
            response = self._complete(
                operation, model, messages, output, schema, by_schema=by_schema
            )
        if response.usage is not None:
            self.accounting.add(
                operation,
                prompt_tokens=response.usage.prompt_tokens,
                completion_tokens=response.usage.completion_tokens,
            )
            call.used(response.usage.prompt_tokens, response.usage.completion_tokens)
        if not response.choices:
            return "", "the answer had no choices"
        choice = response.choices[0]
        content = choice.message.content or ""
        if choice.finish_reason == "length":
            return content, CUT_OFF
        try:
            output.model_validate_json(content)
        except ValidationError as error:
            return content, "; ".join(
                f"{'.'.join(map(str, item['loc'])) or 'answer'}: {item['msg']}"
                for item in error.errors()[:5]
            )
        return content, None

    def _complete(
        self,
        operation: str,
        model: str,
        messages: Sequence["ChatCompletionMessageParam"],
        output: type[BaseModel],
        schema: dict[str, object],
        *,
        by_schema: bool,
    ) -> "ChatCompletion":
        """Send one completion request asking for JSON by schema, or as a JSON object.

        The schema is in the prompt either way: many servers (llama.cpp's, vLLM) use a
        `json_schema` response format only to constrain the output, so without it the model
        would never read the fields' descriptions, which are half of each task's prompt.
        """
        told = json.dumps(schema, ensure_ascii=False)
        sent: list[ChatCompletionMessageParam] = [
            {
                "role": "system",
                "content": f"Answer with a JSON object that follows this JSON schema: {told}",
            },
            *messages,
        ]
        response_format: ResponseFormat = {
            "type": "json_schema",
            "json_schema": {"name": output.__name__, "schema": schema},
        }
        if not by_schema:
            response_format = {"type": "json_object"}
        texts = [str(message.get("content") or "") for message in sent]
        return self._call(
            operation,
            lambda: self._client.chat.completions.create(
                model=model,
                messages=sent,
                temperature=0,
                response_format=response_format,
                extra_body=self._limit,
            ),
            prompt_tokens_estimate(texts),
        )

    def _call(self, operation: str, send: Callable[[], Reply], estimated_tokens: int) -> Reply:
        """Send one request, retrying transient failures; translate errors to graphmem's.

        Each attempt waits for the shared traffic. A Retry-After of at most
        MAX_RETRY_AFTER_SECONDS pauses that traffic, so every caller of the URL waits it out
        (this one's retry too); a longer one fails the call and pauses no one.
        """
        import openai  # noqa: PLC0415 (imported already by __init__: a lookup in sys.modules)

        refused = None
        for attempt in range(self._max_retries + 1):
            with self.traffic.request(estimated_tokens) as sent:
                self.accounting.add(operation, requests=1)
                try:
                    reply = send()
                    self.traffic.used(sent, used_tokens(reply))
                    return reply
                except openai.AuthenticationError as error:
                    refused = error.status_code  # raised below: the request holds the key
                    break
                except (openai.RateLimitError, openai.InternalServerError) as error:
                    failure = f"HTTP {error.status_code}"
                    status = error.status_code
                    wait = retry_after_seconds(error.response.headers, datetime.now(UTC))
                    if wait is not None and 0 < wait <= MAX_RETRY_AFTER_SECONDS:
                        self.traffic.pause(wait)
                except openai.APIStatusError as error:
                    self.accounting.add(operation, failures=1)
                    said = said_in(error.body)
                    answered = (
                        f"the model endpoint answered HTTP {error.status_code} to {operation}"
                    )
                    if error.status_code in TOO_LONG_STATUSES and "context" in said.lower():
                        raise ModelTooLongError(
                            f"{answered}, longer than the model's context: {said}"
                        ) from None
                    raise ModelRequestError(f"{answered}: {said}" if said else answered) from None
                except openai.APIConnectionError as error:  # timeouts included
                    failure = type(error).__name__
                    status = None
                    wait = None
                except json.JSONDecodeError:
                    failure = "an answer that is not JSON"
                    status = None
                    wait = None
            if attempt == self._max_retries or (wait or 0.0) > MAX_RETRY_AFTER_SECONDS:
                break
            self.accounting.add(operation, retries=1)
            if wait is None:  # else the traffic's pause holds the next attempt
                time.sleep(self._random.uniform(0, self._backoff_seconds * 2**attempt))
        self.accounting.add(operation, failures=1)
        if refused is not None:  # outside the except block, so without the request's error
            raise ConfigurationError(f"the model endpoint refused the API key (HTTP {refused})")
        failed = f"the model endpoint failed {operation} after {attempt + 1} attempts: {failure}"
        if status is not None and status not in BUSY_STATUSES:
            raise ModelRequestError(failed)
        raise ModelError(failed)
