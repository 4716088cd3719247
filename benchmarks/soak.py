"""A soak: thousands of random operations over many owners, each owner checked against a model.

    python benchmarks/soak.py [--operations 10000] [--owners 50] [--seed 7]
        [--store networkx|neo4j] [--check-every 500] [--out benchmarks/soak-STORE.json]

Operations drawn at random, by weight: observe a new message (7), observe a message again
with its id (a retry: 1), recall (4, waking or peeking), forget a message (1), consolidate (1),
export (1), forget the owner and import the export kept of it (1), forget the owner (0.2).
The clock moves 1 to 120 minutes before each. Every text names its owner ("[soak-17] I'm
allergic to milk."), and owners say the same things, so that a query or a search that lost its
owner would find another owner's memories. The script keeps a model of each owner: the message
ids and texts it observed, the ids it forgot (each leaves a tombstone: observing it again
stores nothing), the export kept for the next import. After each operation the owner it
touched is checked, and every owner every --check-every operations and at the end:
- the exported graph: every node carries the owner, every edge joins two of its nodes, its turns
  are exactly the model's (id and text), its tombstones exactly the forgotten ids', and no
  text names another owner;
- a recall: each memory and its turns carry the owner and no text names another owner;
- an import: the graph after forgetting the owner and importing its export equals the export;
- an observe again of a message stores nothing (no new turn), of a forgotten one neither.
A check that fails counts as wrong, with what it found (the first 20 kept in the JSON). The
figures: operations by kind, checks, wrong (0 is the target), seconds, operations a second.
Offline cognition and e5 embeddings (its cache in .cache/soak-embeddings.sqlite, so a rerun
embeds nothing new). Neo4j needs GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD; its owners are
named soak-<random>-<n> and forgotten at the end.
"""

import argparse
import json
import random
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from provenance import write_result

from graphmem.config import Settings
from graphmem.contract import OwnerGraph, tombstone_hash
from graphmem.errors import ConflictError
from graphmem.memory import GraphMem
from graphmem.model import Turn

START = datetime(2026, 6, 1, 8, tzinfo=UTC)
TAG = re.compile(r"\[soak-\d+\]")
"""How a text names its owner."""
SAID = (
    "I'm allergic to milk, even a drop makes me ill.",
    "There's half a glass of milk on the table.",
    "My throat hurts and I have a runny nose.",
    "I think I caught a cold, I have a fever tonight.",
    "We booked a trip to Disneyland for the summer.",
    "At Disneyland the castle was huge and the parade was loud.",
    "I helped my neighbour carry her groceries upstairs.",
    "I volunteered at the food bank after work.",
    "I can't sleep, I'm worried about my exams.",
    "My boss moved the project deadline to Friday.",
    "I moved to Lyon last spring.",
    "I live in Berlin now.",
    "我嗓子疼，可能感冒了。",
    "我们周末去迪士尼乐园玩。",
    "我帮助邻居搬了家。",
)
QUERIES = (
    "Can I drink this milk?",
    "Am I sick?",
    "What did we do at Disneyland?",
    "Who did I help?",
    "Where do I live?",
    "我感冒了吗？",
)
WEIGHTS = {
    "observe": 7.0,
    "observe again": 1.0,
    "recall": 4.0,
    "forget message": 1.0,
    "consolidate": 1.0,
    "export": 1.0,
    "import": 1.0,
    "forget owner": 0.2,
}


@dataclass
class Owner:
    """What the soak knows one owner holds."""

    name: str
    tag: str
    turns: dict[str, str] = field(default_factory=dict)
    """Message id -> text, of the messages observed and not forgotten."""
    forgotten: dict[str, str] = field(default_factory=dict)
    """Message id -> text, of the messages forgotten (their ids leave tombstones)."""
    kept: OwnerGraph | None = None
    """The export the next import loads, with the turns and forgotten ids of its time."""
    kept_turns: dict[str, str] = field(default_factory=dict)
    kept_forgotten: dict[str, str] = field(default_factory=dict)
    numbers: int = 0


@dataclass
class Tally:
    """Operations by kind, checks made, and what was wrong."""

    operations: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)


class Soak:
    """The owners, the memory they live in, the clock, and the checks."""

    def __init__(self, memory: GraphMem, owners: int, seed: int) -> None:
        self.memory = memory
        self.random = random.Random(seed)  # noqa: S311 (a seeded draw, not secrets)
        run = secrets.token_hex(4)
        self.owners = [Owner(f"soak-{run}-{n}", f"[soak-{n}]") for n in range(owners)]
        self.now = START
        self.tally = Tally()

    def step(self) -> str:
        """Draw one operation, run it on a random owner, and check that owner."""
        kinds = list(WEIGHTS)
        kind = self.random.choices(kinds, [WEIGHTS[name] for name in kinds])[0]
        owner = self.random.choice(self.owners)
        self.now += timedelta(minutes=self.random.randint(1, 120))
        self.tally.operations[kind] += 1
        getattr(self, "_" + kind.replace(" ", "_"))(owner)
        self.check_graph(owner)
        return kind

    def _observe(self, owner: Owner) -> None:
        owner.numbers += 1
        message_id = f"m{owner.numbers}"
        text = f"{owner.tag} {self.random.choice(SAID)} ({owner.numbers})"
        session = f"day-{(self.now - START).days}"
        seen = self.memory.observe(
            owner.name, text, message_id=message_id, at=self.now, session=session
        )
        self.expect(seen.turn.text == text and not seen.forgotten, "observe", owner, message_id)
        owner.turns[message_id] = text

    def _observe_again(self, owner: Owner) -> None:
        said = owner.turns | owner.forgotten
        if not said:
            return
        message_id = self.random.choice(sorted(said))
        before = len(self.turns_of(self.memory.export(owner.name)))
        if message_id in owner.turns and self.random.random() < 0.3:  # another text: refused
            try:
                self.memory.observe(owner.name, "Something else.", message_id=message_id)
            except ConflictError:
                self.tally.checks["observe again, another text"] += 1
            else:
                self.wrong("observe again", owner, f"{message_id} taken with another text")
            return
        seen = self.memory.observe(owner.name, said[message_id], message_id=message_id)
        after = len(self.turns_of(self.memory.export(owner.name)))
        forgotten = message_id in owner.forgotten
        fine = before == after and seen.memories == [] and seen.forgotten == forgotten
        self.expect(fine, "observe again", owner, f"{message_id}: {before} -> {after} turns")

    def _recall(self, owner: Owner) -> None:
        query = self.random.choice(QUERIES)
        found = self.memory.recall(
            owner.name,
            query,
            k=self.random.randint(1, 10),
            peek=self.random.random() < 0.5,
            at=self.now,
        )
        self.tally.checks["recall"] += 1
        for item in found.memories:
            nodes = [item.memory, *item.turns]
            if any(node.owner != owner.name for node in nodes):
                self.wrong("recall", owner, f"{query!r} returned another owner's node")
            if any(self.names_another(owner, node.text) for node in nodes):
                self.wrong("recall", owner, f"{query!r} returned another owner's text")
            if any(turn.id not in owner.turns for turn in item.turns):
                self.wrong("recall", owner, f"{query!r} returned a turn the owner has not")

    def _forget_message(self, owner: Owner) -> None:
        if not owner.turns:
            return
        message_id = self.random.choice(sorted(owner.turns))
        forgotten = self.memory.forget_message(owner.name, message_id)
        self.expect(forgotten.found, "forget message", owner, message_id)
        owner.forgotten[message_id] = owner.turns.pop(message_id)

    def _consolidate(self, owner: Owner) -> None:
        self.memory.consolidate(owner.name, at=self.now)

    def _export(self, owner: Owner) -> None:
        owner.kept = self.memory.export(owner.name)
        owner.kept_turns = dict(owner.turns)
        owner.kept_forgotten = dict(owner.forgotten)

    def _import(self, owner: Owner) -> None:
        if owner.kept is None:
            return
        self.memory.forget(owner.name)
        self.memory.load(owner.name, owner.kept)
        owner.turns = dict(owner.kept_turns)
        owner.forgotten = dict(owner.kept_forgotten)
        self.tally.checks["import"] += 1
        if self.memory.export(owner.name) != owner.kept:
            self.wrong("import", owner, "the graph after import is not the export")

    def _forget_owner(self, owner: Owner) -> None:
        counts = self.memory.forget(owner.name)
        self.expect(counts.total == 0, "forget owner", owner, f"{counts.total} nodes left")
        owner.turns, owner.forgotten = {}, {}

    def check_graph(self, owner: Owner) -> None:
        """The owner's export against the model: owner, edges, turns, tombstones, texts."""
        graph = self.memory.export(owner.name)
        self.tally.checks["graph"] += 1
        ids = {node.id for node in graph.nodes}
        if any(node.owner != owner.name for node in graph.nodes):
            self.wrong("graph", owner, "a node of another owner")
        if any(link.source not in ids or link.target not in ids for _s, _t, link in graph.links):
            self.wrong("graph", owner, "an edge to a node the owner has not")
        turns = {turn.id: turn.text for turn in self.turns_of(graph)}
        if turns != owner.turns:
            missing = sorted(set(owner.turns) - set(turns))[:5]
            extra = sorted(set(turns) - set(owner.turns))[:5]
            self.wrong("graph", owner, f"turns differ: missing {missing}, extra {extra}")
        tombstones = {tombstone.hash for tombstone in graph.tombstones}
        if tombstones != {tombstone_hash(message_id) for message_id in owner.forgotten}:
            self.wrong("graph", owner, "tombstones differ from the forgotten ids")
        if any(
            self.names_another(owner, node.text) for node in graph.nodes if hasattr(node, "text")
        ):
            self.wrong("graph", owner, "a text of another owner")

    def check_all(self) -> None:
        """Check every owner's graph."""
        for owner in self.owners:
            self.check_graph(owner)

    def names_another(self, owner: Owner, text: str) -> bool:
        """Whether a text carries another owner's tag."""
        return any(tag != owner.tag for tag in TAG.findall(text))

    @staticmethod
    def turns_of(graph: OwnerGraph) -> list[Turn]:
        """The turns of an exported graph."""
        return [node for node in graph.nodes if isinstance(node, Turn)]

    def expect(self, fine: bool, kind: str, owner: Owner, what: str) -> None:
        """Count a check, and a wrong one if it failed."""
        self.tally.checks[kind] += 1
        if not fine:
            self.wrong(kind, owner, what)

    def wrong(self, kind: str, owner: Owner, what: str) -> None:
        """Record a check that failed."""
        self.tally.wrong.append(f"{kind} {owner.name}: {what}")


def main() -> None:
    """Run the soak and write its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--operations", type=int, default=10_000)
    parser.add_argument("--owners", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--check-every", type=int, default=500)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    settings = Settings.from_env(
        store=arguments.store, path=None, embedding_cache=Path(".cache/soak-embeddings.sqlite")
    )
    started = time.perf_counter()
    with GraphMem.open(settings) as memory:
        soak = Soak(memory, arguments.owners, arguments.seed)
        try:
            for number in range(1, arguments.operations + 1):
                soak.step()
                if number % arguments.check_every == 0:
                    soak.check_all()
                    print(
                        f"{number} operations, {sum(soak.tally.checks.values())} checks,"
                        f" {len(soak.tally.wrong)} wrong, {time.perf_counter() - started:.0f} s",
                        flush=True,
                    )
            soak.check_all()
        finally:
            for owner in soak.owners:
                memory.forget(owner.name)
    seconds = time.perf_counter() - started
    tally = soak.tally
    result: dict[str, Any] = {
        "store": arguments.store,
        "operations": dict(tally.operations),
        "owners": arguments.owners,
        "seed": arguments.seed,
        "checks": dict(tally.checks),
        "wrong": len(tally.wrong),
        "first_wrong": tally.wrong[:20],
        "seconds": round(seconds, 1),
        "operations_per_second": round(arguments.operations / seconds, 1),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    out = arguments.out or Path(f"benchmarks/soak-{arguments.store}.json")
    write_result(out, result)


if __name__ == "__main__":
    main()
