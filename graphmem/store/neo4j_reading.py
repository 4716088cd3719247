"""The Neo4j store's reads of an owner's graph: turns, profile sources, export, counts, pages."""

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.contract import GraphCounts, HealthCounts, OwnerGraph, TimelineWanted, Tombstone
from graphmem.mechanisms.profile import (
    ConjecturedImpression,
    EventNews,
    ProfileSources,
    SlotFact,
)
from graphmem.model import Event, Impression, Link, Memory, Tier, Turn
from graphmem.store.changes import Cause
from graphmem.store.neo4j_connection import Neo4jConnection
from graphmem.store.neo4j_properties import (
    NODE_READERS,
    event_from,
    impression_from,
    memory_from,
    turn_from,
)
from graphmem.store.neo4j_statements import load_statement
from graphmem.store.rules import belief_bin


def _labelled_link_from(values: Sequence[Any]) -> tuple[str, str, Link]:
    """An edge with its end labels from [type, source, target, weight, sufficiency, belief, …]."""
    kind, source, target, weight, sufficiency, belief, source_label, target_label = values
    link = Link(
        type=kind,
        source=source,
        target=target,
        weight=weight,
        sufficiency=sufficiency,
        belief=belief,
    )
    return source_label, target_label, link


class Neo4jReading(Neo4jConnection):
    """The Neo4j store's reads of an owner's turns, profile sources, whole graph and counts."""

    def session_turns(self, owner: str, session: str, last: int | None) -> list[Turn]:
        """The turns of one session of the owner in their order: all, or the `last` of them."""
        parameters = {"owner": owner, "session": session, "last": last}
        rows = self._run(load_statement("session_turns"), parameters, read=True)
        return [turn_from(row["turn"]) for row in rows]

    def pending_turns(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns whose memories are not derived yet, oldest first."""
        rows = self._run(
            load_statement("pending_turns"), {"owner": owner, "limit": limit}, read=True
        )
        return [turn_from(row["turn"]) for row in rows]

    def profile_sources(self, owner: str, at: datetime) -> ProfileSources:
        """What the owner's profile at `at` is read from (mechanisms.profile.ProfileSources)."""
        [row] = self._run(load_statement("profile_sources"), {"owner": owner, "at": at}, read=True)
        return ProfileSources(
            facts=[
                SlotFact(fact=memory_from(item["fact"]), belief=item["belief"])
                for item in row["facts"]
            ],
            impressions=[
                ConjecturedImpression(
                    impression=impression_from(item["impression"]), rests_on=item["rests_on"]
                )
                for item in row["impressions"]
            ],
            events=[
                EventNews(event=event_from(item["event"]), members=item["members"])
                for item in row["events"]
            ],
            causal_rules=row["causal_rules"],
        )

    def causal_rules(self, owner: str) -> list[Cause]:
        """The owner's causal knowledge: every CAUSES edge, by cause and effect."""
        [row] = self._run(load_statement("causal_rules"), {"owner": owner}, read=True)
        return [Cause.model_validate(rule) for rule in row["rules"]]

    def export(self, owner: str) -> OwnerGraph:
        """Every node, edge and tombstone of the owner (by label and id, type and ends, hash)."""
        [row] = self._run(load_statement("export"), {"owner": owner}, read=True)
        return OwnerGraph(
            nodes=[NODE_READERS[item["label"]](item["node"]) for item in row["nodes"]],
            links=[_labelled_link_from(link) for link in row["links"]],
            tombstones=[Tombstone(owner=owner, hash=hash) for hash in row["tombstones"]],
        )

    def timeline(
        self, owner: str, wanted: TimelineWanted, limit: int
    ) -> list[tuple[Memory, list[Turn]]]:
        """Up to `limit` of the owner's memories `wanted` admits, newest first, with turns."""
        before_at, before_id = wanted.cursor or (None, None)
        parameters = {
            "owner": owner,
            "limit": limit,
            "before_at": before_at,
            "before_id": before_id,
            "kinds": None if wanted.kinds is None else [kind.value for kind in wanted.kinds],
            "tiers": None if wanted.tiers is None else [int(tier) for tier in wanted.tiers],
            "since": wanted.since,
            "until": wanted.until,
            "contains": None if wanted.contains is None else wanted.contains.lower(),
            "session": wanted.session,
            "speaker": wanted.speaker,
        }
        rows = self._run(load_statement("timeline"), parameters, read=True)
        return [
            (memory_from(row["memory"]), [turn_from(turn) for turn in row["turns"]]) for row in rows
        ]

    def events(self, owner: str) -> list[tuple[Event, int]]:
        """Every event of the owner (embedding empty), latest first, with its memories counted."""
        rows = self._run(load_statement("events"), {"owner": owner}, read=True)
        return [(event_from(row["event"]), row["memories"]) for row in rows]

    def impressions(self, owner: str) -> list[tuple[Impression, int, int]]:
        """Every impression of the owner (embedding empty), with its cues and conjectures."""
        rows = self._run(load_statement("impressions"), {"owner": owner}, read=True)
        return [
            (impression_from(row["impression"]), row["cues"], row["conjectures"]) for row in rows
        ]

    def neighbourhood(self, owner: str, label: str, node_id: str) -> OwnerGraph:
        """The node, every node one edge away from it and those edges (empty if none)."""
        parameters = {"owner": owner, "label": label, "id": node_id}
        rows = self._run(load_statement("neighbourhood"), parameters, read=True)
        if not rows:
            return OwnerGraph(nodes=[], links=[])
        [row] = rows
        neighbours = sorted(row["neighbours"], key=lambda item: (item["label"], item["node"]["id"]))
        links = sorted(
            map(_labelled_link_from, row["links"]),
            key=lambda item: (item[2].type.value, item[2].source, item[2].target),
        )
        return OwnerGraph(
            nodes=[
                NODE_READERS[item["label"]](item["node"]) for item in [row["node"], *neighbours]
            ],
            links=links,
        )

    def owners(self) -> list[str]:
        """Every owner that has a turn, sorted."""
        [row] = self._run(load_statement("owners"), {}, read=True)
        return list(row["owners"])

    def count_graph(self, owner: str) -> GraphCounts:
        """Count the owner's nodes per label, edges per type, memories per tier and belief.

        With them its tombstones, which count_nodes.cypher counts as a label of its own.
        """
        nodes = self._run(load_statement("count_nodes"), {"owner": owner}, read=True)
        links = self._run(load_statement("count_links"), {"owner": owner}, read=True)
        memories = self._run(load_statement("count_memories"), {"owner": owner}, read=True)
        tiers = dict.fromkeys(map(int, Tier), 0)
        beliefs: Counter[str] = Counter()
        for row in memories:
            tiers[row["tier"]] += row["count"]
            tenth = row["tenth"]
            beliefs[belief_bin(None if tenth < 0 else tenth / 10)] += row["count"]
        per_label = {row["label"]: row["count"] for row in nodes}
        tombstones = per_label.pop("Tombstone")
        return GraphCounts(
            nodes=per_label,
            links={row["type"]: row["count"] for row in links},
            tiers=tiers,
            beliefs=dict(beliefs),
            tombstones=tombstones,
        )

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""
        [row] = self._run(load_statement("count_health"), {"owner": owner}, read=True)
        kinds = {entry["kind"]: entry["count"] for entry in row.pop("kinds")}
        return HealthCounts.model_validate({**row, "kinds": kinds})
