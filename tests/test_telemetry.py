"""Telemetry: a span per verb with a child per statement and model call, metrics; off by default.

What the spans and metrics say is checked against graphmem's own counts: the store's traffic,
the cognition's calls and the endpoint's accounting. The SDK's in-memory exporters read them.
"""

import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic import SecretStr

from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.contract import Recall
from graphmem.embedding import CachedEmbedder, OpenAIEmbedder
from graphmem.errors import ConfigurationError, InvalidInputError
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import OpenAIEndpoint, traffic_states
from graphmem.opening import settings_telemetry
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from graphmem.telemetry import OtelTelemetry, Telemetry, owner_hash
from graphmem.testing import embeddings_reply, scripted_openai_server

from .conftest import DIMENSIONS, ROOT
from .test_pending import offline_model
from .test_sleep_crash import CONVERSATION, START

QUERY = "Am I allergic to anything?"
AT = START + timedelta(days=5)
TRAFFIC_GAUGES = {
    "graphmem.model.in_flight",
    "graphmem.model.waiting",
    "graphmem.model.waits",
    "graphmem.model.waited",
}
"""The metrics of the model traffic of the whole process, which the fixture's telemetry reads."""


@dataclass
class Exported:
    """What a test's telemetry exported, and the telemetry itself."""

    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    telemetry: OtelTelemetry
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def finished(self) -> list[ReadableSpan]:
        """The spans ended so far."""
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        """The data points of one metric, as collected now."""
        data = self.metrics.get_metrics_data()
        return [
            point
            for resource in (data.resource_metrics if data is not None else [])
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]

    def measured(self) -> set[str]:
        """The names of the metrics that have data points, as collected now."""
        data = self.metrics.get_metrics_data()
        return {
            metric.name
            for resource in (data.resource_metrics if data is not None else [])
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.data.data_points
        }

    def total(self, name: str, **attributes: str) -> float:
        """A counter's sum over the points that carry these attributes."""
        values: list[float] = [
            point.value
            for point in self.points(name)
            if all(point.attributes.get(key) == value for key, value in attributes.items())
        ]
        return sum(values)


@pytest.fixture
def exported() -> Iterator[Exported]:
    """Telemetry through providers of the test's own, read by the SDK's in-memory exporters."""
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    metrics = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[metrics])
    telemetry = OtelTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
    telemetry.watch_traffic(traffic_states)  # as GraphMem.open does with a model endpoint
    yield Exported(spans, metrics, telemetry, tracer_provider, meter_provider)
    tracer_provider.shutdown()
    meter_provider.shutdown()


@contextmanager
def model_memory(
    store: Store, embedder: CachedEmbedder, telemetry: Telemetry
) -> Iterator[tuple[GraphMem, OpenAIEndpoint]]:
    """A memory whose cognition asks a scripted model (the offline rules), and its endpoint."""
    with scripted_openai_server(responder=offline_model) as server:
        endpoint = OpenAIEndpoint(
            server.base_url, SecretStr("sk-test"), timeout_seconds=5, max_retries=0
        )
        cognition = OpenAICognition(endpoint, "scripted")
        try:
            yield GraphMem(store, embedder, cognition, telemetry=telemetry), endpoint
        finally:
            endpoint.close()


def observe_conversation(memory: GraphMem, owner: str) -> None:
    """The crash test's conversation, one turn a call."""
    for number, (session, text) in enumerate(CONVERSATION):
        at = START + timedelta(days=number // 4, hours=number % 4)
        memory.observe(owner, text, message_id=f"m{number}", at=at, session=session)


def attribute(span: ReadableSpan, name: str) -> Any:
    """One attribute of a span."""
    return (span.attributes or {})[name]


def children(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    """The spans whose parent is `span`."""
    assert span.context is not None
    return [
        child
        for child in spans
        if child.parent is not None and child.parent.span_id == span.context.span_id
    ]


def named(spans: Sequence[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    """The spans whose name starts with `prefix`."""
    return [span for span in spans if span.name.startswith(prefix)]


def said(span: ReadableSpan) -> list[str]:
    """Everything a span says in words: its name, attribute values, events, status."""
    values: list[Any] = [span.name, span.status.description]
    attributes = [dict(span.attributes or {})]
    attributes += [dict(event.attributes or {}) for event in span.events]
    for mapping in attributes:
        for value in mapping.values():
            values += list(value) if isinstance(value, tuple) else [value]
    return [str(value) for value in values]


def test_a_recall_is_a_span_with_a_child_per_statement_and_model_call(
    store: Store, embedder: CachedEmbedder, owner: str, exported: Exported
) -> None:
    with model_memory(store, embedder, exported.telemetry) as (memory, endpoint):
        observe_conversation(memory, owner)
        exported.spans.clear()
        statements = memory.store_traffic.statements
        calls = memory.model_calls
        tokens = endpoint.accounting.total()
        recalled = memory.recall(owner, QUERY, at=AT)
        statements = memory.store_traffic.statements - statements
        calls = memory.model_calls - calls
        spent = endpoint.accounting.total()

    spans = exported.finished()
    [verb] = named(spans, "graphmem.recall")
    assert verb.parent is None
    assert {span.context.trace_id for span in spans if span.context} == {verb.context.trace_id}
    assert children(verb, spans) == [span for span in spans if span is not verb]
    store_spans = named(spans, "graphmem.store ")
    model_spans = named(spans, "graphmem.model ")
    assert len(store_spans) + len(model_spans) == len(spans) - 1
    assert len(store_spans) == statements
    if store.traffic().statements:  # Neo4j (the embedded store sends no statements)
        assert statements > 0
        assert "graphmem.store find_neighbours" in {span.name for span in store_spans}
        assert {attribute(span, "db.system.name") for span in store_spans} == {"neo4j"}
    assert [span.name for span in model_spans] == ["graphmem.model perceive"]
    assert len(model_spans) == sum(calls.values()) == 1
    prompt = sum(attribute(span, "graphmem.model.prompt_tokens") for span in model_spans)
    completion = sum(attribute(span, "graphmem.model.completion_tokens") for span in model_spans)
    assert (prompt, completion) == (
        spent.prompt_tokens - tokens.prompt_tokens,
        spent.completion_tokens - tokens.completion_tokens,
    )
    assert dict(verb.attributes or {}) == {
        "graphmem.verb": "recall",
        "graphmem.owner_hash": owner_hash(owner),
        "graphmem.statements": statements,
        "graphmem.model_calls": 1,
        "graphmem.prompt_tokens": prompt,
        "graphmem.completion_tokens": completion,
        "graphmem.recall.depth": int(recalled.attempts[-1].depth),
        "graphmem.recall.attempts": len(recalled.attempts),
        "graphmem.recall.memories": len(recalled.memories),
        "graphmem.recall.cut_short": tuple(recalled.cut_short),
    }
    assert verb.status.status_code == StatusCode.UNSET
    assert all(owner not in text for span in spans for text in said(span))


def test_every_model_call_of_every_verb_is_a_span_and_their_tokens_are_the_accounting(
    store: Store, embedder: CachedEmbedder, owner: str, exported: Exported
) -> None:
    with model_memory(store, embedder, exported.telemetry) as (memory, endpoint):
        statements = memory.store_traffic.statements  # those that prepared the store before
        observe_conversation(memory, owner)
        memory.recall(owner, QUERY, at=AT)
        memory.consolidate(owner, at=AT)
        spent = endpoint.accounting.total()
        calls = memory.model_calls
        statements = memory.store_traffic.statements - statements

    spans = exported.finished()
    verbs = [span for span in spans if span.parent is None]
    assert {span.name for span in verbs} == {
        "graphmem.observe",
        "graphmem.recall",
        "graphmem.consolidate",
    }
    model_spans = named(spans, "graphmem.model ")
    assert len(model_spans) == sum(calls.values()) == spent.calls
    assert {span.name.removeprefix("graphmem.model ") for span in model_spans} == set(calls)
    assert sum(attribute(span, "graphmem.model.prompt_tokens") for span in model_spans) == (
        spent.prompt_tokens
    )
    assert sum(attribute(span, "graphmem.model.completion_tokens") for span in model_spans) == (
        spent.completion_tokens
    )
    # Each verb adds up what ran in it; together, all the store and the model did.
    assert sum(attribute(span, "graphmem.prompt_tokens") for span in verbs) == spent.prompt_tokens
    assert sum(attribute(span, "graphmem.model_calls") for span in verbs) == spent.calls
    assert sum(attribute(span, "graphmem.statements") for span in verbs) == statements
    assert len(named(spans, "graphmem.store ")) == statements
    for verb in verbs:
        assert len(children(verb, spans)) == (
            attribute(verb, "graphmem.statements") + attribute(verb, "graphmem.model_calls")
        )
    assert all(owner not in text for span in spans for text in said(span))

    # The metrics count the same.
    assert exported.total("graphmem.verb.calls", **{"graphmem.verb": "observe"}) == len(
        CONVERSATION
    )
    assert exported.total("graphmem.verb.calls", **{"graphmem.verb": "recall"}) == 1
    [latency] = [
        point
        for point in exported.points("graphmem.verb.duration")
        if point.attributes["graphmem.verb"] == "recall"
    ]
    [recall] = named(verbs, "graphmem.recall")
    assert latency.count == 1
    assert latency.sum == pytest.approx(
        ((recall.end_time or 0) - (recall.start_time or 0)) / 1e9, abs=0.005
    )
    assert exported.total("graphmem.model.calls") == spent.calls
    for task, count in calls.items():
        assert exported.total("graphmem.model.calls", **{"graphmem.model.operation": task}) == (
            count
        )
    assert exported.total("graphmem.model.tokens", **{"graphmem.token.type": "prompt"}) == (
        spent.prompt_tokens
    )
    assert exported.total("graphmem.model.tokens", **{"graphmem.token.type": "completion"}) == (
        spent.completion_tokens
    )
    assert exported.total("graphmem.store.statements") == statements
    assert exported.total("graphmem.turns.left_pending") == 0


def test_an_embedding_call_is_a_model_span_with_its_tokens(exported: Exported, owner: str) -> None:
    vector = [1.0] + [0.0] * (DIMENSIONS - 1)
    with scripted_openai_server(responder=lambda body: embeddings_reply([vector], 7)) as server:
        endpoint = OpenAIEndpoint(
            server.base_url, SecretStr("sk-test"), timeout_seconds=5, max_retries=0
        )
        store = NetworkXStore.open(None)
        store.prepare(DIMENSIONS)
        embedder = CachedEmbedder(OpenAIEmbedder(endpoint, "scripted-embedding", DIMENSIONS))
        with GraphMem(store, embedder, telemetry=exported.telemetry) as memory:
            memory.recall(owner, QUERY, at=AT)
            embedded = endpoint.accounting.by_operation()["embed"]
            [traffic] = [
                point
                for point in exported.points("graphmem.model.in_flight")
                if point.attributes["graphmem.model.base_url"] == server.base_url
            ]
            assert traffic.value == 0
    [verb] = named(exported.finished(), "graphmem.recall")
    [call] = named(exported.finished(), "graphmem.model embed")
    assert children(verb, exported.finished()) == [call]
    assert embedded.calls == 1
    assert attribute(call, "graphmem.model.prompt_tokens") == embedded.prompt_tokens == 7
    assert attribute(call, "graphmem.model.name") == "scripted-embedding"


def test_a_failed_verb_says_its_error_type_and_nothing_of_its_message(
    store: Store, embedder: CachedEmbedder, owner: str, exported: Exported
) -> None:
    traced = GraphMem(store, embedder, telemetry=exported.telemetry)
    with pytest.raises(InvalidInputError, match="k: Input should be"):
        traced.recall(owner, QUERY, k=0)
    with pytest.raises(InvalidInputError):
        traced.observe(owner, "", message_id=owner)
    failed = exported.finished()
    assert [span.name for span in failed] == ["graphmem.recall", "graphmem.observe"]
    for span in failed:
        assert span.status.status_code == StatusCode.ERROR
        assert span.status.description == "InvalidInputError"
        assert attribute(span, "error.type") == "InvalidInputError"
        assert span.events == ()
        assert all(owner not in text for text in said(span))
    assert (
        exported.total(
            "graphmem.verb.calls", **{"graphmem.verb": "recall", "error.type": "InvalidInputError"}
        )
        == 1
    )


def test_the_nightly_job_nests_each_owner_and_counts_its_leases(
    store: Store, embedder: CachedEmbedder, owner: str, exported: Exported
) -> None:
    memory = GraphMem(store, embedder, telemetry=exported.telemetry)
    for name in ("a", "b", "c"):
        memory.observe(f"{owner}-{name}", "I walked along the river.", message_id="m1", at=START)
    exported.spans.clear()
    statements = memory.store_traffic.statements
    report = memory.consolidate_all(prefix=owner, workers=2, at=AT)
    statements = memory.store_traffic.statements - statements

    assert [night.outcome for night in report.owners].count("done") == 3
    spans = exported.finished()
    [night] = named(spans, "graphmem.consolidate_all")
    owners = [span for span in spans if span.name == "graphmem.consolidate"]
    assert len(owners) == 3
    assert all(span.parent and span.parent.span_id == night.context.span_id for span in owners)
    assert {attribute(span, "graphmem.owner_hash") for span in owners} == {
        owner_hash(f"{owner}-{name}") for name in "abc"
    }
    assert attribute(night, "graphmem.statements") == statements
    assert len(named(spans, "graphmem.store ")) == statements
    if statements:  # Neo4j: the leases are claimed and released by statements of the night
        claims = [span for span in spans if span.name == "graphmem.store claim_owner"]
        assert claims
        assert all(span.parent and span.parent.span_id == night.context.span_id for span in claims)
    leases = exported.points("graphmem.nightly.leases")
    assert [point.value for point in leases] == [0]  # three taken, three given up


def test_with_telemetry_off_nothing_is_exported_and_recall_answers_alike(
    store: Store,
    embedder: CachedEmbedder,
    owner: str,
    exported: Exported,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def session(telemetry: Telemetry) -> Recall:
        """The conversation observed afresh and recalled from."""
        with model_memory(store, embedder, telemetry) as (memory, _endpoint):
            memory.forget(owner)
            observe_conversation(memory, owner)
            return memory.recall(owner, QUERY, at=AT)

    # The test's providers are the process's global ones too, as an application sets them:
    # whatever telemetry off reported, to them or to the test's telemetry, would be read here.
    monkeypatch.setattr("opentelemetry.trace._TRACER_PROVIDER", exported.tracer_provider)
    monkeypatch.setattr("opentelemetry.metrics._internal._METER_PROVIDER", exported.meter_provider)
    off = session(Telemetry())
    assert exported.finished() == []
    assert exported.measured() <= TRAFFIC_GAUGES  # read from the process's traffic, on or off
    with OtelTelemetry().verb("probe"):  # the global providers' telemetry is read here indeed
        pass
    assert [span.name for span in exported.finished()] == ["graphmem.probe"]
    assert exported.total("graphmem.verb.calls", **{"graphmem.verb": "probe"}) == 1
    on = session(exported.telemetry)
    assert len(named(exported.finished(), "graphmem.observe")) == len(CONVERSATION)
    assert on.model_dump() == off.model_dump()


def test_a_memory_without_telemetry_reports_nothing_inside_a_traced_verb(
    store: Store, embedder: CachedEmbedder, owner: str, exported: Exported
) -> None:
    with model_memory(store, embedder, Telemetry()) as (memory, endpoint):
        with exported.telemetry.verb("outer"):
            observe_conversation(memory, owner)  # its model calls, and on Neo4j its statements
        assert endpoint.accounting.total().calls > 0  # the model was asked
    assert [span.name for span in exported.finished()] == ["graphmem.outer"]


def test_the_setting_names_the_extra_and_graphmem_needs_no_opentelemetry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().telemetry == "off"
    assert Settings.from_env({"GRAPHMEM_TELEMETRY": "otel"}).telemetry == "otel"
    with pytest.raises(ConfigurationError, match="GRAPHMEM_TELEMETRY: Input should be 'off'"):
        Settings.from_env({"GRAPHMEM_TELEMETRY": "on"})
    assert type(settings_telemetry(Settings())) is Telemetry
    assert isinstance(settings_telemetry(Settings(telemetry="otel")), OtelTelemetry)

    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as if graphmem[otel] were not there
    with pytest.raises(ConfigurationError, match=r"pip install 'graphmem\[otel\]'"):
        GraphMem.open(Settings(telemetry="otel"))

    # A process without opentelemetry imports graphmem and remembers with it.
    script = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "from datetime import datetime, UTC\n"
        "from graphmem import GraphMem, Settings\n"
        "with GraphMem.open(Settings()) as memory:\n"
        "    at = datetime(2026, 3, 2, 9, tzinfo=UTC)\n"
        "    memory.observe('alice', 'I am allergic to milk.', message_id='m1', at=at)\n"
        "    print(memory.recall('alice', 'milk?', at=at).memories[0].memory.text)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "I am allergic to milk.\n", "")
