"""Forgetting one message: what derives only from it goes, what it shared is derived again.

Given a turn's provenance (store.findings.Provenance), `forgetting` works out every change before
anything is written, so a model failure leaves the memory as it was:
- the turn goes, and the memories FROM it alone (its observation) with their edges; its id
  leaves a tombstone (contract.Tombstone: a hash, never the text), written by the store in
  the same transaction, so that observing the message again stores nothing;
- a dialogue summary that covered it and other turns is written again from the others;
- an event that it or such a summary is PART_OF is told again from the developments that
  remain (each remaining summary's turns tagged again, the storyline merged again in order);
  one with none left goes, and NEXT joins the events before and after it;
- an impression it was a cue of is accumulated again from the cues that remain, with the belief
  each gave (mechanisms.impressions.replayed); the conjectures that replay makes stay or are
  made, the others go; an impression with no cue left goes with its conjectures;
- a fact it updated, or that updated it, holds for as long as its remaining UPDATES say.
What the message changed in other memories through attention (their labels, their RELATED edges
from working memory, attention woken) and through consolidation (beliefs moved) stays as it is:
only the edges that recorded it go.
"""

import threading
from collections import Counter
from dataclasses import dataclass, field

from graphmem.cognition.base import Cognition, DialogueDigest, EventTag
from graphmem.contract import Forgotten
from graphmem.embedding import CachedEmbedder, Embedder
from graphmem.errors import ConflictError
from graphmem.ids import conjecture_id, observation_id
from graphmem.mechanisms.events import first_storyline, merge_development
from graphmem.mechanisms.impressions import ImpressionPolicy, conjecture_memory, replayed
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Event, Link, LinkType, Memory, MemoryKind, Node, Turn
from graphmem.sleep import dialogue, news
from graphmem.store.base import Store
from graphmem.store.changes import Forgetting
from graphmem.store.findings import EventTrail, ImpressionTrail, Provenance, Sourced, UpdateTrail

FORGET_ATTEMPTS = 5
"""How often `forget_message` works its change out again when the graph changed meanwhile."""
DIGESTS_KEPT = 256
"""How many digests of dialogues `Forget` keeps: forgetting several messages of one event
tells it again each time from its other developments, each digested once, not once a message
(with a model, each digest is a call)."""


class Forget:
    """Forgets messages of one store with GraphMem's cognition, embedder and policies."""

    def __init__(
        self,
        store: Store,
        cognition: Cognition,
        embedder: Embedder,
        *,
        impressions: ImpressionPolicy,
        tiers: TierPolicy,
    ) -> None:
        self._store = store
        self._cognition = cognition
        self._embedder = embedder
        self._impressions = impressions
        self._tiers = tiers
        self._digests: dict[tuple[str, ...], DialogueDigest] = {}
        self._digests_lock = threading.Lock()

    def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """Forget a stored message in one transaction (GraphMem.forget_message says what goes).

        The change is worked out from the message's provenance and written only if the graph
        did not change meanwhile; else it is worked out again, up to FORGET_ATTEMPTS times.
        """
        for _attempt in range(FORGET_ATTEMPTS):
            provenance = self._store.provenance(owner, message_id)
            if provenance is None:
                return Forgotten(
                    owner=owner, message_id=message_id, found=False, deleted={}, rewritten={}
                )
            forgetting, rewritten = self.forgetting(provenance)
            if self._store.forget_turn(owner, forgetting):
                if isinstance(self._embedder, CachedEmbedder):
                    self._embedder.forget(
                        [provenance.turn.text, *(item.memory.text for item in provenance.memories)]
                    )
                deleted = Counter(label for label, _id in forgetting.deleted)
                return Forgotten(
                    owner=owner,
                    message_id=message_id,
                    found=True,
                    deleted={"Turn": 1, **deleted},
                    rewritten=dict(rewritten),
                )
        raise ConflictError(
            f"message {message_id!r} of owner {owner} changed {FORGET_ATTEMPTS} times while it"
            " was being forgotten (new turns or a sleep job touching it); try again"
        )

    def forgetting(self, provenance: Provenance) -> tuple[Forgetting, Counter[str]]:
        """Every change that forgetting the turn makes, and what it rewrites, counted by kind."""
        turn = provenance.turn
        gone = {
            item.memory.id
            for item in provenance.memories
            if item.memory.kind is not MemoryKind.SUMMARY
            or all(source.id == turn.id for source in item.turns)
        }
        plan = _Plan(deleted=[("Memory", memory_id) for memory_id in sorted(gone)])
        for item in provenance.memories:
            if item.memory.id not in gone:
                self._summarise_again(item, turn, plan)
        for trail in provenance.events:
            self._tell_again(trail, turn, gone, plan)
        for impression in provenance.impressions:
            self._accumulate_again(impression, turn, gone, plan)
        for fact in provenance.updates:
            _hold_again(fact, gone, plan)
        forgetting = Forgetting(
            provenance=provenance,
            deleted=plan.deleted,
            replaced=plan.replaced,
            added=plan.added,
            unlinked=plan.unlinked,
            linked=plan.linked,
        )
        return forgetting, plan.rewritten

    def _digest_again(self, summary: Sourced, turn: Turn) -> tuple[list[Turn], DialogueDigest]:
        """The turns a summary covered besides the forgotten one, and their digest.

        A digest of the same turns is asked once (DIGESTS_KEPT): turns never change, and the
        cognition answers alike about them.
        """
        kept = [source for source in summary.turns if source.id != turn.id]
        key = (summary.memory.owner, summary.memory.id, *(source.id for source in kept))
        with self._digests_lock:
            digest = self._digests.get(key)
        if digest is None:
            digest = self._cognition.digest_dialogue(dialogue(kept))
            with self._digests_lock:
                if len(self._digests) >= DIGESTS_KEPT:
                    del self._digests[next(iter(self._digests))]
                self._digests[key] = digest
        return kept, digest

    def _summarise_again(self, item: Sourced, turn: Turn, plan: "_Plan") -> None:
        """A summary written again from the turns it covered besides the forgotten one."""
        _kept, digest = self._digest_again(item, turn)
        plan.replaced.append(
            Memory.model_validate(
                {**item.memory.model_dump(), "text": digest.summary, "embedding": None}
            )
        )
        plan.rewritten["summaries"] += 1

    def _tell_again(
        self,
        trail: EventTrail,
        turn: Turn,
        gone: set[str],
        plan: "_Plan",
    ) -> None:
        """An event told again from the developments left, or deleted when none is left."""
        event = trail.event
        developments: list[tuple[str, list[Turn], EventTag]] = []
        for summary in trail.developments:
            if summary.memory.id in gone or all(source.id == turn.id for source in summary.turns):
                continue
            kept, digest = self._digest_again(summary, turn)
            developments += [
                (summary.memory.id, kept, tag)
                for tag in digest.events
                if tag.category == event.category
            ]
        if not developments:
            plan.deleted.append(("Event", event.id))
            plan.linked += [
                ("Event", "Event", Link(type=LinkType.NEXT, source=before, target=after))
                for before in trail.previous
                for after in trail.following
            ]
            return
        members: list[str] = []
        told: Event | None = None
        for summary_id, kept, tag in developments:
            tagged = [kept[line] for line in tag.lines if 0 <= line < len(kept)] or kept
            at = tagged[-1].created_at
            members += [summary_id, *(observation_id(event.owner, source.id) for source in tagged)]
            if told is None:
                told = event.model_copy(
                    update={
                        "text": first_storyline(tag, at),
                        "title": tag.title,
                        "created_at": at,
                        "first_at": at,
                        "last_at": at,
                        "timeliness_days": tag.timeliness_days,
                    }
                )
            else:
                told = merge_development(told, tag, at, self._cognition.merge_event)
        assert told is not None
        _summary, _kept, latest = developments[-1]
        [embedding] = self._embedder.embed([news(told.title, latest)], "passage")
        plan.replaced.append(Event.model_validate({**told.model_dump(), "embedding": embedding}))
        kept_members = set(members) - gone
        plan.unlinked += [
            ("Memory", "Event", Link(type=LinkType.PART_OF, source=member, target=event.id))
            for member in trail.members
            if member not in kept_members and member not in gone
        ]
        plan.linked += [
            ("Memory", "Event", Link(type=LinkType.PART_OF, source=member, target=event.id))
            for member in sorted(kept_members - set(trail.members))
        ]
        plan.rewritten["events"] += 1

    def _accumulate_again(
        self, trail: ImpressionTrail, turn: Turn, gone: set[str], plan: "_Plan"
    ) -> None:
        """An impression accumulated again from the cues left, with the conjectures they make."""
        impression = trail.impression
        kept = [cue for cue in trail.cues if cue.memory not in gone]
        if not kept:
            plan.deleted.append(("Impression", impression.id))
            plan.deleted += [("Memory", conjecture.id) for conjecture in trail.conjectures]
            return
        if any(cue.belief is None for cue in kept):
            # Stored before cues kept their beliefs: the forgotten cue cannot be subtracted, so
            # the impression keeps its belief and only the conjecture the turn made goes.
            made_by_turn = conjecture_id(impression.owner, turn.id, impression.id)
            plan.deleted += [
                ("Memory", conjecture.id)
                for conjecture in trail.conjectures
                if conjecture.id == made_by_turn
            ]
            return
        after, made = replayed(impression, kept, self._impressions)
        plan.replaced.append(after)
        plan.rewritten["impressions"] += 1
        beliefs = {
            conjecture_id(impression.owner, cue.turn, impression.id): (cue, belief)
            for cue, belief in made
        }
        for conjecture in trail.conjectures:
            if conjecture.id not in beliefs:
                plan.deleted.append(("Memory", conjecture.id))
            elif conjecture.belief != beliefs[conjecture.id][1]:
                plan.replaced.append(
                    conjecture.model_copy(update={"belief": beliefs[conjecture.id][1]})
                )
                plan.rewritten["conjectures"] += 1
        stored = {conjecture.id for conjecture in trail.conjectures}
        for memory_id, (cue, belief) in beliefs.items():
            if memory_id in stored:
                continue
            plan.added.append(
                conjecture_memory(
                    impression,
                    cue.turn,
                    cue.at,
                    importance=cue.importance,
                    belief=belief,
                    tiers=self._tiers,
                )
            )
            link = Link(type=LinkType.INFERRED_FROM, source=memory_id, target=impression.id)
            plan.linked.append(("Memory", "Impression", link))
            plan.rewritten["conjectures"] += 1


def _hold_again(trail: UpdateTrail, gone: set[str], plan: "_Plan") -> None:
    """A fact's validity as its remaining UPDATES edges set it."""
    fact = trail.memory
    newer = [at for memory_id, at in trail.newer if memory_id not in gone]
    older = [memory_id for memory_id in trail.older if memory_id not in gone]
    update = {
        "valid_until": min(newer, default=None),
        "valid_from": fact.valid_from if older else None,
    }
    if (fact.valid_until, fact.valid_from) != (update["valid_until"], update["valid_from"]):
        plan.replaced.append(fact.model_copy(update=update))
        plan.rewritten["facts"] += 1


@dataclass
class _Plan:
    """A Forgetting as it is worked out, and what it rewrites, counted by kind."""

    deleted: list[tuple[str, str]]
    replaced: list[Node] = field(default_factory=list)
    added: list[Memory] = field(default_factory=list)
    unlinked: list[tuple[str, str, Link]] = field(default_factory=list)
    linked: list[tuple[str, str, Link]] = field(default_factory=list)
    rewritten: Counter[str] = field(default_factory=Counter)
