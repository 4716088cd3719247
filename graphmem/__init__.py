"""graphmem: long-term memory for conversational agents, kept as a graph (Neo4j or in process)."""

from graphmem.config import Settings
from graphmem.contract import (
    Forgotten,
    GraphCounts,
    Health,
    HealthCounts,
    NightProgress,
    NightReport,
    Observation,
    OwnerGraph,
    OwnerNight,
    Profile,
    Recall,
    RecalledMemory,
    SleepProgress,
    SleepReport,
)
from graphmem.errors import (
    ConfigurationError,
    ConflictError,
    GraphMemError,
    InvalidInputError,
    ModelError,
    StoreError,
    StoreUnavailableError,
)
from graphmem.memory import GraphMem
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

__version__ = "0.2.0"
"""The release: pyproject.toml reads it from here, CHANGELOG.md says what each one changed."""

__all__ = [
    "Attention",
    "ConfigurationError",
    "ConflictError",
    "Event",
    "Forgotten",
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
    "NightProgress",
    "NightReport",
    "Observation",
    "OwnerGraph",
    "OwnerNight",
    "Profile",
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
