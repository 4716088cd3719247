"""What the other verbs answer: observations, sleep reports, health, forgetting, profile, keys."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphmem.contract.graph import GraphCounts, HealthCounts
from graphmem.model import Event, Impression, Link, Memory, Moment, Owner, Turn


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


class EarlierValue(BaseModel):
    """A value of a slot that a newer one replaced."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    since: datetime


class ProfileFact(BaseModel):
    """A slot's value in force: the fact's text, its belief, since when, the values it replaced."""

    model_config = ConfigDict(frozen=True)

    slot: str
    text: str
    belief: float
    since: datetime
    rests_on: list[str]
    """The fact's id."""
    earlier: list[EarlierValue]
    """The values it replaced, newest first."""


class ProfileConjecture(BaseModel):
    """A conjecture about the user: its belief at the profile's time and when it fades."""

    model_config = ConfigDict(frozen=True)

    text: str
    belief: float
    fades_at: datetime
    """When its belief falls below ProfilePolicy.faded_below."""
    impression: str
    rests_on: list[str]


class ProfileEvent(BaseModel):
    """An open major event with its latest development and until when it stays open."""

    model_config = ConfigDict(frozen=True)

    title: str
    category: str
    latest: str
    """Its storyline's last line: the latest development."""
    last_at: datetime
    open_until: datetime
    event: str
    rests_on: list[str]


class Profile(BaseModel):
    """The user as graphmem believes them to be at `at` (mechanisms.profile says how)."""

    model_config = ConfigDict(frozen=True)

    owner: str
    at: datetime
    facts: list[ProfileFact]
    conjectures: list[ProfileConjecture]
    events: list[ProfileEvent]
    causal_rules: int

    def lines(self, *, events: bool = True) -> list[str]:
        """The profile as short lines for a prompt: facts, conjectures, open events (unless not)."""
        lines = [
            f"{fact.slot} — {fact.text} (belief {fact.belief:.2f}, since {fact.since:%Y-%m-%d})"
            for fact in self.facts
        ]
        lines += [
            f"conjecture — {item.text} (belief {item.belief:.2f}, fades {item.fades_at:%Y-%m-%d})"
            for item in self.conjectures
        ]
        if events:
            lines += [
                f"ongoing {item.category} — {item.title}: {item.latest}" for item in self.events
            ]
        return lines

    def render(self) -> str:
        """The profile as a text for a prompt: one line a fact, conjecture or open event."""
        return "\n".join(self.lines())


PREFIX_ENDS = ":._-@"
"""The characters an owner prefix must end with: a separator, so that `tenant-7:` cannot reach
`tenant-70:x` as `tenant-7` would."""


class KeyInfo(BaseModel):
    """What a key may touch and when it was made or revoked: all of it but its secret."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[0-9a-f]{16}$", description="names the key; not secret")
    owners: tuple[Owner, ...] = Field((), description="owners the key may touch")
    owner_prefix: str | None = Field(None, description="it may touch owners starting with this")
    admin: bool = Field(False, description="it may touch every owner and manage keys")
    created_at: Moment
    revoked_at: Moment | None = None

    def permits(self, owner: str) -> bool:
        """Whether this key, unless revoked, may touch the owner's memory."""
        if self.revoked_at is not None:
            return False
        if self.admin or owner in self.owners:
            return True
        return self.owner_prefix is not None and owner.startswith(self.owner_prefix)

    def separates_owners(self) -> bool:
        """Whether the key's owner prefix, if any, ends with a separator (PREFIX_ENDS).

        Keys made before the rule was may not: `tenant-7` also reaches `tenant-70:x`.
        """
        return self.owner_prefix is None or self.owner_prefix.endswith(tuple(PREFIX_ENDS))

    def sole_owner(self) -> str | None:
        """The one owner this key may touch, if it may touch one only."""
        if self.admin or self.owner_prefix is not None or len(self.owners) != 1:
            return None
        return self.owners[0]

    def scope(self) -> str:
        """What the key may touch, in words."""
        if self.admin:
            return "admin: every owner"
        named = [f"owner {owner}" for owner in self.owners]
        if self.owner_prefix is not None:
            named.append(f"owners starting with {self.owner_prefix}")
        return ", ".join(named)


class NewKey(BaseModel):
    """A key just made: its record and its secret, which is shown this once."""

    model_config = ConfigDict(frozen=True)

    key: KeyInfo
    secret: str = Field(description="send as Authorization: Bearer <secret>; not kept")


class TimelineEntry(BaseModel):
    """A memory on a page of the timeline (its embedding left out), its turns, its attention."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    turns: list[Turn]
    """The turns it came from (none for a conjecture or taught knowledge)."""
    attention: float
    """Its attention at the page's time."""


class TimelinePage(BaseModel):
    """A page of an owner's memories, newest first; `next` reads the page after it."""

    model_config = ConfigDict(frozen=True)

    owner: str
    at: datetime
    entries: list[TimelineEntry]
    next: str | None
    """Give it as `before` for the next page; None when this page is the last."""


class NodeNeighbourhood(BaseModel):
    """A node and every node one edge away from it, by label, with those edges.

    Memories come without their embeddings. Empty (no nodes) when the owner has no such node.
    """

    model_config = ConfigDict(frozen=True)

    owner: str
    node_id: str
    label: str
    turns: list[Turn]
    memories: list[Memory]
    events: list[Event]
    impressions: list[Impression]
    links: list[Link]
    """The node's edges, each once, by type, source and target."""


class ServedRequest(BaseModel):
    """A request `graphmem serve` answered, as its request log keeps it: no body, no key."""

    model_config = ConfigDict(frozen=True)

    at: datetime
    method: str
    path: str
    owner: str | None
    """The owner whose memory the path names, if it names one."""
    status: int
    milliseconds: float
    request_id: str


class EventEntry(BaseModel):
    """An event of the owner (its embedding left out), its size, and whether it is still open."""

    model_config = ConfigDict(frozen=True)

    event: Event
    memories: int
    """The memories PART_OF it."""
    open_until: datetime
    """Until when news joins it: its last update and its timeliness."""
    open: bool
    """Whether news at the time read would join it."""
    attention: float
    """Its attention at the time read."""


class ImpressionEntry(BaseModel):
    """An impression of the owner (its embedding left out), its belief now, what it rests on."""

    model_config = ConfigDict(frozen=True)

    impression: Impression
    belief: float
    """Its belief at the time read: the stored belief halved every half-life since."""
    cues: int
    """The memories it was inferred from."""
    conjectures: int
    """The conjecture memories it made."""
