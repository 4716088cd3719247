"""A writer process for the crash test: saves turns and their memories, acknowledging each."""

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphmem.mechanisms.attention import initial_attention
from graphmem.model import Memory, MemoryKind, Tier, Turn
from graphmem.store.changes import Derivation
from graphmem.store.networkx import NetworkXStore

START = datetime(2026, 1, 1, tzinfo=UTC)


def main() -> None:
    """Write turns 0, 1, 2, ... to the store at argv[1] until killed; print each one saved."""
    store = NetworkXStore.open(Path(sys.argv[1]), snapshot_every=int(sys.argv[2]))
    for number in range(100_000):
        at = START + timedelta(minutes=number)
        [turn] = store.save_turns(
            "crash",
            [Turn(id=f"t{number}", owner="crash", text=f"turn number {number}", created_at=at)],
        )
        memory = Memory(
            id=f"m{number}",
            owner="crash",
            text=turn.text,
            created_at=at,
            kind=MemoryKind.OBSERVATION,
            importance=5.0,
            attention=initial_attention(5.0, at),
            tier=Tier.HOT,
            embedding=[float(number % 7), 1.0, float(number % 3)],
            accessed_at=at,
        )
        store.save_memories("crash", [Derivation(source=turn, memories=[memory])])
        print(number, flush=True)


if __name__ == "__main__":
    main()
