"""Ids of the nodes graphmem derives, made from what they were derived from.

The same source always gives the same id, so work that is redone after a crash or a second
run finds what it made before instead of making it twice.
"""

import uuid

from graphmem.model import MemoryKind

MEMORY_IDS = uuid.UUID("6f3a1c52-4b8e-4f0e-9d0a-2f6c1b9e7a31")
SUMMARY_IDS = uuid.UUID("3c1d8f5e-2a7b-4b9e-9f61-5e0a4c7d2b18")
EVENT_IDS = uuid.UUID("9a4e2b61-7c3d-4f8a-b5e2-1d6f0c9a8e73")
IMPRESSION_IDS = uuid.UUID("0b6f0d0e-6a47-4d1e-8f53-7f0d2d4a9c11")


def observation_id(owner: str, turn_id: str) -> str:
    """The id of the observation memory derived from a turn."""
    return str(uuid.uuid5(MEMORY_IDS, f"{owner}\n{turn_id}\n{MemoryKind.OBSERVATION}"))


def conjecture_id(owner: str, turn_id: str, impression: str) -> str:
    """The id of the conjecture a turn's impression makes when it crosses the threshold."""
    return str(uuid.uuid5(MEMORY_IDS, f"{owner}\n{turn_id}\n{impression}\n{MemoryKind.CONJECTURE}"))


def knowledge_id(owner: str, statement: str) -> str:
    """The id of the owner's knowledge memory of a statement."""
    return str(uuid.uuid5(MEMORY_IDS, f"{owner}\n{statement}\n{MemoryKind.KNOWLEDGE}"))


def summary_id(owner: str, first_turn_id: str) -> str:
    """The id of the dialogue summary whose chunk starts at a turn."""
    return str(uuid.uuid5(SUMMARY_IDS, f"{owner}\n{first_turn_id}"))


def event_id(owner: str, category: str, first_turn_id: str) -> str:
    """The id of the event of a category that a turn starts."""
    return str(uuid.uuid5(EVENT_IDS, f"{owner}\n{category}\n{first_turn_id}"))


def impression_id(owner: str, statement: str) -> str:
    """The id of the owner's impression of a statement (case and spacing do not matter)."""
    key = " ".join(statement.lower().split())
    return str(uuid.uuid5(IMPRESSION_IDS, f"{owner}\n{key}"))


def fact_id(owner: str, turn_id: str, slot: str) -> str:
    """The id of the fact of a slot that the sleep job read in a turn."""
    return str(uuid.uuid5(MEMORY_IDS, f"{owner}\n{turn_id}\n{slot}\n{MemoryKind.FACT}"))
