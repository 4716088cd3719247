"""graphmem: long-term memory for conversational agents, kept as a graph (Neo4j or in process)."""

from graphmem.config import Settings
from graphmem.errors import (
    ConfigurationError,
    ConflictError,
    GraphMemError,
    InvalidInputError,
    ModelError,
    StoreError,
    StoreUnavailableError,
)
from graphmem.memory import (
    GraphMem,
    Health,
    Observation,
    Recall,
    RecalledMemory,
    SleepProgress,
    SleepReport,
)
from graphmem.model import (
    Attention,
    Event,
    Impression,
    Link,
    LinkType,
    Memory,
    MemoryKind,
    Tier,
    Turn,
)
from graphmem.store.base import GraphCounts, HealthCounts, OwnerGraph

__all__ = [
    "Attention",
    "ConfigurationError",
    "ConflictError",
    "Event",
    "GraphCounts",
    "GraphMem",
    "GraphMemError",
    "Health",
    "HealthCounts",
    "Impression",
    "InvalidInputError",
    "Link",
    "LinkType",
    "Memory",
    "MemoryKind",
    "ModelError",
    "Observation",
    "OwnerGraph",
    "Recall",
    "RecalledMemory",
    "Settings",
    "SleepProgress",
    "SleepReport",
    "StoreError",
    "StoreUnavailableError",
    "Tier",
    "Turn",
]
