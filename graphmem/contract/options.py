"""What a face hands a verb: the options of each verb as one model, the presets, the filters.

Every face builds from these models and lists no option by hand: the server takes them as
request bodies, MCP derives its tools' schemas from them, the clients send them, the CLI makes
its flags from their fields; `GraphMem.recall` takes its model or the same keywords, the other
verbs keywords equal to their model's fields. Each refuses a field it does not know
(`extra="forbid"`), NaN and Infinity, and a time no store can keep.
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Self, TypeVar, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    field_validator,
    model_validator,
)

from graphmem.errors import InvalidInputError, as_invalid_input
from graphmem.model import (
    EARLIEST,
    LATEST,
    Memory,
    MemoryKind,
    Moment,
    Probability,
    SessionKey,
    Speaker,
    Tier,
    Turn,
    check_identifier,
    check_owner,
    check_text,
    keepable,
)

MAX_RECALL = 100
MIN_CONFIDENCE = 0.0
"""The default floor of a recall's confidence (RecallQuestion.min_confidence), below which it
returns nothing: none. benchmarks/confidence.py fits a floor on half of LoCoMo's and
LongMemEval's dev questions (the highest that keeps 98% of their evidence Recall@10), but in a
small memory a question memory does answer in other words ("Which foods are dangerous for me?"
of a user who cannot have shellfish) has a confidence near 0 too: the embedder puts it no nearer
to the answer than to small talk, and memory holds none of its words. Set a floor for a memory
large enough that a foreign question shares few of its words (docs/recall.md)."""
"""The most memories one recall returns."""
MAX_INTEGER = 2**63 - 1
"""The largest whole number a store keeps (Neo4j's are 64-bit)."""
TIME_EXAMPLE = "2026-12-07T09:30:00+00:00"
"""A time as a face gives one, for the errors that ask for one."""
LEASE = timedelta(minutes=5)
"""How long a claim on an owner holds without renewal: a dead worker's owners wait this long."""
MIN_LEASE = timedelta(seconds=1)
"""The shortest lease a job takes: renewed every third of it, a shorter one is all renewal."""
OptionsT = TypeVar("OptionsT", bound=BaseModel)
"""A verb's options model."""
OPTIONS = ConfigDict(extra="forbid", allow_inf_nan=False)
"""Every options model's: an unknown field, NaN or Infinity is refused, naming the field."""


def _iso_moment(value: object) -> object:
    """Read a time from a datetime or ISO 8601 text only: a number would become Unix time."""
    if value is None:
        return value
    if isinstance(value, datetime):
        moment = value
    elif not isinstance(value, str):
        raise ValueError(f"must be ISO 8601 text, not {type(value).__name__}")
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"must be a datetime in ISO 8601, not {value[:40]!r}, e.g. {TIME_EXAMPLE}"
            ) from None
    if moment.utcoffset() is None:
        raise ValueError(f"must have a UTC offset, e.g. {TIME_EXAMPLE}")
    return keepable(moment)


GivenTime = Annotated[
    datetime | None,
    BeforeValidator(_iso_moment),
    Field(
        description=f"ISO 8601 with a UTC offset (whole minutes), from the year {EARLIEST.year}"
        f" to {LATEST.year - 1}; default: now"
    ),
]
"""A time a caller gives: a datetime or ISO 8601 text, with a UTC offset, that a store keeps."""
Text = Annotated[str, AfterValidator(check_text)]
"""A text as a memory holds it, checked before it is embedded (a megabyte would take minutes)."""


class QueryTurn(BaseModel):
    """One turn of the conversation a recall is asked with."""

    model_config = ConfigDict(frozen=True)

    speaker: str = ""
    text: str

    @property
    def line(self) -> str:
        """The turn as a line of the query's text: "speaker: text", or the text alone."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


class Weights(BaseModel):
    """How much each normalised component counts in a memory's score."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    relevance: float = Field(1.0, ge=0)
    lexical: float = Field(0.0, ge=0)
    time_match: float = Field(0.0, ge=0)
    speaker_match: float = Field(0.0, ge=0)
    asker_match: float = Field(0.0, ge=0)
    statement: float = Field(0.0, ge=0)
    importance: float = Field(0.0, ge=0)
    attention: float = Field(0.0, ge=0)
    recency: float = Field(0.0, ge=0)
    association: float = Field(0.0, ge=0)

    @property
    def tie_break_bound(self) -> float:
        """How far attention, importance and recency together can lift a memory's score.

        Each is normalised to [0, 1], so a memory whose relevance part (relevance, lexical match,
        time match, speaker and asker match, statement and association, weighted) exceeds
        another's by more than this ranks above it.
        """
        return self.importance + self.attention + self.recency


_BALANCED = Weights(
    relevance=1.0,
    lexical=0.7,
    time_match=1.0,
    speaker_match=0.2,
    asker_match=0.6,
    statement=0.5,
    importance=0.05,
    association=1.0,
)
"""The default weights (PRESETS["balanced"], below)."""


PRESETS: dict[str, Weights] = {
    "balanced": _BALANCED,
    "relevance": _BALANCED.model_copy(update={"importance": 0.0}),
    "generative_agents": Weights(relevance=1.0, importance=1.0, recency=1.0),
}
"""Named weights. `balanced` is the default: relevance (dense, lexical and by association) ranks,
importance only breaks near-ties (Weights.tie_break_bound), and attention acts through the tiers
it keeps memories in, not through the score: any weight on attention or on recency of access
made the memories a recall woke outrank more relevant ones in later recalls (measured on LoCoMo
and MADial when 0.1.0 chose them), and equal weights let recency rank long histories by age (on
LoCoMo they drop evidence Recall@10 from 47 to 7). Speaker match counts 0.2: a question naming
who spoke prefers their turns among near-equals, not over a better match by another (LoCoMo's
adversarial questions name the wrong person: at 0.6 they lose 17 points of Recall@10 while its
other questions gain 2; at 0.2, 4 and 1.2). Asker match counts 0.6: a question in the first
person asks of the asker's own life, which their own turns tell, while the agent's replies
echo its words at length; no one names the asker by mistake, so it may weigh more (LongMemEval,
whose questions are the user's: R@5 / NDCG@10 74.1 / 72.4 at 0.2, 79.5 / 76.0 at 0.6; 0.4-1.0
measured; CHANGELOG.md, 0.1.0; LoCoMo's questions are in the third person, MADial's banks one
speaker's). Statement counts 0.5:
a question that tells nothing of its speaker ("What inspired you to join it?") shares the words
of a later question about the same thing but holds no answer: in LoCoMo's conversations 17.6% of
the turns are such questions and 3% of the evidence (0.3-0.7 measured alike; LongMemEval's user
questions say "I" and keep their 1)."""


DEFAULT_PRESET = "balanced"


SEARCHED_KINDS = (
    MemoryKind.OBSERVATION,
    MemoryKind.KNOWLEDGE,
    MemoryKind.CONJECTURE,
)
"""The kinds of memory searches find: all but dialogue summaries and facts, which restate their
turns' observations (`profile` shows the facts)."""


class MemoryFilter(BaseModel):
    """Which memories a search may find: each condition given holds (None: no condition).

    `sessions` and `speakers`: one of the memory's source turns is of one of these sessions, or
    said by one of these speakers (a memory without turns, as a conjecture, has neither);
    `since` and `until`: it was made at or after `since` and before `until`; `kinds`: it is of
    one of these kinds; `min_belief`: it holds a belief of at least this, or none (an
    observation holds none: it was said, not believed).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    sessions: list[SessionKey] | None = Field(None, min_length=1)
    speakers: list[Speaker] | None = Field(None, min_length=1)
    since: Annotated[Moment, Strict()] | None = None
    until: Annotated[Moment, Strict()] | None = None
    kinds: list[MemoryKind] | None = Field(None, min_length=1)
    min_belief: Annotated[Probability, Strict()] | None = None

    @model_validator(mode="after")
    def _searchable(self) -> Self:
        """Refuse kinds no search finds and a stretch of time that holds no moment."""
        for kind in self.kinds or []:
            if kind not in SEARCHED_KINDS:
                raise ValueError(
                    f"kinds may name {', '.join(SEARCHED_KINDS)}, not {kind} (no search finds"
                    " dialogue summaries or facts: they restate their turns' observations;"
                    " profile shows the facts)"
                )
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError(f"since ({self.since}) must be before until ({self.until})")
        return self

    def admits(self, memory: Memory, turns_of: Callable[[Memory], Sequence[Turn]]) -> bool:
        """Whether a memory meets every condition (its source turns read only if one needs them)."""
        return (
            (
                self.sessions is None
                or any(turn.session in self.sessions for turn in turns_of(memory))
            )
            and (
                self.speakers is None
                or any(turn.speaker in self.speakers for turn in turns_of(memory))
            )
            and (self.since is None or memory.created_at >= self.since)
            and (self.until is None or memory.created_at < self.until)
            and (self.kinds is None or memory.kind in self.kinds)
            and (
                self.min_belief is None or memory.belief is None or memory.belief >= self.min_belief
            )
        )

    def parameters(self) -> dict[str, Any]:
        """The conditions as a statement's parameters (null where none is given)."""
        return {
            "sessions": self.sessions,
            "speakers": self.speakers,
            "since": self.since,
            "until": self.until,
            "kinds": None if self.kinds is None else [kind.value for kind in self.kinds],
            "min_belief": self.min_belief,
        }


ANY_MEMORY = MemoryFilter()
"""The filter that admits every memory."""


class ObservedMessage(BaseModel):
    """One message to observe."""

    model_config = OPTIONS

    text: str = Field(description="what was said or perceived")
    message_id: str | None = Field(
        None, description="the message's id in your system: one id stores once"
    )
    at: GivenTime = None
    speaker: str = Field("user", description="who said it, e.g. user or assistant")
    session: str = Field("", description="the conversation session it belongs to ('' for none)")


class ObserveOne(ObservedMessage):
    """A message to observe, and whether a message forgotten earlier may come back."""

    readmit_forgotten: bool = Field(
        False, description="store a message forgotten earlier again (its tombstone goes)"
    )


class ObserveMany(BaseModel):
    """Messages to observe in order, in one transaction."""

    model_config = OPTIONS

    messages: list[ObservedMessage] = Field(description="the messages, oldest first")
    readmit_forgotten: bool = Field(
        False, description="store messages forgotten earlier again (their tombstones go)"
    )


def _query_shape(query: object) -> object:
    """Refuse a query that is neither a text nor a non-empty list of {speaker, text} turns."""
    if isinstance(query, str):
        return query
    if not isinstance(query, Sequence) or not query:
        raise ValueError(
            "must be a text or a non-empty list of {speaker, text} turns,"
            f" not {type(query).__name__}"
        )
    for index, turn in enumerate(query):
        fits = isinstance(turn, QueryTurn) or (
            isinstance(turn, Mapping) and set(turn) <= {"speaker", "text"} and "text" in turn
        )
        if not fits:
            raise ValueError(f"turn {index} must be {{speaker, text}}, not {turn!r:.80}")
    return list(query)


class RecallQuestion(BaseModel):
    """What to recall, and how: the query, how deep and how much, the weights, the filters."""

    model_config = OPTIONS

    query: Annotated[str | list[QueryTurn], BeforeValidator(_query_shape)] = Field(
        description="a question, or the recent conversation (oldest first, the last turn is"
        " what is asked)"
    )
    k: Annotated[int, Strict()] | None = Field(
        None,
        ge=1,
        le=MAX_RECALL,
        description=f"how many memories to return at most; default 10, or {MAX_RECALL} with"
        " max_tokens",
    )
    motivation: Annotated[float, Strict()] | None = Field(
        None, ge=0, le=10, description="how deep to search (0-10); default: the query's label"
    )
    weights: str | Weights = Field(
        DEFAULT_PRESET, description=f"the score's weights: a preset ({', '.join(PRESETS)}) or each"
    )
    peek: Annotated[bool, Strict()] = Field(False, description="recall without waking anything")
    at: GivenTime = None
    budget_seconds: Annotated[float, Strict()] | None = Field(
        None, gt=0, description="time after which thinking again and association are skipped"
    )
    max_tokens: Annotated[int, Strict()] | None = Field(
        None,
        ge=1,
        le=MAX_INTEGER,
        description="keep what fits this many tokens of `rendered` (the most evidence)",
    )
    sessions: list[str] | None = Field(None, description="only memories from these sessions")
    speakers: list[str] | None = Field(None, description="only memories said by these speakers")
    since: GivenTime = Field(None, description="only memories made at or after this time")
    until: GivenTime = Field(None, description="only memories made before this time")
    kinds: list[str] | None = Field(
        None, description="only memories of these kinds: observation, knowledge, conjecture"
    )
    min_belief: Annotated[float, Strict()] | None = Field(
        None, description="only memories holding a belief of at least this (0-1), or none"
    )
    min_confidence: Annotated[float, Strict()] = Field(
        MIN_CONFIDENCE,
        ge=0,
        le=1,
        description="below this confidence that anything found is relevant (0-1), return no"
        " memory and say nothing relevant was found; 0 returns what was found",
    )

    @classmethod
    def of(cls, query: object, options: Mapping[str, Any]) -> "RecallQuestion":
        """The question given in place of a query, or one of the query and its options."""
        if not isinstance(query, RecallQuestion):
            return options_of(cls, query=query, **options)
        if options:
            raise InvalidInputError(
                f"give the options as RecallQuestion or as keywords, not both"
                f" ({', '.join(sorted(options))})"
            )
        return query

    @field_validator("weights")
    @classmethod
    def _known_preset(cls, weights: str | Weights) -> str | Weights:
        """Refuse a preset name that names none."""
        if isinstance(weights, str) and weights not in PRESETS:
            raise ValueError(f"no preset {weights!r}; presets: {', '.join(sorted(PRESETS))}")
        return weights

    @property
    def size(self) -> int:
        """The most memories to return: k, else 10, or MAX_RECALL when a budget decides."""
        if self.k is not None:
            return self.k
        return 10 if self.max_tokens is None else MAX_RECALL

    @property
    def chosen_weights(self) -> Weights:
        """The weights, a preset's when named."""
        return PRESETS[self.weights] if isinstance(self.weights, str) else self.weights

    def memory_filter(self) -> MemoryFilter:
        """The filters as a MemoryFilter; InvalidInputError names what no search can admit."""
        with as_invalid_input():
            return MemoryFilter.model_validate(
                self.model_dump(
                    include={"sessions", "speakers", "since", "until", "kinds", "min_belief"}
                )
            )


class When(BaseModel):
    """A time to do something at."""

    model_config = OPTIONS

    at: GivenTime = None


class MessageRef(BaseModel):
    """A message by its id."""

    model_config = OPTIONS

    message_id: str = Field(description="the id the message was observed with")


class Lesson(BaseModel):
    """Knowledge to teach: a cause, its effect, how surely one brings the other."""

    model_config = OPTIONS

    cause: Text = Field(description="what leads to the effect")
    effect: Text = Field(description="what the cause leads to")
    sufficiency: float = Field(ge=0, le=1, description="how surely it does, from 0 to 1")
    at: GivenTime = None


class KeyRequest(BaseModel):
    """What a new key may touch."""

    model_config = OPTIONS

    owners: list[str] = Field([], description="owners the key may touch")
    owner_prefix: Annotated[str, AfterValidator(check_owner)] | None = Field(
        None, description="it may touch owners starting with this (itself an owner's name)"
    )
    admin: bool = Field(False, description="it may touch every owner and manage keys")


class Limit(BaseModel):
    """How many at most."""

    model_config = OPTIONS

    limit: Annotated[int, Strict()] = Field(
        1000, ge=1, le=MAX_INTEGER, description="the most to do in this call"
    )


def _not_a_truth_value(value: object) -> object:
    """Refuse True and False where a number is asked for (pydantic reads them as 1 and 0)."""
    if isinstance(value, bool):
        raise ValueError("must be a whole number, not a truth value")
    return value


class TurnsWanted(BaseModel):
    """Which turns to read: a session's, all or the last of them."""

    model_config = OPTIONS

    session: str = Field("", description='the session; "" (default) for turns without one')
    last: Annotated[int, BeforeValidator(_not_a_truth_value)] | None = Field(
        None, ge=0, le=MAX_INTEGER, description="only the last this many; default: all"
    )


MAX_PAGE = 500
"""The most memories a page of the timeline holds."""
MAX_CONTAINS_CHARS = 200
"""The longest text a timeline may be asked to find in its memories."""
Since = Annotated[
    datetime | None,
    BeforeValidator(_iso_moment),
    Field(description="only memories made at or after this time (ISO 8601, UTC offset)"),
]
Until = Annotated[
    datetime | None,
    BeforeValidator(_iso_moment),
    Field(description="only memories made before this time (ISO 8601, UTC offset)"),
]


def page_cursor(memory: Memory) -> str:
    """The `next` of a page that ends at this memory: its time in ISO 8601, a space, its id."""
    return f"{memory.created_at.isoformat()} {memory.id}"


def _cursor_parts(cursor: str) -> tuple[datetime, str]:
    """The time and memory id a page's `next` holds (ValueError if it holds no such pair)."""
    time, _space, memory_id = cursor.partition(" ")
    return cast(datetime, _iso_moment(time)), check_identifier(memory_id)


def _cursor(value: object) -> object:
    """Check that a cursor is a page's `next` (page_cursor's)."""
    if value is None:
        return value
    if not isinstance(value, str):
        raise ValueError(f"must be a page's `next` (text), not {type(value).__name__}")
    try:
        _cursor_parts(value)
    except ValueError:
        raise ValueError(
            f"must be a page's `next` (a time and a memory id), not {value[:80]!r}"
        ) from None
    return value


class TimelineWanted(BaseModel):
    """Which page of the owner's memories to read, newest first: each condition given holds.

    `session` and `speaker`: one of the memory's source turns is of this session, or was said
    by this speaker; `contains`: its text holds this text, case ignored; `before`: the `next`
    of the page read before, for the page after it.
    """

    model_config = OPTIONS

    kinds: list[MemoryKind] | None = Field(None, min_length=1, description="only these kinds")
    tiers: list[Annotated[int, Field(ge=int(Tier.HOT), le=int(Tier.DEEP))]] | None = Field(
        None, min_length=1, description="only these tiers (0 hot to 3 deep)"
    )
    session: SessionKey | None = Field(None, description="only memories of this session")
    speaker: Speaker | None = Field(None, description="only memories this speaker said")
    contains: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_CONTAINS_CHARS,
        description="only memories whose text holds this (case ignored)",
    )
    since: Since = None
    until: Until = None
    at: GivenTime = Field(None, description="the time attention is read at; default: now")
    before: Annotated[str | None, BeforeValidator(_cursor)] = Field(
        None, description="the `next` of the page before; default: the newest page"
    )
    limit: Annotated[int, BeforeValidator(_not_a_truth_value)] = Field(
        50, ge=1, le=MAX_PAGE, description="the most memories on the page"
    )

    @model_validator(mode="after")
    def _some_time(self) -> Self:
        """Refuse a stretch of time that holds no moment."""
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError(f"since ({self.since}) must be before until ({self.until})")
        return self

    @property
    def cursor(self) -> tuple[datetime, str] | None:
        """The time and id of the last memory of the page before, if one was given."""
        return None if self.before is None else _cursor_parts(self.before)


NODE_KINDS = ("Memory", "Turn", "Event", "Impression")
"""The labels of the nodes whose neighbourhood can be read."""


def _node_kind(label: str) -> str:
    """Check that a label is one of NODE_KINDS."""
    if label not in NODE_KINDS:
        raise ValueError(f"must be one of {', '.join(NODE_KINDS)}, not {label[:40]!r}")
    return label


class NodeWanted(BaseModel):
    """Which node's neighbourhood to read: its id, and its label (a memory's by default)."""

    model_config = OPTIONS

    node_id: Annotated[str, AfterValidator(check_identifier)] = Field(description="the node's id")
    label: Annotated[str, AfterValidator(_node_kind)] = Field(
        "Memory", description="what the node is: Memory, Turn, Event or Impression"
    )


class Records(BaseModel):
    """An owner's graph as the records `export` streams."""

    model_config = OPTIONS

    records: list[dict[str, Any]]


def options_of(model: type[OptionsT], /, **keywords: Any) -> OptionsT:
    """A verb's options made of the keywords (InvalidInputError names a bad one)."""
    with as_invalid_input():
        return model.model_validate(keywords)
