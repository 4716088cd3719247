"""What the facade returns: observations, recalls, profiles, sleep and forgetting reports, health.

The store's counts and exported graph (`GraphCounts`, `HealthCounts`, `OwnerGraph` with its
`Tombstone`s, what a recall woke, the store's traffic) are defined beside the store protocol,
which returns them, and the profile beside the mechanism that makes it; they are listed here
too, so that the faces (CLI, MCP, demo) take every type they show from one place and never
reach into the stores.
"""

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from graphmem.mechanisms.profile import (
    EarlierValue,
    Profile,
    ProfileConjecture,
    ProfileEvent,
    ProfileFact,
)
from graphmem.model import Link, LinkType, Memory, Tier, Turn
from graphmem.scoring import Components
from graphmem.store.base import (
    SEARCHED_KINDS,
    GraphCounts,
    HealthCounts,
    MemoryFilter,
    OwnerGraph,
    StoreTraffic,
    Tombstone,
    Woken,
    parse_record,
)
from graphmem.store.networkx import MemoryGraph, multigraph

__all__ = [
    "SEARCHED_KINDS",
    "Attempt",
    "EarlierValue",
    "Forgotten",
    "GraphCounts",
    "Health",
    "HealthCounts",
    "MemoryFilter",
    "NightProgress",
    "NightReport",
    "Observation",
    "OwnerGraph",
    "OwnerNight",
    "Profile",
    "ProfileConjecture",
    "ProfileEvent",
    "ProfileFact",
    "Recall",
    "RecalledMemory",
    "SleepProgress",
    "SleepReport",
    "StoreTraffic",
    "Tombstone",
    "Woken",
    "parse_record",
]


class Observation(BaseModel):
    """What `observe` stored: the turn, and the memories this call derived from it.

    `pending` is true when the model failed: the turn is stored and its memories will be
    derived by a later call or by `complete_pending`. `memories` is empty then, and also when
    the message was `already_stored` or `forgotten` earlier. `conjectures` are the impressions
    that this turn tipped over the threshold: new conjecture memories for the agent to consider.
    """

    model_config = ConfigDict(frozen=True)

    turn: Turn
    memories: list[Memory]
    pending: bool
    conjectures: list[Memory] = []
    forgotten: bool = False
    """The message was forgotten earlier (its id has a tombstone): nothing was stored, and
    `turn` is the turn as given. `readmit_forgotten=True` stores it again."""
    already_stored: bool = False
    """The message id was stored by an earlier call, which derived its memories: nothing new was
    stored or derived, and `turn` is the turn stored then. (A message that an earlier call left
    pending is derived by this call, if the model answers, and is not flagged.)"""

    def as_json(self) -> dict[str, Any]:
        """The observation as JSON-ready data: everything but the embeddings."""
        without = {"embedding"}
        return self.model_dump(
            mode="json",
            exclude={"memories": {"__all__": without}, "conjectures": {"__all__": without}},
        )


class SleepProgress(BaseModel):
    """Where a sleep job is: the owner, the step, items done in it, model calls, seconds."""

    model_config = ConfigDict(frozen=True)

    owner: str
    step: str
    done: int
    model_calls: int
    seconds: float


class SleepReport(BaseModel):
    """What one owner's sleep job did: items per step, model calls per task, wall time.

    `counts` holds derived (pending turns done), summaries, events started, events continued,
    profile facts (read in the dialogues: mechanisms.profile), facts (consolidated), SUPPORTS,
    CONTRADICTS, UPDATES and MERGED_INTO (edges made) and retiered (tier moves); derived offline
    (pending turns the model could not answer about even alone, perceived by the offline
    cognition); and what the model could not answer about, left for a later job: left
    unsummarised (turns), left unjudged (facts).
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    counts: dict[str, int]
    model_calls: dict[str, int]
    seconds: float


class OwnerNight(BaseModel):
    """How one owner's nightly job went under `GraphMem.consolidate_all`, by which worker.

    `outcome`: claimed (the worker took the lease and starts), done, skipped (ended at or after
    this job started, by `worker`, the worker named in `why`), failed (`why`: the error), lost
    (the worker's lease lapsed and another worker took the owner over; it finishes the job).
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    worker: str
    outcome: Literal["claimed", "done", "skipped", "failed", "lost"]
    why: str | None = None
    report: SleepReport | None = None
    """What the job did, when done."""


class NightProgress(BaseModel):
    """Where a job over many owners is, after an owner was claimed or ended."""

    model_config = ConfigDict(frozen=True)

    latest: OwnerNight
    owners: int
    """Owners the job is over."""
    done: int
    skipped: int
    failed: int
    lost: int
    seconds: float
    seconds_left: float | None
    """An estimate: the seconds an owner ended took on average, times the owners left (None
    until one ended)."""


class NightReport(BaseModel):
    """What a job over many owners did: each owner's ending, in the order they ended."""

    model_config = ConfigDict(frozen=True)

    owners: list[OwnerNight]
    workers: int
    seconds: float

    def count(self, outcome: str) -> int:
        """How many owners ended so: done, skipped, failed or lost."""
        return sum(night.outcome == outcome for night in self.owners)


class Health(BaseModel):
    """One owner's memory at a glance: what it holds, the work left, and what may need a look.

    `counts` and `checks` come from the store; browser/queries.cypher has a query for each row
    of the report that shows its nodes (docs/forgetting-and-health.md).
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    at: datetime
    embedder: str
    cognition: str
    counts: GraphCounts
    checks: HealthCounts
    oldest_conjecture_days: float | None
    newest_conjecture_days: float | None
    """How many days before `at` the oldest and the newest conjecture were made."""


class Forgotten(BaseModel):
    """What forgetting a message did: nodes deleted per label, and what was derived again.

    `rewritten` counts summaries written again, events told again, impressions accumulated
    again, conjectures made or re-believed, and facts whose validity changed. `found` is false
    when the owner had no such message (then nothing changed).
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    message_id: str
    found: bool
    deleted: dict[str, int]
    rewritten: dict[str, int]


EVIDENCE_DECAY = 1.4
"""How fast the chance that a recalled memory is evidence for the query falls with its rank r:
as r^-1.4. Fitted on LoCoMo dev's 997 questions (ranks 1-50, benchmarks/context.py's data;
LongMemEval dev's 37 give 1.1); `Recall.within` weighs a memory's line by it."""

PROFILE_SHARE = 0.25
"""The most of a recall's token budget that the owner's profile lines take (`Recall.within`):
the rest is the query's."""


class RecalledMemory(BaseModel):
    """A recalled memory, the turns it came from, and why it was chosen.

    `components` are the raw relevance (cosine), lexical match (BM25), time match (to a time
    the query names), speaker match (to whom it names), asker match (to the one asking, for a
    query in the first person), statement (0 for a question that tells nothing of its speaker),
    importance, current attention, recency and the association received from neighbours;
    `normalised` the same over the memories found, 0 for a component equal over them all;
    `score` the weighted sum of `normalised`, such a component counted as 1 for every memory (a
    constant cannot change the order); `via` the memory whose relevance reached this one by
    association the most (a neighbouring turn's, a session mate's or a linked memory's), if any;
    `evoked_by` the impression (in Recall.impressions) that the query implies and this memory
    gave, through which the query evoked it, if any.
    """

    model_config = ConfigDict(frozen=True)

    memory: Memory
    turns: list[Turn]
    score: float
    components: Components
    normalised: Components
    via: str | None
    evoked_by: str | None = None


class EvokedImpression(BaseModel):
    """An impression the query implies, which the owner holds, and the memories it evoked."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    belief: float
    """The owner's belief in it at the time of the recall."""
    implied: float
    """The belief the query gives it."""
    memories: list[str]
    """The recalled memories it evoked (its cues), best first."""


class Attempt(BaseModel):
    """One search of a recall: its motivation, how deep it looked, the best relevance found."""

    model_config = ConfigDict(frozen=True)

    motivation: float
    depth: Tier
    best_relevance: float | None


class Recall(BaseModel):
    """The answer to a recall: the owner's memories best related to the query, best first.

    Together with `links` (the edges among the recalled memories) it is the related-context
    subgraph; `impressions` are the owner's impressions through which the query evoked some of
    them. `attempts` has one entry per search: more than one means recall thought again with
    raised motivation because the best relevance was too low. `woken` lists what the recall used
    and woke (empty in peek mode).
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    query: str
    """The query as given, or its turns as text ("speaker: text", one a line)."""
    motivation: float
    attempts: list[Attempt]
    memories: list[RecalledMemory]
    links: list[Link]
    woken: list[Woken]
    impressions: list[EvokedImpression] = []
    """The owner's impressions that the query implies too, through which it evoked memories."""
    cut_short: list[str] = []
    """The steps skipped because the time budget ran out ("thinking again", "association")."""
    max_tokens: int | None = None
    """The budget in tokens that the recall was cut to (`within`), if any."""
    tokens: int | None = None
    """The tokens of `render()` when the recall was cut to a budget (XLM-R's, as counted)."""
    profile: list[str] = []
    """The owner's profile lines that a recall within a budget puts first (`within`)."""

    @property
    def thought_again(self) -> bool:
        """Whether recall searched more than once."""
        return len(self.attempts) > 1

    def as_json(self) -> dict[str, Any]:
        """The subgraph as JSON-ready data: everything but the embeddings, times as ISO text."""
        return self.model_dump(
            mode="json", exclude={"memories": {"__all__": {"memory": {"embedding"}}}}
        )

    def render(self) -> str:
        """A compact text of the subgraph for a prompt: profile, memories, links, impressions.

        The profile lines (of a recall within a budget) come first. The memories are numbered,
        best first, each dated; a fact that a newer one updated shows the time it held until.
        Each impression that evoked some of them comes with the owner's belief in it now.
        """
        number = {item.memory.id: index for index, item in enumerate(self.memories, start=1)}
        lines = [*self.profile]
        lines += [_memory_line(number[item.memory.id], item.memory) for item in self.memories]
        lines += [_link_line(number, link) for link in self.links]
        lines += [_impression_line(number, impression) for impression in self.impressions]
        return "\n".join(lines)

    def within(
        self, max_tokens: int, count_tokens: Callable[[str], int], profile: Sequence[str] = ()
    ) -> "Recall":
        """The recall cut so that `render()` fits `max_tokens` tokens, keeping the most evidence.

        First the `profile` lines, in order, while they fit PROFILE_SHARE of the budget; the
        rest goes to the memories (`_best_evidence`), then to the impressions that evoked them
        and the links among them, while they fit.
        """
        shown: list[str] = []
        for line in profile:
            if count_tokens("\n".join([*shown, line])) <= PROFILE_SHARE * max_tokens:
                shown.append(line)
        memories, spent = self._best_evidence(max_tokens, count_tokens, shown)
        number = {item.memory.id: index for index, item in enumerate(memories, start=1)}
        impressions = []
        for impression in self.impressions:
            evoked = [memory for memory in impression.memories if memory in number]
            if not evoked:
                continue
            narrowed = impression.model_copy(update={"memories": evoked})
            cost = count_tokens(_impression_line(number, narrowed))
            if spent + cost <= max_tokens:
                impressions.append(narrowed)
                spent += cost
        links = []
        for link in self.links:
            if link.source not in number or link.target not in number:
                continue
            cost = count_tokens(_link_line(number, link))
            if spent + cost <= max_tokens:
                links.append(link)
                spent += cost
        evoking = {impression.id for impression in impressions}
        return self.model_copy(
            update={
                "profile": shown,
                "memories": [
                    item
                    if item.evoked_by in evoking
                    else item.model_copy(update={"evoked_by": None})
                    for item in memories
                ],
                "links": links,
                "impressions": impressions,
                "max_tokens": max_tokens,
                "tokens": spent,  # lines' counts add up to their text's (E5Embedder.count_tokens)
            }
        )

    def _best_evidence(
        self, max_tokens: int, count_tokens: Callable[[str], int], shown: list[str]
    ) -> tuple[list[RecalledMemory], int]:
        """The memories that keep the most evidence in what the `shown` lines leave of the budget.

        The memory ranked r-th is evidence for the query about r^-EVIDENCE_DECAY as often as
        the first, so memories are taken by that share per token of their line, best first,
        while they fit: one long memory low in the ranking gives way to several short ones. A
        memory whose dated line repeats a better one's is left out. The memories taken keep
        their ranking (and are numbered anew: a line may then count a token more, so the last
        taken goes while the text is over). With them, the tokens of the `shown` lines and theirs.
        """
        lines: dict[str, tuple[int, RecalledMemory]] = {}  # a dated line: its best memory
        for rank, item in enumerate(self.memories, start=1):
            lines.setdefault(_memory_line(0, item.memory).partition(" ")[2], (rank, item))
        cost = {
            item.memory.id: count_tokens(_memory_line(rank, item.memory))
            for rank, item in lines.values()
        }
        taken: list[tuple[int, RecalledMemory]] = []  # best evidence per token first
        spent = count_tokens("\n".join(shown))
        for rank, item in sorted(
            lines.values(), key=lambda pair: pair[0] ** EVIDENCE_DECAY * cost[pair[1].memory.id]
        ):
            if spent + cost[item.memory.id] <= max_tokens:
                taken.append((rank, item))
                spent += cost[item.memory.id]
        while True:
            memories = [item for _rank, item in sorted(taken, key=lambda pair: pair[0])]
            text = [*shown, *(_memory_line(n, item.memory) for n, item in enumerate(memories, 1))]
            spent = count_tokens("\n".join(text))
            if not taken or spent <= max_tokens:
                return memories, spent
            taken.pop()

    def to_networkx(self) -> MemoryGraph:
        """The subgraph as a networkx multigraph: memories and turns, FROM and the links."""
        nodes: list[tuple[str, dict[str, Any]]] = []
        edges: list[tuple[str, str, str, dict[str, Any]]] = []
        for item in self.memories:
            key = f"Memory:{item.memory.id}"
            attributes = item.memory.model_dump(exclude={"embedding", "attention"})
            nodes.append((key, {**attributes, "label": "Memory", "score": item.score}))
            for turn in item.turns:
                nodes.append((f"Turn:{turn.id}", {**turn.model_dump(), "label": "Turn"}))
                edges.append((key, f"Turn:{turn.id}", LinkType.FROM.value, {}))
        for link in self.links:
            extra = link.model_dump(include={"weight", "sufficiency"}, exclude_none=True)
            edges.append((f"Memory:{link.source}", f"Memory:{link.target}", link.type.value, extra))
        return multigraph(nodes, edges)


def _memory_line(number: int, memory: Memory) -> str:
    """A memory's line of a rendered recall: its number, time and text (and until when)."""
    until = "" if memory.valid_until is None else f" (until {memory.valid_until:%Y-%m-%d %H:%M})"
    return f"[{number}] {memory.created_at:%Y-%m-%d %H:%M} {memory.text}{until}"


def _link_line(number: dict[str, int], link: Link) -> str:
    """A link's line of a rendered recall, between the numbers of its memories."""
    return f"[{number[link.source]}] {link.type} [{number[link.target]}]"


def _impression_line(number: dict[str, int], impression: EvokedImpression) -> str:
    """An evoking impression's line of a rendered recall: belief and the memories it evoked."""
    evoked = " ".join(f"[{number[memory]}]" for memory in impression.memories)
    return f"impression {impression.text} (belief {impression.belief:.2f}) evoked {evoked}"
