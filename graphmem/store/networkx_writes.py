"""What the embedded store's set-based writes change, worked out on its indexed graph.

Each reads the graph as it is (the store holds its lock around the call) and returns what the
store journals: new versions of stored nodes, or the entries of a change; nothing is changed
here. The arithmetic is the mechanisms'.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.contract import Woken
from graphmem.errors import StoreError
from graphmem.mechanisms.attention import AttentionPolicy, current_attention, lowered, spread, woken
from graphmem.mechanisms.beliefs import AttentionChange, BeliefPolicy, Settlement, moved
from graphmem.mechanisms.impressions import ImpressionPolicy, accumulated
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import Impression, LinkType, Memory, Node, Tier, Turn
from graphmem.store.changes import Derivation
from graphmem.store.networkx_graph import IndexedGraph


def accumulate_impressions(
    graph: IndexedGraph,
    owner: str,
    derivations: Sequence[Derivation],
    policy: ImpressionPolicy | None,
) -> tuple[list[dict[str, Any]], list[list[Memory]]]:
    """The journal's entries for what turns gave, and the conjectures made, a list per derivation.

    While a turn is pending, each of its impressions accumulates on the owner's impression of
    its statement, and those that cross the threshold make their conjecture. StoreError if a
    turn is not stored.
    """
    conjectures: list[list[Memory]] = []
    changes: list[dict[str, Any]] = []
    latest: dict[str, Impression] = {}
    """Impressions as this call left them, so two of one statement both count."""
    pending: set[str] = set()
    """The turns of this call whose pending mark is still set, as it proceeds."""
    for derivation in derivations:
        turn = graph.node(owner, "Turn", derivation.source.id)
        if not isinstance(turn, Turn):
            raise StoreError(f"turn {derivation.source.id!r} of owner {owner} is not stored")
        if turn.pending:
            pending.add(turn.id)
    for derivation in derivations:
        made: list[Memory] = []
        changed: list[dict[str, Any]] = []
        impressions = derivation.impressions if derivation.source.id in pending else []
        pending.discard(derivation.source.id)
        for item in impressions:
            stored = latest.get(item.impression.id) or graph.node(
                owner, "Impression", item.impression.id
            )
            assert stored is None or isinstance(stored, Impression)
            after, conjectured = accumulated(stored, item.impression, policy or ImpressionPolicy())
            latest[after.id] = after
            conjecture = None
            if conjectured:
                conjecture = item.conjecture.model_copy(update={"belief": after.belief})
                made.append(conjecture)
            changed.append(
                {
                    "impression": after,
                    "cue_belief": item.impression.belief,
                    "conjecture": conjecture,
                }
            )
        conjectures.append(made)
        changes.append(
            {
                "turn_id": derivation.source.id,
                "memories": list(derivation.memories),
                "links": list(derivation.links),
                "impressions": changed,
            }
        )
    return changes, conjectures


def settle(
    graph: IndexedGraph,
    owner: str,
    settlements: Sequence[Settlement],
    now: datetime,
    *,
    beliefs: BeliefPolicy,
    attention: AttentionPolicy,
) -> tuple[list[Settlement], list[Memory]]:
    """The settlements to apply, and the new versions of the memories they change.

    Each fact's moves in order, its edges, its mark cleared. A move sets belief b to
    b + rate * (estimate - b) (b of a memory without one is the first-hand belief); its
    attention change is that of mechanisms.beliefs (raise: the use gains, accessed_at and
    tier 0 as in `wake`; lower: mechanisms.attention.lowered). Moves and edges naming
    memories not stored are skipped. An UPDATES edge ends the older memory's validity when
    the newer one was made (`valid_until`, the earliest if several) and starts the newer
    one's (`valid_from`). A fact not awaiting consolidation (settled by another job since it
    was read, or gone) is skipped whole, so that settling twice moves no belief twice.
    """
    changed: dict[str, Memory] = {}

    def stored(memory_id: str) -> Node | None:
        """A memory as the facts settled so far leave it."""
        return changed.get(memory_id) or graph.node(owner, "Memory", memory_id)

    settled = []
    for settlement in settlements:
        fact_memory = stored(settlement.fact)
        if not isinstance(fact_memory, Memory) or not fact_memory.awaiting_consolidation:
            continue
        settled.append(settlement)
        for move in settlement.moves:
            memory = stored(move.id)
            if not isinstance(memory, Memory):
                continue
            belief = beliefs.first_hand if memory.belief is None else memory.belief
            update: dict[str, Any] = {"belief": moved(belief, move.estimate, beliefs)}
            if move.attention is AttentionChange.RAISE:
                update["attention"] = woken(
                    memory.attention,
                    now,
                    attention,
                    long_term_gain=attention.use_long_term,
                    short_term_gain=attention.use_short_term,
                )
                update["accessed_at"] = max(now, memory.accessed_at)
                update["tier"] = Tier.HOT
            elif move.attention is AttentionChange.LOWER:
                update["attention"] = lowered(
                    memory.attention, now, attention, beliefs.kept_attention
                )
            changed[move.id] = memory.model_copy(update=update)
        fact_memory = stored(settlement.fact)
        assert isinstance(fact_memory, Memory)  # read again: its own moves may change it
        changed[settlement.fact] = fact_memory.model_copy(update={"awaiting_consolidation": False})
        for link in settlement.links:
            newer, older = stored(link.source), stored(link.target)
            if link.type is not LinkType.UPDATES or not (
                isinstance(newer, Memory) and isinstance(older, Memory)
            ):
                continue
            until = min(older.valid_until or newer.created_at, newer.created_at)
            changed[older.id] = older.model_copy(update={"valid_until": until})
            changed[newer.id] = newer.model_copy(update={"valid_from": newer.created_at})
    return settled, list(changed.values())


def wake(
    graph: IndexedGraph,
    owner: str,
    used: Sequence[str],
    now: datetime,
    *,
    attention: AttentionPolicy,
    tiers: TierPolicy,
) -> tuple[list[Node], list[Woken]]:
    """The new versions of memories used and of the neighbours they wake, and what woke.

    As mechanisms.attention says: the used gain their use, accessed_at and tier 0; their
    neighbours gain what spreads to them, and rise to the tier their attention earns.
    """
    sources = [
        (memory_id, "Memory")
        for memory_id in dict.fromkeys(used)
        if graph.node(owner, "Memory", memory_id) is not None
    ]
    gains = spread(sources, lambda node: graph.wake_neighbours(owner, node), attention)
    changed: list[Node] = []
    result = []
    for node_id, label in sources:
        memory = graph.at((owner, label, node_id))
        changed.append(
            memory.model_copy(
                update={
                    "attention": woken(
                        memory.attention,
                        now,
                        attention,
                        long_term_gain=attention.use_long_term,
                        short_term_gain=attention.use_short_term,
                    ),
                    "accessed_at": max(now, memory.accessed_at),
                    "tier": Tier.HOT,
                }
            )
        )
        result.append(
            Woken(
                id=node_id,
                label=label,
                used=True,
                short_term_gain=attention.use_short_term,
                tier=Tier.HOT,
            )
        )
    for (node_id, label), gain in gains.items():
        node = graph.at((owner, label, node_id))
        raised = woken(node.attention, now, attention, long_term_gain=0.0, short_term_gain=gain)
        tier = min(node.tier, tier_for(current_attention(raised, now, attention), tiers))
        changed.append(node.model_copy(update={"attention": raised, "tier": tier}))
        result.append(Woken(id=node_id, label=label, used=False, short_term_gain=gain, tier=tier))
    return changed, sorted(result, key=lambda item: (item.label, item.id))


def retier(
    graph: IndexedGraph, owner: str, now: datetime, *, attention: AttentionPolicy, tiers: TierPolicy
) -> tuple[list[Memory], int]:
    """Memories sunk as their attention faded or their tier overflowed, and the moves made.

    Each memory above the deepest tier sinks to the tier its attention now earns; a tier over
    its capacity sinks its least attended (ties by id) one tier more, tier after tier. The
    new versions, one per memory; a memory may make several moves.
    """
    moved_to: dict[str, Memory] = {}
    moves = 0
    members: dict[Tier, list[tuple[float, Memory]]] = {tier: [] for tier in Tier}
    for stored in graph.nodes(owner, "Memory"):
        assert isinstance(stored, Memory)
        if stored.tier == Tier.DEEP:
            continue
        level = current_attention(stored.attention, now, attention)
        tier = max(stored.tier, tier_for(level, tiers))
        memory = stored if tier == stored.tier else stored.model_copy(update={"tier": tier})
        if memory is not stored:
            moved_to[memory.id] = memory
            moves += 1
        members[tier].append((level, memory))
    for tier, capacity in zip(Tier, tiers.capacities, strict=False):
        ranked = sorted(members[tier], key=lambda pair: (-pair[0], pair[1].id))
        for level, memory in ranked[capacity:]:
            lower = memory.model_copy(update={"tier": Tier(tier + 1)})
            moved_to[memory.id] = lower
            moves += 1
            members[Tier(tier + 1)].append((level, lower))
    return list(moved_to.values()), moves
