"""What a recall answers: the memories best related to a query, with reasons, and their text.

A `Recall` with its `links` is the related-context subgraph; `render()` is its text for a prompt
and `within()` cuts it to a budget in tokens, keeping the most evidence.
"""

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from graphmem.contract.graph import Woken
from graphmem.contract.results import Profile
from graphmem.model import Link, Memory, Tier, Turn


class Components(BaseModel):
    """The components of a score.

    Association is spread from relevance as the score counts it, and time match, speaker and
    asker match and statement are 0-1 already, so their raw and normalised values are equal.
    """

    model_config = ConfigDict(frozen=True)

    relevance: float
    lexical: float
    time_match: float
    speaker_match: float
    asker_match: float
    statement: float
    importance: float
    attention: float
    recency: float
    association: float


class Selection(BaseModel):
    """What `Recall.within` gives the profile, and how it weighs a memory's line.

    The owner's profile lines come first while they fit `profile_share` of the budget. Of the
    memories, the one ranked r-th, whose line takes t tokens, is taken to be evidence for the
    query about r^-decay * t^length as often as the first, so lines are taken by
    r^-decay * t^(length - 1) per token: with `length` 1, in their ranking's order (the plain
    cut); with 0, the most evidence per token (one long line low in the ranking gives way to
    several short ones). The defaults are fitted by benchmarks/selection.py on half of LoCoMo's
    and LongMemEval's dev questions, against the plain cut of the same ranking: a twentieth of
    the budget for the profile, and a chance of rank^-1 * tokens^0.5, which gains 3 to 10
    points on LongMemEval's long turns and gives up less than one on LoCoMo's short ones.
    """

    model_config = ConfigDict(frozen=True)

    profile_share: float = Field(0.05, gt=0, le=1, description="the most the profile takes")
    decay: float = Field(1.0, ge=0, description="how fast the chance falls with the rank")
    length: float = Field(0.5, ge=0, le=1, description="how the chance grows with the tokens")


SELECTION = Selection()
"""The selection `Recall.within` makes unless given another."""


NOTHING_RELEVANT = "Nothing in memory bears on this."
"""The line a rendered recall has in place of memories when it found nothing relevant."""


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
    confidence: float = 0.0
    """How likely it is, from 0 to 1, that the memories found hold something relevant to the
    query, from `nearness`, `coverage` and `first_coverage` (graphmem.confidence)."""
    nearness: float = 0.0
    """How much nearer to the query (cosine) the most similar memory found is than the nearest
    everyday sentence of the query's language; -1 when nothing was found."""
    coverage: float = 0.0
    """The share of the query's content terms that the memories found hold."""
    first_coverage: float = 0.0
    """The share of the query's content terms that the first memory returned holds on its own."""
    nothing_relevant: bool = False
    """Whether the confidence fell below the recall's floor (`min_confidence`): then no memory is
    returned, and `rendered` says that nothing relevant was found."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rendered(self) -> str:
        """`render()`: the text of the recall for a prompt."""
        return self.render()

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

        The profile lines (of a recall within a budget) come first, then NOTHING_RELEVANT when
        the recall found nothing relevant. The memories are numbered,
        best first, each dated; a fact that a newer one updated shows the time it held until.
        Each impression that evoked some of them comes with the owner's belief in it now.
        """
        number = {item.memory.id: index for index, item in enumerate(self.memories, start=1)}
        lines = [*self.profile]
        if self.nothing_relevant:
            lines.append(NOTHING_RELEVANT)
        lines += [_memory_line(number[item.memory.id], item.memory) for item in self.memories]
        lines += [_link_line(number, link) for link in self.links]
        lines += [_impression_line(number, impression) for impression in self.impressions]
        return "\n".join(lines)

    def within(
        self,
        max_tokens: int,
        count_tokens: Callable[[str], int],
        profile: Profile | None = None,
        selection: Selection = SELECTION,
    ) -> "Recall":
        """The recall cut so that `render()` fits `max_tokens` tokens, keeping the most evidence.

        First the `profile`'s facts and conjectures, in order, while they fit the selection's
        profile share of the budget; the rest goes to the memories (`_best_evidence`, by
        `selection`), then to the impressions that evoked them and the links among them, while
        they fit. A fact that a memory taken says already (its text is in the memory's) is not
        shown twice: it goes, and what it held of the budget goes to the memories.
        """
        room = selection.profile_share * max_tokens
        while True:
            shown = (
                [] if profile is None else _fitting(profile.lines(events=False), room, count_tokens)
            )
            memories, spent = self._best_evidence(max_tokens, count_tokens, shown, selection)
            if profile is None:
                break
            said = [item.memory.text for item in memories]
            kept = [
                fact
                for fact in profile.facts
                if not any(fact.text in text for text in said if fact.text)
            ]
            if len(kept) == len(profile.facts):
                break
            profile = profile.model_copy(update={"facts": kept})
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
        self,
        max_tokens: int,
        count_tokens: Callable[[str], int],
        shown: list[str],
        selection: Selection,
    ) -> tuple[list[RecalledMemory], int]:
        """The memories that keep the most evidence in what the `shown` lines leave of the budget.

        Memories are taken by their chance of being evidence per token of their line
        (`Selection`), best first, while they fit. A memory whose dated line repeats a better
        one's is left out. The memories taken keep
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
            lines.values(),
            key=lambda pair: (
                pair[0] ** selection.decay * cost[pair[1].memory.id] ** (1 - selection.length)
            ),
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


def _fitting(lines: list[str], room: float, count_tokens: Callable[[str], int]) -> list[str]:
    """The lines that fit `room` tokens together, in order (one too long passed over)."""
    shown: list[str] = []
    for line in lines:
        if count_tokens("\n".join([*shown, line])) <= room:
            shown.append(line)
    return shown


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
