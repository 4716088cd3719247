"""graphmem: long-term memory for conversational agents, kept as a graph (Neo4j or in process).

`GraphMem`, `Settings` and `to_networkx` (a recall as a networkx graph) are imported when first
asked for, so that `import graphmem.client` (an HTTP client) loads the contract, the errors and
the model, and nothing of a store or of the embedder.
"""

import importlib
from typing import TYPE_CHECKING

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
    RecallQuestion,
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

if TYPE_CHECKING:
    from graphmem.config import Settings
    from graphmem.memory import GraphMem
    from graphmem.store.networkx_graph import to_networkx

LAZY = {
    "GraphMem": "graphmem.memory",
    "Settings": "graphmem.config",
    "to_networkx": "graphmem.store.networkx_graph",
}
"""The names imported when first asked for, and their modules."""

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
    "RecallQuestion",
    "RecalledMemory",
    "Settings",
    "SleepProgress",
    "SleepReport",
    "StoreError",
    "StoreUnavailableError",
    "Tier",
    "Turn",
    "to_networkx",
]


def __getattr__(name: str) -> object:
    """GraphMem, Settings and to_networkx, imported from their modules when first asked for."""
    if name in LAZY:
        return getattr(importlib.import_module(LAZY[name]), name)
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
