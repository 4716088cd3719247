"""Retrieval scoring (Generative Agents' memory stream, with attention and association).

Each memory found gets nine components: relevance (cosine similarity to the query), lexical
(BM25 of the query's weighted content terms over the memories found, of each memory's own text
and of it read with the texts of the turns right before and after its own, each min-max
normalised and averaged; the names of the speakers it asks about are left to speaker match),
time match (how well the memory's time falls in a stretch of time the query names, "two months
ago" or "in March": graphmem.timespans), speaker match (the share of its turns spoken by someone
whose words the query asks about: a name it says, "I" for the one asking, "you said" for the
agent), statement (how much a memory tells: its attention label over SUBSTANTIAL_LABEL, at most
1, so small talk tells nothing; 0 for a question that tells nothing of its speaker: it asks and
has no first-person word), importance (its attention label), attention
(current attention) and recency (0.995 ** hours since last access). Each but time match, speaker
match and statement (already 0-1; the first two 0 for all when the query names no time or
speaker) is min-max normalised over the memories found; one equal over all of them separates
none and shows 0 (so lexical is 0 for a memory that shares no word with the query), while the
score counts it as 1 for every memory alike, which changes no order. Association
(docs/design.md, "Retrieval") then spreads the relevance part (weighted relevance + lexical, as
the score counts them) through the graph: a memory gains a share of the best relevance of the
turns right before and after its own, of the best in its stretch of the session, and of the
memories linked to it, so a memory that is relevant by association is found even when its words
differ. A query that asks for many things ("how many", "in total", "所有") spreads less within a
session: each further memory of a session keeps less of the session's share, so that one episode
does not fill the list. The weighted sum is the score; every scored memory keeps its raw and
normalised components, the association it received and the memory it came through.
"""

import re
from collections.abc import Mapping
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from graphmem.confidence import ConfidencePolicy
from graphmem.contract import (
    Components,
    QueryTurn,
    Weights,
)
from graphmem.mechanisms.attention import AttentionPolicy, current_attention
from graphmem.model import Link, LinkType, Memory, Turn, is_agent
from graphmem.store.findings import SimilarMemory
from graphmem.store.rules import term_rarity
from graphmem.terms import terms
from graphmem.timespans import Timespan, named_timespans, time_match

RECENCY_PER_HOUR = 0.995
SUBSTANTIAL_LABEL = 2.0
"""The attention label of an ordinary statement of someone's life (cognition.base.AttentionLabel:
small talk 0, an ordinary statement 2, vital 10): a memory labelled less tells less."""
SUPERSEDED_SHARE = 0.5
"""The share of its score a fact keeps once a newer one UPDATES it (its valid_until is past).
The newer one, when found too, scores at least what the older one would have: a question about
where the user lives finds "I live in Paris" by its words and answers with "I moved to Berlin",
above it; the old value still shows, with its dates."""
BM25_K1 = 1.5
BM25_B = 0.75
QUERY_EMBEDDING_CHARS = 2_000
"""A recall embeds the first 2,000 characters of its focus turn and the last 2,000 of its
conversation (about one 512-token window of the offline embedder, which would take a minute
over 100,000 characters), so that the embedding keeps within the recall budget; the
shared-words search reads the whole query."""
FOCUS_SHARE = 0.5
"""How much the focus turn counts against the whole recent conversation (itself included), in
the embedding and in the weight of its words. On MADial's dev dialogues (Recall@5 zh / en): 0
(the conversation alone) 55.3 / 61.4, 0.5 63.6 / 68.6, 0.6 63.9 / 64.5, 0.7 62.8 / 64.2."""
SPEAKER_PREFIX = re.compile(r"([^:\n]{1,40}):\s+(.*)")
"""A line of a dialogue given as text: "speaker: what was said"."""
MANY = re.compile(
    r"\b(?:how many|how often|total|all the|all of|every)\b"
    r"|多少|几[个次件位种天年本场家回]|总共|一共|总计|所有|全部|哪些",
    re.IGNORECASE,
)
"""Words of a question that asks for many things (to count, sum or list), in English and Chinese."""
USER_SPEAKER = "user"
"""Whom a question in the first person asks about when it names no speaker of its own: the
speaker `observe` gives by default."""
FIRST_PERSON = re.compile(r"\bI\b|\b(?:me|my|mine|myself)\b|我", re.IGNORECASE)
"""Words by which a query speaks of the one asking, and a memory of its speaker, in English and
Chinese."""
QUESTION_MARK = re.compile(r"[?？]")
"""How a text asks something, in English and Chinese."""
AGENT_SPEECH = re.compile(
    r"\byou (?:said|mentioned|suggested|recommended|told|gave|listed|provided|explained|shared)\b"
    r"|\bdid you (?:say|mention|suggest|recommend|tell|give|list|provide|explain|share)\b"
    r"|你(?:之前|上次|以前|刚才)?(?:说过|提到过|提过|建议过|推荐过|告诉过)"
    r"|你(?:之前|上次|以前|刚才)(?:说|提到|建议|推荐|告诉)",
    re.IGNORECASE,
)
"""Words by which a query asks what the agent itself said, in English and Chinese."""


class Query(BaseModel):
    """What a recall looks for: a question, or the recent conversation with its latest turn.

    The focus is the latest turn not spoken by the agent (AGENT_SPEAKERS); it counts
    FOCUS_SHARE in the query's embedding and words, the conversation the rest, so a long
    dialogue does not dilute what was just said.
    """

    model_config = ConfigDict(frozen=True)

    turns: list[QueryTurn] = Field(min_length=1)

    @classmethod
    def of(cls, text: str) -> "Query":
        """A query from a text: one turn a line, "speaker: text" or plain (one line: a question)."""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        matches = [SPEAKER_PREFIX.fullmatch(line) for line in lines]
        return cls(
            turns=[
                QueryTurn(speaker=match[1].strip(), text=match[2])
                if match and len(lines) > 1
                else QueryTurn(text=line)
                for line, match in zip(lines, matches, strict=True)
            ]
        )

    @property
    def text(self) -> str:
        """The whole query as text, one turn a line."""
        return "\n".join(turn.line for turn in self.turns)

    @property
    def focus_turn(self) -> QueryTurn:
        """The latest turn not spoken by the agent (else the latest turn)."""
        spoken = [turn for turn in self.turns if not is_agent(turn.speaker)]
        return (spoken or self.turns)[-1]

    @property
    def focus(self) -> str:
        """The text of the focus turn."""
        return self.focus_turn.text

    @property
    def context(self) -> str:
        """The end of the conversation that is embedded beside the focus."""
        return self.text[-QUERY_EMBEDDING_CHARS:]

    @property
    def asks_for_many(self) -> bool:
        """Whether the focus asks to count, sum or list things (MANY), found in many episodes."""
        return MANY.search(self.focus) is not None

    def speakers_named(self, speakers: set[str]) -> set[str]:
        """Of these speakers, those the focus asks about by name or as the agent.

        Each whose name it says (a whole word, any case), and the agent's speakers
        (AGENT_SPEAKERS) when it asks what the agent said (AGENT_SPEECH).
        """
        focus = self.focus
        named = {
            speaker
            for speaker in speakers
            if re.search(rf"(?<!\w){re.escape(speaker)}(?!\w)", focus, re.IGNORECASE)
        }
        if AGENT_SPEECH.search(focus):
            named |= {speaker for speaker in speakers if is_agent(speaker)}
        return named

    def asker(self, speakers: set[str]) -> set[str]:
        """Of these speakers, the one asking, when the focus speaks of them (FIRST_PERSON).

        The focus turn's speaker, else USER_SPEAKER (any case), else the only speaker that is
        not the agent's; none when the focus asks what the agent said (AGENT_SPEECH).
        """
        focus = self.focus
        if AGENT_SPEECH.search(focus) or not FIRST_PERSON.search(focus):
            return set()
        people = {speaker for speaker in speakers if not is_agent(speaker)}
        asking = self.focus_turn.speaker.lower() or USER_SPEAKER
        mine = {speaker for speaker in people if speaker.lower() == asking}
        return mine or (people if len(people) == 1 else set())

    def timespans(self, now: datetime) -> list[Timespan]:
        """The stretches of time the focus names, as of `now` (graphmem.timespans)."""
        return named_timespans(self.focus, now)

    @property
    def is_dialogue(self) -> bool:
        """Whether the query has more than its focus."""
        return len(self.turns) > 1

    def term_weights(self) -> dict[str, float]:
        """Its content terms, each with its weight in lexical matching, in the order searched.

        The focus's terms first, then those of the other lines, the latest line's first: a store
        searches only the first MAX_SEARCH_TERMS, and the recent conversation matters most.
        """
        weights = dict.fromkeys(sorted(terms(self.focus)), 1.0)
        if self.is_dialogue:
            for turn in reversed(self.turns):
                for term in sorted(terms(turn.line)):
                    weights.setdefault(term, 1 - FOCUS_SHARE)
        return weights


class Association(BaseModel):
    """How relevance spreads to a memory's neighbours before the final ranking."""

    model_config = ConfigDict(frozen=True)

    seeds: int = Field(
        20, ge=0, description="best candidates (half dense, half lexical) whose neighbours join"
    )
    window: int = Field(5, ge=0, description="turns either side of a seed's turn that join")
    links: int = Field(
        5, ge=0, description="linked memories of a seed that join, strongest edges first"
    )
    pause: timedelta = Field(
        timedelta(hours=6), description="turns further apart in time are not around each other"
    )
    adjacent: float = Field(
        0.3, ge=0, description="share of the best relevance of the turns right before and after"
    )
    session: float = Field(
        0.4, ge=0, description="share of the best relevance (with adjacency) in its session"
    )
    linked: float = Field(
        0.1, ge=0, description="share of a linked memory's relevance, times the edge weight"
    )
    evoked: float = Field(
        0.4,
        ge=0,
        description="share of the best relevance found that a cue of an impression the query"
        " implies too gains, times how strongly the query evokes it (mechanisms.impressions."
        "evocation): as much as a session mate's, for the query and the cue tell of one"
        " situation (a fever today, a sore throat yesterday: a cold)",
    )
    breadth: float = Field(
        0.7,
        ge=0,
        le=1,
        description="for a query that asks for many things, the part of the session share the"
        " n-th most relevant memory of a session keeps is this to the power n - 1",
    )


class RecallPolicy(BaseModel):
    """How recall searches: candidates per search, when to think again, and how far."""

    model_config = ConfigDict(frozen=True)

    candidates: int = Field(50, ge=1, description="memories scored per search")
    sufficient_relevance: float = Field(
        0.95,
        description="best cosine similarity that answers a query; below it recall thinks again"
        " (for the offline e5 embedder, whose similarities lie between 0.7 and 1: at 0.9 a"
        " dialogue as the query often stopped at the hot tier: MADial zh Recall@5 31.5, not 58.7)",
    )
    rethinks: int = Field(2, ge=0, description="how many times recall may think again")
    rethink_motivation: float = Field(
        4.0, gt=0, description="motivation added per rethink (two reach the deepest tier from 1)"
    )
    default_motivation: float = Field(
        5.0, ge=0, le=10, description="motivation when the cognition cannot label the query"
    )
    association: Association = Field(
        default_factory=Association, description="how relevance spreads"
    )
    budget_seconds: float = Field(
        5.0,
        gt=0,
        description="time a recall may take before it skips thinking again and association",
    )
    confidence: ConfidencePolicy = Field(
        default_factory=ConfidencePolicy, description="how sure a recall is of what it found"
    )


class Scored(BaseModel):
    """A candidate memory with its score and the components behind it."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    turns: list[Turn]
    score: float
    raw: Components
    normalised: Components
    via: str | None
    """The memory whose relevance reached this one by association the most, if any."""
    evoked_by: str | None = None
    """The impression through which the query evoked this memory, if any."""


def _normalised(values: list[float]) -> list[float]:
    """Min-max normalisation to 0-1; all 0 when the values are equal (they separate nothing)."""
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    return [(value - low) / (high - low) for value in values]


def _counted(values: list[float]) -> list[float]:
    """A component as the score counts it: normalised, or 1 for every memory when all are equal.

    A component equal over all the memories found separates none of them and shows 0; counted
    fully for every memory alike it changes no order, and it keeps the association spread from
    relevance and the share of its score a superseded fact keeps as the weights were fitted.
    """
    if min(values) == max(values):
        return [1.0 for _ in values]
    return _normalised(values)


def _by_memory(
    columns: Mapping[str, list[float]], as_is: list[dict[str, float]]
) -> list[dict[str, float]]:
    """Each memory's components: its value of every column, and those used as they are."""
    return [
        {name: values[index] for name, values in columns.items()} | used
        for index, used in enumerate(as_is)
    ]


def bm25(wanted: Mapping[str, float], documents: list[str]) -> list[float]:
    """BM25 of weighted query terms against each document, with these documents' statistics.

    Content terms (graphmem.terms) count once per text, which suits short memories. A term's
    rarity is the lexical channel's (term_rarity), over these documents.
    """
    sets = [terms(document) for document in documents]
    if not wanted or not sets:
        return [0.0 for _ in documents]
    average = sum(len(found) for found in sets) / len(sets) or 1.0
    idf = {  # in term order, so that sums (and ties) are the same in every process
        term: wanted[term] * term_rarity(frequency, len(sets))
        for term in sorted(wanted)
        if (frequency := sum(1 for found in sets if term in found))
    }
    return [
        sum(
            weight * (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * len(found) / average))
            for term, weight in idf.items()
            if term in found
        )
        for found in sets
    ]


def score(
    query: Query,
    found: list[SimilarMemory],
    links: list[Link],
    *,
    now: datetime,
    weights: Weights,
    policy: AttentionPolicy,
    association: Association,
    limit: int,
    evoked: Mapping[str, tuple[float, str]] | None = None,
) -> list[Scored]:
    """Score memories found (candidates and their neighbours); return the best `limit` first.

    `links` are edges among them; `evoked` maps the id of a memory the query evokes to how
    strongly, and the impression it does so through. Ties are broken by memory id. The
    memories are taken as of `now`: one made later is left out, and a validity that ends later
    is not shown yet.
    """
    evoked = {} if evoked is None else evoked
    found = [as_of(item, now) for item in found if item.memory.created_at <= now]
    if not found:
        return []
    surroundings = _surroundings(found, association)
    speakers = {turn.speaker for item in found for turn in item.turns}
    named = query.speakers_named(speakers)
    asker = query.asker(speakers)
    lexical = _lexical(query, found, surroundings, named | asker)
    spans = query.timespans(now)
    raw = [
        {
            "relevance": item.similarity,
            "lexical": lexical[index],
            "importance": item.memory.importance,
            "attention": current_attention(item.memory.attention, now, policy),
            "recency": RECENCY_PER_HOUR
            ** max((now - item.memory.accessed_at).total_seconds() / 3600, 0.0),
        }
        for index, item in enumerate(found)
    ]
    columns = {name: [values[name] for values in raw] for name in raw[0]}
    counted_columns = {name: _counted(column) for name, column in columns.items()}
    relevance = [
        weights.relevance * counted_columns["relevance"][index]
        + weights.lexical * counted_columns["lexical"][index]
        for index in range(len(found))
    ]
    breadth = association.breadth if query.asks_for_many else 1.0
    spread = _spread(found, surroundings, links, relevance, association, breadth=breadth)
    best_relevance = max(relevance)
    # Components on a 0-1 scale already, or spread from relevance: used as they are.
    as_is = [
        {
            "time_match": time_match(_time_of(item), spans),
            "speaker_match": _speaker_match(item, named),
            "asker_match": _speaker_match(item, asker),
            "statement": _statement(item),
            "association": spread[index][0]
            + association.evoked * evoked.get(item.memory.id, (0.0, ""))[0] * best_relevance,
        }
        for index, item in enumerate(found)
    ]
    normalised = _by_memory({name: _normalised(column) for name, column in columns.items()}, as_is)
    counted = _by_memory(counted_columns, as_is)
    totals = [
        sum(getattr(weights, name) * value for name, value in components.items())
        for components in counted
    ]
    _prefer_current_values(totals, found, links, now)
    best = sorted(range(len(found)), key=lambda index: (-totals[index], found[index].memory.id))
    return [
        Scored(
            memory=found[index].memory,
            turns=found[index].turns,
            score=totals[index],
            raw=Components(**raw[index], **as_is[index]),
            normalised=Components(**normalised[index]),
            via=spread[index][1],
            evoked_by=evoked[found[index].memory.id][1]
            if found[index].memory.id in evoked
            else None,
        )
        for index in best[:limit]
    ]


def _prefer_current_values(
    totals: list[float], found: list[SimilarMemory], links: list[Link], now: datetime
) -> None:
    """Give each newer fact at least the score of the older one it UPDATES, then cut the older.

    Oldest first, so that along a chain of updates (Paris, Berlin, Rome) the latest gets most.
    """
    index = {item.memory.id: number for number, item in enumerate(found)}
    updates = sorted(
        (
            (index[link.source], index[link.target])
            for link in links
            if link.type is LinkType.UPDATES and link.source in index and link.target in index
        ),
        key=lambda pair: found[pair[1]].memory.created_at,
    )
    for newer, older in updates:
        if found[older].memory.superseded(now):
            totals[newer] = max(totals[newer], totals[older])
    for number, item in enumerate(found):
        if item.memory.superseded(now):
            totals[number] *= SUPERSEDED_SHARE


def _time_of(found: SimilarMemory) -> datetime:
    """When a memory's content happened: its first turn's time, else its own creation."""
    return found.turns[0].created_at if found.turns else found.memory.created_at


def _speaker_match(found: SimilarMemory, named: set[str]) -> float:
    """The share of a memory's turns spoken by a speaker the query asks about."""
    if not named or not found.turns:
        return 0.0
    return sum(turn.speaker in named for turn in found.turns) / len(found.turns)


def only_asks(text: str) -> bool:
    """Whether a text asks something and tells nothing of its speaker (no first-person word).

    A question without a first-person word ("Did you finish the race?") holds no answer, though
    it shares the words of a later question about the same thing; one that says "I" or "my"
    ("Can you suggest recipes for my quinoa?") tells of its speaker.
    """
    return QUESTION_MARK.search(text) is not None and FIRST_PERSON.search(text) is None


def _statement(found: SimilarMemory) -> float:
    """How much a memory tells: 0 for one that only asks (`only_asks`), else by its label.

    A memory labelled SUBSTANTIAL_LABEL or more tells something (1); below, in proportion: small
    talk, labelled 0, tells nothing, so that a clear label difference outweighs a near-tie of
    relevance (the embedder puts every short text near any query).
    """
    if only_asks(found.memory.text):
        return 0.0
    return min(1.0, found.memory.importance / SUBSTANTIAL_LABEL)


def as_of(found: SimilarMemory, now: datetime) -> SimilarMemory:
    """A memory found, as it was at `now`: a validity that ends later is not known yet."""
    memory = found.memory
    if memory.valid_until is None or memory.valid_until <= now:
        return found
    return found.model_copy(update={"memory": memory.model_copy(update={"valid_until": None})})


def _lexical(
    query: Query,
    found: list[SimilarMemory],
    surroundings: list[list[tuple[int, int]]],
    named: set[str],
) -> list[float]:
    """Each memory's lexical match: BM25 of its own text and of it read with its neighbours.

    The names of the speakers the query asks about (`named`) are not matched as words: the
    speaker match weighs who spoke, and as words they would also match what others said to
    them ("Thanks, John!").

    Both are min-max normalised over the memories found and averaged, so a memory that shares no
    word with the query, alone or with its neighbours, has 0: a short dialogue turn is often
    understood only with the turns around it (on LoCoMo its own words alone cost 1.8 points of
    Recall@10), while a memory among unrelated neighbours (a diary's events of one day, MADial)
    is matched best by its own words (there the neighbours' words alone cost 1-4).
    """
    names = {term for speaker in named for term in terms(speaker)}
    weights = {term: weight for term, weight in query.term_weights().items() if term not in names}
    own = _normalised(bm25(weights, [item.memory.text for item in found]))
    around = _normalised(bm25(weights, _with_adjacent_texts(found, surroundings)))
    return [(alone + near) / 2 for alone, near in zip(own, around, strict=True)]


def _surroundings(
    found: list[SimilarMemory], association: Association
) -> list[list[tuple[int, int]]]:
    """For each memory, the others whose turns are around its own and how many turns away.

    Around means in the same session, within `window` positions and within `pause` in time
    (so a stream of turns without sessions does not join yesterday's talk to today's). A
    memory's turn is its first one.
    """
    placed = {
        (turn.session, turn.position): index
        for index, item in enumerate(found)
        if item.turns and (turn := item.turns[0]).position is not None
    }
    result: list[list[tuple[int, int]]] = []
    for item in found:
        if not item.turns or (turn := item.turns[0]).position is None:
            result.append([])
            continue
        near = []
        for distance in range(1, association.window + 1):
            for position in (turn.position - distance, turn.position + distance):
                other = placed.get((turn.session, position))
                if other is None:
                    continue
                apart = abs(found[other].turns[0].created_at - turn.created_at)
                if apart <= association.pause:
                    near.append((other, distance))
        result.append(near)
    return result


def _adjacent(near: list[tuple[int, int]]) -> list[int]:
    """Of the memories around one, those of the turns right before and after its own."""
    return [other for other, distance in near if distance == 1]


def _with_adjacent_texts(
    found: list[SimilarMemory], surroundings: list[list[tuple[int, int]]]
) -> list[str]:
    """Each memory's text joined with those of the memories of the turns right around its own."""
    return [
        " ".join([item.memory.text] + [found[other].memory.text for other in _adjacent(near)])
        for item, near in zip(found, surroundings, strict=True)
    ]


def _spread(
    found: list[SimilarMemory],
    surroundings: list[list[tuple[int, int]]],
    links: list[Link],
    relevance: list[float],
    association: Association,
    *,
    breadth: float,
) -> list[tuple[float, str | None]]:
    """What each memory gains by association, and the memory it gains most through.

    It gains `adjacent` times the best relevance of the turns right before and after its own;
    then `session` times the best of (relevance + that adjacency gain) among the turns around
    its own, itself included, times `breadth` to the power of how many memories of its session
    are more relevant than itself; then `linked` times the best weight * relevance over its
    links.
    """
    index_of = {item.memory.id: index for index, item in enumerate(found)}

    def best(pairs: list[tuple[float, int]]) -> tuple[float, int | None]:
        """The largest value and whose it is (ties by position in `found`)."""
        return max(pairs, default=(0.0, None), key=lambda pair: (pair[0], -pair[1]))

    adjacent = [
        best([(relevance[other], other) for other in _adjacent(near)]) for near in surroundings
    ]
    context = [
        relevance[index] + association.adjacent * adjacent[index][0] for index in range(len(found))
    ]
    session = [
        best([(context[index], index)] + [(context[other], other) for other, _ in near])
        for index, near in enumerate(surroundings)
    ]
    place = _place_in_session(found, relevance)
    linked: list[list[tuple[float, int]]] = [[] for _ in found]
    for link in links:
        source, target = index_of.get(link.source), index_of.get(link.target)
        if source is None or target is None:
            continue
        linked[source].append((link.strength * relevance[target], target))
        linked[target].append((link.strength * relevance[source], source))
    result = []
    for index in range(len(found)):
        link_value, link_from = best(linked[index])
        gains = [
            (association.adjacent * adjacent[index][0], adjacent[index][1]),
            (
                association.session * breadth ** place[index] * session[index][0],
                session[index][1],
            ),
            (association.linked * link_value, link_from),
        ]
        through = [(gain, other) for gain, other in gains if other is not None and other != index]
        via = best(through)[1]
        result.append(
            (sum(gain for gain, _other in gains), None if via is None else found[via].memory.id)
        )
    return result


def _place_in_session(found: list[SimilarMemory], relevance: list[float]) -> list[int]:
    """For each memory, how many memories of its session are more relevant (ties by position)."""
    sessions: dict[str, list[int]] = {}
    for index, item in enumerate(found):
        if item.turns:
            sessions.setdefault(item.turns[0].session, []).append(index)
    place = [0 for _ in found]
    for members in sessions.values():
        for rank, index in enumerate(sorted(members, key=lambda index: -relevance[index])):
            place[index] = rank
    return place
