"""Pure data of graphmem's graph: the nodes, edges and attention that both stores keep."""

import functools
import unicodedata
from datetime import UTC, datetime, timedelta
from enum import IntEnum, StrEnum
from typing import Annotated, Self

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    model_validator,
)

MAX_TEXT_CHARS = 100_000
"""The longest text one node may hold; longer input is rejected, not cut."""

MAX_ID_CHARS = 256
MAX_OWNER_CHARS = 128
OWNER_PUNCTUATION = "_.:@-"
"""Besides letters, digits and combining marks of any script, the characters an owner may hold."""


def _check_string(value: object, what: str) -> str:
    """Return value if it is a str that can be stored as UTF-8, else raise ValueError."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what} contains invalid Unicode (a lone surrogate at index {error.start})"
        ) from None
    return value


def check_text(text: object) -> str:
    """Return text unchanged if it is storable, else raise ValueError naming the problem."""
    text = _check_string(text, "text")
    if not text.strip():
        raise ValueError("text is empty or only whitespace")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text has {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    return text


def fit_text(text: str) -> str:
    """Return a derived text (a summary, storyline, conjecture) cut to MAX_TEXT_CHARS with "…"."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[: MAX_TEXT_CHARS - 1] + "…"


def check_owner(owner: object) -> str:
    """Return owner unchanged if it has the owner format, else raise ValueError."""
    if not isinstance(owner, str):
        raise ValueError(f"owner must be a string, not {type(owner).__name__}")
    if len(owner) > MAX_OWNER_CHARS:  # first: a megabyte-long owner is not read through
        raise ValueError(_owner_format(owner))
    return _checked_owner(owner)


@functools.lru_cache(maxsize=4096)
def _checked_owner(owner: str) -> str:
    """Return owner if it has the owner format, else raise ValueError (valid owners remembered).

    Every node read back carries its owner, and owners repeat: a recall on Neo4j decodes ~300
    memories and their turns, and checking each owner character by character took a quarter of
    that decoding.
    """
    if not (
        owner
        and unicodedata.category(owner[0])[0] in "LN"
        and all(
            unicodedata.category(character)[0] in "LNM" or character in OWNER_PUNCTUATION
            for character in owner
        )
    ):
        raise ValueError(_owner_format(owner))
    if not unicodedata.is_normalized("NFC", owner):
        raise ValueError(
            f"owner {owner[:40]!r} is not in Unicode's composed form (NFC): the same name"
            " written another way would be another owner"
        )
    return owner


def _owner_format(owner: str) -> str:
    """The message for an owner that does not have the owner format."""
    return (
        f"owner {owner[:40]!r} is not 1-{MAX_OWNER_CHARS} characters of letters, digits,"
        f" combining marks and {' '.join(OWNER_PUNCTUATION)} starting with a letter or digit"
    )


def check_identifier(identifier: object) -> str:
    """Return an id unchanged if it is 1-256 characters of valid Unicode, else raise ValueError."""
    identifier = _check_string(identifier, "id")
    if not identifier.strip() or len(identifier) > MAX_ID_CHARS:
        raise ValueError(f"id must be 1-{MAX_ID_CHARS} characters and not only whitespace")
    return identifier


def _check_label(value: object, what: str) -> str:
    """Return value if it is at most MAX_ID_CHARS characters of valid Unicode (may be empty)."""
    value = _check_string(value, what)
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"{what} must be at most {MAX_ID_CHARS} characters")
    return value


def check_session(session: object) -> str:
    """Return a session key unchanged if it is at most 256 characters of valid Unicode."""
    return _check_label(session, "session")


def check_speaker(speaker: object) -> str:
    """Return a speaker unchanged if it is at most 256 characters of valid Unicode."""
    return _check_label(speaker, "speaker")


AGENT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "system"})
"""Speakers taken for the agent itself: a dialogue's focus is the latest turn of anyone else,
and facts are about the others."""


def is_agent(speaker: str) -> bool:
    """Whether a speaker is the agent itself (AGENT_SPEAKERS, any case)."""
    return speaker.lower() in AGENT_SPEAKERS


EARLIEST = datetime(1500, 1, 1, tzinfo=UTC)
LATEST = datetime(8500, 1, 1, tzinfo=UTC)
"""The times a verb takes: 1,500 years inside each end of what a datetime holds, so that what is
reckoned from a time (a query's "999 years ago", the week or month around it) can be held too."""


def aware(moment: object) -> datetime:
    """Return a timezone-aware datetime unchanged, else raise ValueError."""
    if not isinstance(moment, datetime):
        raise ValueError(f"at must be a datetime, not {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("at must be timezone-aware")
    return keepable(moment)


def keepable(moment: datetime) -> datetime:
    """Return a time a store can keep (and what is reckoned from it) unchanged, else ValueError.

    A naive time is returned unchanged: whether it must be aware is its caller's check.
    """
    offset = moment.utcoffset()
    if offset is None:
        return moment
    if offset % timedelta(minutes=1):  # Neo4j keeps offsets of whole minutes only
        raise ValueError(f"at must have a UTC offset of whole minutes, not {offset}")
    if not EARLIEST <= moment < LATEST:
        raise ValueError(
            f"at must be from the year {EARLIEST.year} to {LATEST.year - 1}, not {moment}"
        )
    return moment


def _in_utc(moment: datetime) -> datetime:
    """Normalise an aware datetime to UTC so both stores give back equal values."""
    return moment.astimezone(UTC)


Owner = Annotated[str, Strict(), AfterValidator(check_owner)]
Text = Annotated[str, Strict(), AfterValidator(check_text)]
Identifier = Annotated[str, Strict(), AfterValidator(check_identifier)]
SessionKey = Annotated[str, Strict(), AfterValidator(check_session)]
Speaker = Annotated[str, Strict(), AfterValidator(check_speaker)]
Moment = Annotated[AwareDatetime, AfterValidator(_in_utc)]
Score = Annotated[float, Field(ge=0.0, le=10.0)]
Probability = Annotated[float, Field(ge=0.0, le=1.0)]
Embedding = list[Annotated[float, Field(allow_inf_nan=False)]]


class Tier(IntEnum):
    """Storage tier by current attention: 0 is searched by every recall, 3 only by deep ones."""

    HOT = 0
    WARM = 1
    COOL = 2
    DEEP = 3


class MemoryKind(StrEnum):
    """What a Memory states.

    An observation is what a turn said; a fact, a lasting fact about the user that the sleep
    job read in a dialogue, with its slot (no search finds one: recall finds the observation it
    was read in, `profile` shows the facts); knowledge is taught causal knowledge; a summary
    restates a stretch of dialogue (no search finds one either); a conjecture is an impression
    grown strong.
    """

    OBSERVATION = "observation"
    FACT = "fact"
    KNOWLEDGE = "knowledge"
    SUMMARY = "summary"
    CONJECTURE = "conjecture"


class LinkType(StrEnum):
    """The relationship types of the graph, spelled as Neo4j shows them."""

    FROM = "FROM"
    PART_OF = "PART_OF"
    RELATED = "RELATED"
    CAUSES = "CAUSES"
    SUPPORTS = "SUPPORTS"
    CONTRADICTS = "CONTRADICTS"
    INFERRED_FROM = "INFERRED_FROM"
    MERGED_INTO = "MERGED_INTO"
    UPDATES = "UPDATES"
    NEXT = "NEXT"


class Attention(BaseModel):
    """Attention as stored: a long-term and a short-term part, each with the time it was set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    long_term: float = Field(ge=0.0)
    long_term_at: Moment
    short_term: float = Field(ge=0.0)
    short_term_at: Moment


class Node(BaseModel):
    """What every node has: an id, the owner it belongs to, its text and when it was made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Identifier
    owner: Owner
    text: Text
    created_at: Moment


class Turn(Node):
    """A raw perceived item (a message, a tool result); immutable, the source of truth.

    Its marks are the one thing that changes: `pending` is true from the moment the turn is
    stored until its memories are derived, so model work that failed or was cut short is found
    and done later; `awaiting_summary` until a dialogue summary covers it (the sleep job).
    """

    speaker: Speaker = "user"
    session: SessionKey = ""
    """The conversation session the turn belongs to; "" for none (such turns form one stream)."""
    position: int | None = Field(None, ge=0)
    """The turn's place in its session, 0 first, in the order the store received the turns;
    given by the store (ignored on input)."""
    pending: bool = False
    awaiting_summary: bool = False


class Memory(Node):
    """A statement the agent keeps, with its importance, attention, tier, belief and embedding.

    Every stored memory has its embedding but dialogue summaries and facts, which no search
    finds (they restate their turns' memories); memories found by a search come without it
    (None): callers never need it, and 384 or more floats a memory would dominate a recall's
    cost.
    `awaiting_consolidation` marks a new fact until the sleep job has weighed it against older
    ones. `offline` marks an observation that the offline cognition perceived because the model
    could not answer about its turn, even alone, twice (graphmem.ingestion).
    """

    kind: MemoryKind
    importance: Score
    attention: Attention
    tier: Tier
    belief: Probability | None = None
    embedding: Embedding | None
    accessed_at: Moment
    awaiting_consolidation: bool = False
    valid_from: Moment | None = None
    """When a fact that updates an older one (UPDATES) began to hold: when it was stated."""
    valid_until: Moment | None = None
    """When a fact stopped holding: when a newer one that UPDATES it was stated."""
    offline: bool = False
    slot: Annotated[str, Strict(), Field(min_length=1, max_length=MAX_ID_CHARS)] | None = None
    """What a fact (kind fact) gives the value of, as the sleep job named it ("home", "allergy:
    milk"): of an owner's facts of one slot, the latest holds (mechanisms.profile). None for the
    other kinds."""

    def superseded(self, at: datetime) -> bool:
        """Whether a newer fact had replaced this one by `at`."""
        return self.valid_until is not None and self.valid_until <= at


class Event(Node):
    """A major event of the owner's life; its text is the storyline summary."""

    category: str
    title: str
    first_at: Moment
    last_at: Moment
    timeliness_days: float = Field(gt=0.0)
    importance: Score
    attention: Attention
    tier: Tier
    embedding: Embedding


class Impression(Node):
    """An inferred, possibly weak statement whose belief fades with its half-life."""

    belief: Probability
    belief_at: Moment
    half_life_days: float = Field(gt=0.0)
    embedding: Embedding
    conjectured_at: Moment | None = None
    """When the impression last became a conjecture, if ever."""


NODE_LABELS: dict[str, type[Node]] = {
    "Turn": Turn,
    "Memory": Memory,
    "Event": Event,
    "Impression": Impression,
}
"""The model of each node label (Session nodes are the stores' bookkeeping, not a model)."""


class Link(BaseModel):
    """A directed edge; RELATED carries a weight, CAUSES a sufficiency, the others nothing.

    An impression's INFERRED_FROM edge to a cue may carry the belief that cue gave (graphs
    stored before cues kept theirs have none): forgetting a cue subtracts it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: LinkType
    source: Identifier
    target: Identifier
    weight: Probability | None = None
    sufficiency: Probability | None = None
    belief: Probability | None = None

    @property
    def strength(self) -> float:
        """How strongly the edge joins its ends: its weight, else its sufficiency, else 1."""
        if self.weight is not None:
            return self.weight
        return 1.0 if self.sufficiency is None else self.sufficiency

    @model_validator(mode="after")
    def _properties_fit_type(self) -> Self:
        """Require exactly the properties the edge type carries."""
        wants_weight = self.type is LinkType.RELATED
        wants_sufficiency = self.type is LinkType.CAUSES
        if wants_weight != (self.weight is not None):
            raise ValueError(f"{self.type} edges {'need' if wants_weight else 'take no'} weight")
        if wants_sufficiency != (self.sufficiency is not None):
            need = "need" if wants_sufficiency else "take no"
            raise ValueError(f"{self.type} edges {need} sufficiency")
        if self.belief is not None and self.type is not LinkType.INFERRED_FROM:
            raise ValueError(f"{self.type} edges take no belief")
        return self
