"""What a memory is made of: the parts `GraphMem.open` opens, the pipelines `GraphMem` wires.

`open_parts` opens the model endpoint, embedder, cognition and store the settings name;
`wire_pipelines` builds over a store, embedder and cognition the pipelines the verbs hand their
work to (graphmem.ingestion, graphmem.recall_pipeline, graphmem.sleep, graphmem.forgetting).
"""

from contextlib import ExitStack
from dataclasses import dataclass

from graphmem.cognition.base import Cognition, CountedCognition
from graphmem.cognition.offline import OfflineCognition, offline_cognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.embedding import CachedEmbedder, E5Embedder, Embedder, OpenAIEmbedder
from graphmem.errors import ConfigurationError
from graphmem.forgetting import Forget
from graphmem.ingestion import Ingestion
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.mechanisms.events import SummaryPolicy
from graphmem.mechanisms.impressions import ImpressionPolicy
from graphmem.mechanisms.profile import ProfilePolicy
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.openai_endpoint import OpenAIEndpoint, ResponseCache, traffic_states
from graphmem.recall_pipeline import Recalling
from graphmem.scoring import RecallPolicy
from graphmem.sleep import Sleep
from graphmem.store.base import Store
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.networkx import NetworkXStore
from graphmem.telemetry import OtelTelemetry, Telemetry


@dataclass(frozen=True)
class Parts:
    """What a memory is made of, opened: its store (schema ready), embedder and cognition.

    `endpoint` is the OpenAI-compatible endpoint that the embedder or the cognition use, if
    the settings name one; whoever holds the parts closes it with the store and the embedder.
    `telemetry` is what the memory's verbs report to (graphmem.telemetry).
    """

    store: Store
    embedder: CachedEmbedder
    cognition: Cognition
    endpoint: OpenAIEndpoint | None
    telemetry: Telemetry


def open_parts(
    settings: Settings,
    *,
    cognition: Cognition | None,
    embedder: Embedder | None,
    telemetry: Telemetry | None = None,
) -> Parts:
    """Open the parts the settings name; a cognition, embedder or telemetry given replaces theirs.

    The embedder, given or not, is cached as the settings say (`embedding_cache`). If a step
    fails, what the steps before it opened is closed again.
    """
    if settings.store == "neo4j" and settings.neo4j_password is None:
        raise ConfigurationError("the neo4j store needs GRAPHMEM_NEO4J_PASSWORD")
    if telemetry is None:
        telemetry = settings_telemetry(settings)
    model_cognition = cognition is None and settings.cognition == "openai"
    model_embedder = embedder is None and settings.embedder == "openai"
    with ExitStack() as opened:
        endpoint = _endpoint(settings) if model_cognition or model_embedder else None
        if endpoint is not None:
            opened.callback(endpoint.close)
            telemetry.watch_traffic(traffic_states)
        if embedder is None:
            embedder = _embedder(settings, endpoint)
        cached = CachedEmbedder(embedder, settings.embedding_cache)
        opened.callback(cached.close)
        if cognition is None:
            cognition = (
                OpenAICognition(endpoint, settings.openai_chat_model)
                if endpoint is not None and model_cognition
                else offline_cognition(cached)
            )
        store: Store
        if settings.store == "neo4j":
            assert settings.neo4j_password is not None
            store = Neo4jStore.connect(
                settings.neo4j_uri,
                settings.neo4j_user,
                settings.neo4j_password,
                settings.neo4j_database,
            )
        else:
            store = NetworkXStore.open(settings.path)
        opened.callback(store.close)
        store.prepare(cached.dimensions)
        opened.pop_all()
    return Parts(
        store=store, embedder=cached, cognition=cognition, endpoint=endpoint, telemetry=telemetry
    )


@dataclass(frozen=True)
class Pipelines:
    """The pipelines a memory's verbs hand their work to, and the cognition and policies they share.

    `cognition` counts the calls made through it; `cognition_name` is how a health report
    names the cognition it counts.
    """

    cognition: CountedCognition
    cognition_name: str
    attention: AttentionPolicy
    tiers: TierPolicy
    recall_policy: RecallPolicy
    sleep: Sleep
    ingestion: Ingestion
    recalling: Recalling
    forget: Forget


def wire_pipelines(
    store: Store,
    embedder: Embedder,
    cognition: Cognition | None,
    *,
    chunk_turns: int,
    attention: AttentionPolicy | None,
    tiers: TierPolicy | None,
    recall_policy: RecallPolicy | None,
    beliefs: BeliefPolicy | None,
    impressions: ImpressionPolicy | None,
    summaries: SummaryPolicy | None,
    profile: ProfilePolicy | None,
) -> Pipelines:
    """Wire the pipelines over a store and embedder: offline rules and default policies if None."""
    cognition = offline_cognition(embedder) if cognition is None else cognition
    # What perceives a turn that the model cannot answer about: the cognition if offline.
    offline = cognition if isinstance(cognition, OfflineCognition) else offline_cognition(embedder)
    counted = CountedCognition(cognition)
    name = cognition_name(cognition)
    attention = AttentionPolicy() if attention is None else attention
    tiers = TierPolicy() if tiers is None else tiers
    recall_policy = RecallPolicy() if recall_policy is None else recall_policy
    beliefs = BeliefPolicy() if beliefs is None else beliefs
    impressions = ImpressionPolicy() if impressions is None else impressions
    summaries = SummaryPolicy() if summaries is None else summaries
    sleep = Sleep(
        store,
        embedder,
        counted,
        attention=attention,
        tiers=tiers,
        beliefs=beliefs,
        summaries=summaries,
    )
    ingestion = Ingestion(
        store,
        embedder,
        counted,
        sleep,
        offline=offline,
        chunk_turns=chunk_turns,
        attention=attention,
        tiers=tiers,
        beliefs=beliefs,
        impressions=impressions,
        summaries=summaries,
    )
    recalling = Recalling(
        store,
        embedder,
        counted,
        policy=recall_policy,
        attention=attention,
        tiers=tiers,
        first_hand=beliefs.first_hand,
        profile=ProfilePolicy() if profile is None else profile,
        count_tokens=E5Embedder().count_tokens,
    )
    forget = Forget(store, counted, embedder, impressions=impressions, tiers=tiers)
    return Pipelines(
        cognition=counted,
        cognition_name=name,
        attention=attention,
        tiers=tiers,
        recall_policy=recall_policy,
        sleep=sleep,
        ingestion=ingestion,
        recalling=recalling,
        forget=forget,
    )


def settings_telemetry(settings: Settings) -> Telemetry:
    """The telemetry the settings ask for: none, or OpenTelemetry's global providers."""
    if settings.telemetry == "otel":
        return OtelTelemetry()
    return Telemetry()


def cognition_name(cognition: Cognition) -> str:
    """How a health report names a cognition: offline rules, its chat model, or its class."""
    if isinstance(cognition, OfflineCognition):
        return "offline rules"
    if isinstance(cognition, OpenAICognition):
        return f"chat model {cognition.model}"
    return type(cognition).__name__


def _endpoint(settings: Settings) -> OpenAIEndpoint:
    """The OpenAI-compatible endpoint the settings name, for the embedder or the cognition."""
    if settings.openai_api_key is None:
        raise ConfigurationError("the openai embedder and cognition need GRAPHMEM_OPENAI_API_KEY")
    cache = settings.openai_response_cache
    return OpenAIEndpoint(
        settings.openai_base_url,
        settings.openai_api_key,
        timeout_seconds=settings.openai_timeout_seconds,
        max_retries=settings.openai_max_retries,
        backoff_seconds=settings.openai_backoff_seconds,
        max_concurrent=settings.openai_max_concurrent,
        requests_per_minute=settings.openai_requests_per_minute,
        tokens_per_minute=settings.openai_tokens_per_minute,
        json_mode=None if settings.openai_json_mode == "auto" else settings.openai_json_mode,
        cache=None if cache is None else ResponseCache(cache),
        max_tokens=settings.openai_max_tokens,
    )


def _embedder(settings: Settings, endpoint: OpenAIEndpoint | None) -> Embedder:
    """The embedder the settings name."""
    if settings.embedder == "openai" and endpoint is not None:
        return OpenAIEmbedder(
            endpoint, settings.openai_embedding_model, settings.openai_embedding_dimensions
        )
    return E5Embedder()
