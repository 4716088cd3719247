"""The Neo4j store's part of the nightly job: summaries, facts settled, re-tiering, the lease."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy, Settlement
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Event, Memory, Turn
from graphmem.store.changes import SummaryChange
from graphmem.store.findings import OwnerClaim
from graphmem.store.neo4j_connection import Neo4jConnection
from graphmem.store.neo4j_properties import (
    event_from,
    event_row,
    half_lives,
    memory_from,
    memory_row,
    native,
    turn_from,
)
from graphmem.store.neo4j_statements import load_statement
from graphmem.store.rules import check_nodes


def _summary_parameters(owner: str, change: SummaryChange) -> dict[str, Any]:
    """The parameters of save_summary.cypher for one summary and its events."""
    return {
        "owner": owner,
        "summary": memory_row(change.summary),
        "turns": list(change.turns),
        "events": [
            {
                "event": event_row(event.event),
                "previous": event.previous,
                "members": list(event.members),
            }
            for event in change.events
        ],
        "facts": [{"fact": memory_row(item.fact), "turn": item.turn} for item in change.facts],
    }


class Neo4jSleep(Neo4jConnection):
    """The Neo4j store's verbs of the nightly job, and the lease an owner's job holds."""

    def turns_awaiting_summary(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns that no dialogue summary covers yet, oldest first."""
        [row] = self._run(
            load_statement("turns_awaiting_summary"), {"owner": owner, "limit": limit}, read=True
        )
        return [turn_from(turn) for turn in row["turns"]]

    def latest_event(self, owner: str, category: str) -> Event | None:
        """The owner's event of this category updated last (ties by id), if any."""
        [row] = self._run(
            load_statement("latest_event"), {"owner": owner, "category": category}, read=True
        )
        return next((event_from(event) for event in row["events"]), None)

    def save_summaries(self, owner: str, changes: Sequence[SummaryChange]) -> None:
        """Store dialogue summaries, in order, each FROM its turns with its events, at once.

        For each: clears the turns' summary marks; creates or updates each event, NEXT from its
        previous one and with its members PART_OF it; stores each fact FROM its turn. All or
        nothing (one transaction, one journal entry). Idempotent: a summary or fact already
        stored is kept.
        """
        for change in changes:
            check_nodes(owner, change.nodes())
        if changes:
            statement = load_statement("save_summary")
            self._write_together(
                owner, [(statement, _summary_parameters(owner, change)) for change in changes]
            )

    def memories_awaiting_consolidation(self, owner: str, limit: int) -> list[Memory]:
        """The owner's facts not yet consolidated, oldest first, with their embeddings."""
        [row] = self._run(
            load_statement("memories_awaiting_consolidation"),
            {"owner": owner, "limit": limit},
            read=True,
        )
        return [memory_from(memory) for memory in row["memories"]]

    def settle_facts(
        self,
        owner: str,
        settlements: Sequence[Settlement],
        now: datetime,
        *,
        beliefs: BeliefPolicy,
        attention: AttentionPolicy,
    ) -> None:
        """Apply facts' consolidations in order, at once (one transaction, one journal entry).

        Each fact's moves in order, its edges, its mark cleared. A move sets belief b to
        b + rate * (estimate - b) (b of a memory without one is the first-hand belief); its
        attention change is that of mechanisms.beliefs (raise: the use gains, accessed_at and
        tier 0 as in `wake`; lower: mechanisms.attention.lowered). Moves and edges naming
        memories not stored are skipped. An UPDATES edge ends the older memory's validity when
        the newer one was made (`valid_until`, the earliest if several) and starts the newer
        one's (`valid_from`). A fact not awaiting consolidation (settled by another job since it
        was read, or gone) is skipped whole, so that settling twice moves no belief twice.
        """
        policies = {
            "now": now,
            "rate": beliefs.rate,
            "first_hand": beliefs.first_hand,
            "kept": beliefs.kept_attention,
            "long_gain": attention.use_long_term,
            "short_gain": attention.use_short_term,
            **half_lives(attention),
        }
        statement = load_statement("settle_fact")
        if settlements:
            self._write_together(
                owner,
                [
                    (
                        statement,
                        {
                            "owner": owner,
                            "fact": settlement.fact,
                            "moves": [move.model_dump(mode="json") for move in settlement.moves],
                            "links": [link.model_dump(mode="json") for link in settlement.links],
                            **policies,
                        },
                    )
                    for settlement in settlements
                ],
            )

    def importance_of(self, owner: str, ids: Sequence[str]) -> dict[str, float]:
        """The importance of each of these memories of the owner, by id (those stored)."""
        [row] = self._run(
            load_statement("importance_of"), {"owner": owner, "ids": list(ids)}, read=True
        )
        return {memory_id: importance for memory_id, importance in row["importances"]}

    def retier(
        self, owner: str, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
    ) -> int:
        """Sink memories whose attention faded or that overflow a tier; return the moves made."""
        common = {"owner": owner, "now": now, **half_lives(attention)}
        [sunk] = self._run_batched(
            load_statement("retier_sink"), {**common, "floors": list(tiers.floors)}
        )
        moves = int(sunk["moved"] or 0)
        for tier, capacity in enumerate(tiers.capacities):
            [overflow] = self._run_batched(
                load_statement("retier_overflow"), {**common, "tier": tier, "capacity": capacity}
            )
            moves += int(overflow["moved"])
        return moves

    def claim_owner(
        self, owner: str, worker: str, now: datetime, until: datetime, since: datetime
    ) -> OwnerClaim:
        """Claim (or renew) the lease on an owner's nightly job: on its Owner node."""
        parameters = {"owner": owner, "worker": worker, "now": now, "until": until, "since": since}
        [row] = self._write(owner, load_statement("claim_owner"), parameters)
        return OwnerClaim.model_validate({key: native(value) for key, value in row.items()})

    def release_owner(self, owner: str, worker: str, now: datetime, failure: str | None) -> bool:
        """End `worker`'s lease on the owner, its job ended at `now` (failed: why); say if held."""
        parameters = {"owner": owner, "worker": worker, "now": now, "failure": failure}
        return bool(self._write(owner, load_statement("release_owner"), parameters))
