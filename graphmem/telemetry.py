"""Spans and metrics of graphmem's work through OpenTelemetry, when the settings ask for them.

`Telemetry` reports nothing: it is what a memory has unless `telemetry = "otel"`
(GRAPHMEM_TELEMETRY), and each of its blocks is a shared no-op. `OtelTelemetry` reports through
the OpenTelemetry API to the tracer and meter providers it is given, else the global ones, which
the application configures with the SDK and its exporters (graphmem configures none); the API is
the extra `graphmem[otel]`, imported by this module only and only when an `OtelTelemetry` is made.

The facade runs each public verb in a `verb` block: a span `graphmem.<verb>` with the owner's
hash. What the verb sends below it reports to the verb it runs in, found in the context as
OpenTelemetry finds the current span (a ContextVar): the Neo4j store runs each statement in a
`traced_statement` block and the model endpoint each call in a `traced_model_call` block, whose
spans are children of the verb's. Outside a verb, or with telemetry off, those blocks do
nothing. Threads that a verb starts run their work through `carried`, so that it stays the
verb's. docs/telemetry.md lists every span, attribute and metric.
"""

import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar, copy_context
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

from graphmem.contract import Recall
from graphmem.errors import ConfigurationError

if TYPE_CHECKING:  # imported when an OtelTelemetry is made (see OtelTelemetry)
    from opentelemetry.metrics import CallbackOptions, Meter, MeterProvider, Observation
    from opentelemetry.trace import Span, TracerProvider

Arguments = ParamSpec("Arguments")
Result = TypeVar("Result")

INSTALL_OTEL = "pip install 'graphmem[otel]'"
"""What installs the OpenTelemetry API that `telemetry = "otel"` needs."""

SECONDS_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
"""The bucket bounds of the latency histograms, in seconds: a statement to a night's job."""


def owner_hash(owner: str) -> str:
    """The owner as telemetry names it: the first 16 hex digits of its SHA-256, never the name."""
    return hashlib.sha256(owner.encode("utf-8")).hexdigest()[:16]


class TrafficReading(Protocol):
    """What the traffic gauges read of one base URL's traffic (openai_endpoint.TrafficState)."""

    @property
    def base_url(self) -> str:
        """The base URL, without user and password."""

    @property
    def in_flight(self) -> int:
        """Requests sent and not yet answered."""

    @property
    def waiting(self) -> int:
        """Callers waiting now for a slot, the budget or a pause."""

    @property
    def waits(self) -> int:
        """Requests that had to wait, since the traffic was made."""

    @property
    def waited_seconds(self) -> float:
        """Their waits together."""


class Verb:
    """A verb running, as its block hands it to the facade: what it found, for its span."""

    def recalled(self, recall: Recall) -> None:
        """Note what a recall did: the deepest tier read, its searches, memories, steps skipped."""

    def observed(self, *, turns: int, pending: int) -> None:
        """Note what an observe did: the turns given and those left pending (the model failed)."""


class ModelCall:
    """A model call running, as its block hands it to the endpoint: the tokens it used."""

    def used(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Add the tokens one answer says it used."""

    def cached(self) -> None:
        """Note that the answer came from the response cache."""


IDLE_VERB = nullcontext(Verb())
"""The block of a verb that no telemetry reports: one shared no-op, no allocation a call."""
IDLE_STATEMENT = nullcontext()
"""The block of a statement or call that no verb's telemetry reports."""
IDLE_MODEL_CALL = nullcontext(ModelCall())


class Telemetry:
    """Telemetry off: every block is a shared no-op and nothing is reported."""

    def verb(self, name: str, owner: str | None = None) -> AbstractContextManager[Verb]:
        """The block a public verb runs in (the owner it serves, if any)."""
        return IDLE_VERB if _running.get() is None else _untraced()

    def carried(self, work: Callable[Arguments, Result]) -> Callable[Arguments, Result]:
        """`work` as another thread should run it to report to the verb running here."""
        return work

    def leases(self, change: int) -> None:
        """Count leases on owners that this process's nightly jobs took (+1) or gave up (-1)."""

    def watch_traffic(self, states: Callable[[], Iterable[TrafficReading]]) -> None:
        """Report the model traffic that `states` lists (traffic_states) as gauges."""


_running: "ContextVar[_RunningVerb | None]" = ContextVar("graphmem_verb", default=None)
"""The verb running in this context, with the telemetry it reports to; None outside one."""


@contextmanager
def _untraced() -> Iterator[Verb]:
    """A verb without telemetry run inside a traced one: its statements and calls report nowhere."""
    hidden = _running.set(None)
    try:
        yield Verb()
    finally:
        _running.reset(hidden)


def traced_statement(name: str) -> AbstractContextManager[object]:
    """The block a store statement (cypher/<name>.cypher) runs in: a span of the running verb."""
    verb = _running.get()
    return IDLE_STATEMENT if verb is None else verb.telemetry.statement(verb, name)


def traced_model_call(operation: str, model: str) -> AbstractContextManager[ModelCall]:
    """The block a model call runs in (a task, or embed): a span of the running verb."""
    verb = _running.get()
    return IDLE_MODEL_CALL if verb is None else verb.telemetry.model_call(verb, operation, model)


class _RunningVerb(Verb):
    """A verb that OtelTelemetry reports: its span, and what it and the verbs it called sent."""

    def __init__(
        self, telemetry: "OtelTelemetry", span: "Span", outer: "_RunningVerb | None"
    ) -> None:
        self.telemetry = telemetry
        self.span = span
        self.outer = outer
        """The verb that called this one (consolidate_all for each owner's consolidate)."""
        self._lock = threading.Lock()  # the threads of a nightly job add to one verb
        self.statements = 0
        self.model_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def add(
        self, *, statements: int = 0, model_calls: int = 0, tokens: tuple[int, int] = (0, 0)
    ) -> None:
        """Count statements, model calls and (prompt, completion) tokens here and in outer verbs."""
        verb: _RunningVerb | None = self
        while verb is not None:
            with verb._lock:
                verb.statements += statements
                verb.model_calls += model_calls
                verb.prompt_tokens += tokens[0]
                verb.completion_tokens += tokens[1]
            verb = verb.outer

    def recalled(self, recall: Recall) -> None:
        """Note what a recall did: the deepest tier read, its searches, memories, steps skipped."""
        self.span.set_attributes(
            {
                "graphmem.recall.depth": int(recall.attempts[-1].depth),
                "graphmem.recall.attempts": len(recall.attempts),
                "graphmem.recall.memories": len(recall.memories),
                "graphmem.recall.cut_short": list(recall.cut_short),
            }
        )

    def observed(self, *, turns: int, pending: int) -> None:
        """Note what an observe did: the turns given and those left pending (the model failed)."""
        self.span.set_attributes({"graphmem.observe.turns": turns, "graphmem.pending": pending})
        self.telemetry.left_pending.add(pending)

    def ended(self) -> None:
        """Write the counts on the span."""
        with self._lock:
            self.span.set_attributes(
                {
                    "graphmem.statements": self.statements,
                    "graphmem.model_calls": self.model_calls,
                    "graphmem.prompt_tokens": self.prompt_tokens,
                    "graphmem.completion_tokens": self.completion_tokens,
                }
            )


class _TalliedCall(ModelCall):
    """A model call that OtelTelemetry reports: the tokens of its answers, a cache hit."""

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_hit = False

    def used(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Add the tokens one answer says it used."""
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens

    def cached(self) -> None:
        """Note that the answer came from the response cache."""
        self.cache_hit = True


def _failed(span: "Span", error: BaseException) -> None:
    """Mark a span failed with the error's type only: a message may quote an owner or a text."""
    from opentelemetry.trace import StatusCode  # noqa: PLC0415 (imported by OtelTelemetry)

    span.set_status(StatusCode.ERROR, type(error).__name__)
    span.set_attribute("error.type", type(error).__qualname__)


def _traffic_gauges(meter: "Meter", traffic: Callable[[], Iterable[TrafficReading]]) -> None:
    """Gauges of the model traffic of every base URL, read when the metrics are collected.

    A meter keeps the first instruments made under a name, callbacks included: the first
    telemetry on a meter provider that watches the traffic registers these, and `traffic`
    lists the traffic of the whole process (openai_endpoint.traffic_states), whoever asks.
    """
    from opentelemetry.metrics import Observation  # noqa: PLC0415 (imported by OtelTelemetry)

    def reading(part: str) -> "Callable[[CallbackOptions], Iterable[Observation]]":
        def read(options: "CallbackOptions") -> "Iterable[Observation]":
            return [
                Observation(getattr(state, part), {"graphmem.model.base_url": state.base_url})
                for state in traffic()
            ]

        return read

    meter.create_observable_gauge(
        "graphmem.model.in_flight", [reading("in_flight")], "{request}", "Requests in flight"
    )
    meter.create_observable_gauge(
        "graphmem.model.waiting",
        [reading("waiting")],
        "{call}",
        "Calls waiting for a slot, the budget or a pause",
    )
    meter.create_observable_counter(
        "graphmem.model.waits", [reading("waits")], "{request}", "Requests that had to wait"
    )
    meter.create_observable_counter(
        "graphmem.model.waited", [reading("waited_seconds")], "s", "Their waits together"
    )


class OtelTelemetry(Telemetry):
    """Telemetry through the OpenTelemetry API: a span per verb, statement and model call.

    The providers default to the global ones (`opentelemetry.trace.set_tracer_provider`...).
    Making one without the OpenTelemetry API installed is a ConfigurationError that says how
    to install it.
    """

    def __init__(
        self,
        *,
        tracer_provider: "TracerProvider | None" = None,
        meter_provider: "MeterProvider | None" = None,
    ) -> None:
        try:
            from opentelemetry import metrics, trace  # noqa: PLC0415 (only when asked for)
        except ImportError:
            raise ConfigurationError(
                f'telemetry = "otel" needs the OpenTelemetry API: {INSTALL_OTEL}'
            ) from None
        self._tracer = trace.get_tracer("graphmem", tracer_provider=tracer_provider)
        meter = metrics.get_meter("graphmem", meter_provider=meter_provider)
        self._meter = meter
        self._watching = False
        self._client = trace.SpanKind.CLIENT
        self.verb_calls = meter.create_counter(
            "graphmem.verb.calls", "{call}", "Calls of the memory's public verbs"
        )
        self.verb_duration = meter.create_histogram(
            "graphmem.verb.duration",
            "s",
            "How long each verb call took",
            explicit_bucket_boundaries_advisory=SECONDS_BUCKETS,
        )
        self.statements = meter.create_counter(
            "graphmem.store.statements", "{statement}", "Cypher statements sent to Neo4j"
        )
        self.statement_duration = meter.create_histogram(
            "graphmem.store.duration",
            "s",
            "How long each statement took, its rows read",
            explicit_bucket_boundaries_advisory=SECONDS_BUCKETS,
        )
        self.model_calls = meter.create_counter(
            "graphmem.model.calls", "{call}", "Model calls: tasks and embeddings"
        )
        self.tokens = meter.create_counter(
            "graphmem.model.tokens", "{token}", "Tokens the model's answers say they used"
        )
        self.model_duration = meter.create_histogram(
            "graphmem.model.duration",
            "s",
            "How long each model call took, retries and waits for the traffic included",
            explicit_bucket_boundaries_advisory=SECONDS_BUCKETS,
        )
        self.left_pending = meter.create_counter(
            "graphmem.turns.left_pending",
            "{turn}",
            "Turns observe stored without deriving their memories (the model failed)",
        )
        self.held_leases = meter.create_up_down_counter(
            "graphmem.nightly.leases", "{lease}", "Leases on owners that nightly jobs hold"
        )

    @contextmanager
    def verb(self, name: str, owner: str | None = None) -> Iterator[Verb]:
        """The block a public verb runs in: its span, current while it runs; its metrics."""
        attributes: dict[str, str] = {"graphmem.verb": name}
        if isinstance(owner, str):  # else the verb's checks refuse it, inside the span
            attributes["graphmem.owner_hash"] = owner_hash(owner)
        started = time.perf_counter()
        failure: str | None = None
        with self._tracer.start_as_current_span(
            f"graphmem.{name}",
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            running = _RunningVerb(self, span, _running.get())
            token = _running.set(running)
            try:
                yield running
            except BaseException as error:
                _failed(span, error)
                failure = type(error).__qualname__
                raise
            finally:
                _running.reset(token)
                running.ended()
                counted = {"graphmem.verb": name}
                self.verb_duration.record(time.perf_counter() - started, counted)
                if failure is not None:
                    counted["error.type"] = failure
                self.verb_calls.add(1, counted)

    @contextmanager
    def statement(self, verb: _RunningVerb, name: str) -> Iterator[object]:
        """The block a statement of `verb` runs in: a client span and the statement metrics."""
        attributes = {"graphmem.statement": name}
        started = time.perf_counter()
        with self._tracer.start_as_current_span(
            f"graphmem.store {name}",
            kind=self._client,
            attributes={**attributes, "db.system.name": "neo4j"},
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except BaseException as error:
                _failed(span, error)
                raise
            finally:
                verb.add(statements=1)
                self.statements.add(1, attributes)
                self.statement_duration.record(time.perf_counter() - started, attributes)

    @contextmanager
    def model_call(self, verb: _RunningVerb, operation: str, model: str) -> Iterator[ModelCall]:
        """The block a model call of `verb` runs in: a client span with tokens; the metrics."""
        attributes = {"graphmem.model.operation": operation}
        call = _TalliedCall()
        started = time.perf_counter()
        with self._tracer.start_as_current_span(
            f"graphmem.model {operation}",
            kind=self._client,
            attributes={**attributes, "graphmem.model.name": model},
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield call
            except BaseException as error:
                _failed(span, error)
                raise
            finally:
                span.set_attributes(
                    {
                        "graphmem.model.prompt_tokens": call.prompt_tokens,
                        "graphmem.model.completion_tokens": call.completion_tokens,
                        "graphmem.model.cache_hit": call.cache_hit,
                    }
                )
                verb.add(model_calls=1, tokens=(call.prompt_tokens, call.completion_tokens))
                self.model_calls.add(1, attributes)
                self.tokens.add(call.prompt_tokens, {**attributes, "graphmem.token.type": "prompt"})
                self.tokens.add(
                    call.completion_tokens, {**attributes, "graphmem.token.type": "completion"}
                )
                self.model_duration.record(time.perf_counter() - started, attributes)

    def carried(self, work: Callable[Arguments, Result]) -> Callable[Arguments, Result]:
        """`work` run in a copy of this thread's context, so that it reports to the verb here."""
        context = copy_context()

        def run(*args: Arguments.args, **kwargs: Arguments.kwargs) -> Result:
            return context.copy().run(work, *args, **kwargs)

        return run

    def leases(self, change: int) -> None:
        """Count leases on owners that this process's nightly jobs took (+1) or gave up (-1)."""
        self.held_leases.add(change)

    def watch_traffic(self, states: Callable[[], Iterable[TrafficReading]]) -> None:
        """Report the model traffic that `states` lists as gauges (once: later calls are kept)."""
        if not self._watching:
            self._watching = True
            _traffic_gauges(self._meter, states)
