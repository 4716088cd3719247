"""A recall within a budget of tokens: what fits is chosen by evidence per token, `render()`
fits, and only what fits is woken; on both stores, and refused by name when the budget is no
whole number above 0."""

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.contract import Components, EvokedImpression, Recall, RecalledMemory, Selection
from graphmem.embedding import E5Embedder
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem
from graphmem.model import Attention, Link, LinkType, Memory, MemoryKind, Tier

AT = datetime(2026, 4, 1, 8, tzinfo=UTC)
TOKENIZER = E5Embedder()
"""Counts tokens as a recall's budget does (XLM-R's)."""
NOTHING = Components(
    relevance=0.0,
    lexical=0.0,
    time_match=0.0,
    speaker_match=0.0,
    asker_match=0.0,
    statement=0.0,
    importance=0.0,
    attention=0.0,
    recency=0.0,
    association=0.0,
)


def words(text: str) -> int:
    """A tokenizer for the rule's arithmetic: a token a word ("[1]", the date, the hour too)."""
    return len(text.split())


def ranked(texts: list[str], times: list[datetime] | None = None) -> list[RecalledMemory]:
    """Recalled memories m1, m2, ... with these texts (and times), best first."""
    times = times or [AT] * len(texts)
    attention = Attention(long_term=5.0, long_term_at=AT, short_term=0.0, short_term_at=AT)
    return [
        RecalledMemory(
            memory=Memory(
                id=f"m{rank}",
                owner="alice",
                text=text,
                created_at=moment,
                kind=MemoryKind.OBSERVATION,
                importance=5.0,
                attention=attention,
                tier=Tier.HOT,
                embedding=None,
                accessed_at=moment,
            ),
            turns=[],
            score=1.0 / rank,
            components=NOTHING,
            normalised=NOTHING,
            via=None,
        )
        for rank, (text, moment) in enumerate(zip(texts, times, strict=True), start=1)
    ]


def recall_of(
    memories: list[RecalledMemory],
    links: list[Link] | None = None,
    impressions: list[EvokedImpression] | None = None,
) -> Recall:
    """A recall that found these memories, links and impressions."""
    return Recall(
        owner="alice",
        query="?",
        motivation=5.0,
        attempts=[],
        memories=memories,
        links=links or [],
        woken=[],
        impressions=impressions or [],
    )


def test_a_long_memory_gives_way_to_shorter_ones_below_it() -> None:
    # lines of 9, 33, 9 and 9 words: rank x tokens is 9, 66, 27, 36; the simple cut at 45
    # tokens would keep m1 and m2 (42 tokens)
    short, long = "one two three four five", " ".join(["word"] * 30)
    found = recall_of(ranked([short + " a", long, short + " c", short + " d"]))
    by_rank = Selection(decay=1.0, length=0.0)  # the most evidence per token, rank^-1 each
    fitted = found.within(45, words, selection=by_rank)
    assert [item.memory.id for item in fitted.memories] == ["m1", "m3", "m4"]
    assert fitted.tokens == words(fitted.render()) == 27
    assert fitted.max_tokens == 45
    assert fitted.render().startswith("[1] 2026-04-01 08:00 one two three four five a\n[2] ")
    roomy = found.within(60, words, selection=by_rank)  # all but the long one, then it too
    assert [item.memory.id for item in roomy.memories] == ["m1", "m2", "m3", "m4"]


def test_with_length_1_the_selection_is_the_plain_cut_of_the_ranking() -> None:
    short, long = "one two three four five", " ".join(["word"] * 30)
    found = recall_of(ranked([short + " a", long, short + " c", short + " d"]))
    plain = found.within(45, words, selection=Selection(decay=3.0, length=1.0))
    assert [item.memory.id for item in plain.memories] == ["m1", "m2"]  # 9 + 33 tokens


def test_a_repeated_line_is_left_out_but_the_same_text_at_another_time_is_not() -> None:
    later = AT + timedelta(days=1)
    found = recall_of(ranked(["I moved to Berlin."] * 3, [AT, AT, later]))
    fitted = found.within(100, words)
    assert [item.memory.id for item in fitted.memories] == ["m1", "m3"]


def test_links_and_impressions_follow_the_memories_while_they_fit() -> None:
    memories = ranked(["my throat is sore", "I have a fever", "we went to the zoo"])
    memories[1] = memories[1].model_copy(update={"evoked_by": "i1"})
    cold = EvokedImpression(
        id="i1", text="the user has a cold", belief=0.8, implied=0.7, memories=["m2", "m1"]
    )
    link = Link(type=LinkType.RELATED, source="m1", target="m2", weight=0.5)
    found = recall_of(memories, [link], [cold])
    memory_lines = sum(words(line) for line in found.render().split("\n")[:3])
    whole = found.within(1_000, words)
    assert whole.render() == found.render()
    assert whole.tokens == words(found.render())
    without_links = found.within(whole.tokens - 1, words)
    assert without_links.links == []
    assert without_links.impressions == [cold]
    only_memories = found.within(memory_lines, words)
    assert only_memories.impressions == []
    assert only_memories.links == []
    assert only_memories.memories[1].evoked_by is None  # its impression is not shown
    for budget in range(1, whole.tokens + 2):
        fitted = found.within(budget, words)
        assert fitted.tokens == words(fitted.render()) <= budget
        assert all(item.memory.id in {"m1", "m2", "m3"} for item in fitted.memories)


def test_an_impression_shows_only_the_memories_that_fit() -> None:
    memories = ranked(["sore throat", " ".join(["long"] * 40)])
    cold = EvokedImpression(id="i1", text="a cold", belief=0.8, implied=0.7, memories=["m2", "m1"])
    fitted = recall_of(memories, impressions=[cold]).within(20, words)
    assert [item.memory.id for item in fitted.memories] == ["m1"]
    assert fitted.impressions[0].memories == ["m1"]
    assert fitted.render().split("\n")[1] == "impression a cold (belief 0.80) evoked [1]"


TELLINGS = [
    "I adopted a grey cat called Miso last spring.",
    "Miso sleeps on the radiator all afternoon, every single afternoon, whatever the season"
    " and whatever we try, and she snores like a little engine while she does it.",
    "The vet said Miso should eat less dry food.",
    "My sister is allergic to cats, so she visits rarely.",
    "We bought a scratching post for Miso.",
    "Work was busy this week.",
    "Miso caught a moth in the kitchen.",
    "I planted tomatoes on the balcony.",
    "Miso's favourite toy is a paper ball.",
    "The train was late again this morning.",
    "I read a book about cats and their moods.",
    "Miso hid under the bed during the storm.",
]


def test_a_recall_within_a_budget_fits_it_and_wakes_only_what_fits(
    memory: GraphMem, owner: str
) -> None:
    for number, text in enumerate(TELLINGS):
        memory.observe(owner, text, message_id=f"m{number}", at=AT + number * timedelta(hours=7))
    asked = AT + timedelta(days=5)
    whole = memory.recall(owner, "How is my cat Miso?", k=100, at=asked, peek=True)
    assert len(whole.memories) == len(TELLINGS)
    order = [item.memory.id for item in whole.memories]
    fits: dict[int, list[str]] = {}
    for budget in (15, 40, 90, 200):
        fitted = memory.recall(owner, "How is my cat Miso?", max_tokens=budget, at=asked, peek=True)
        assert fitted.tokens is not None
        assert fitted.tokens <= budget
        assert fitted.tokens == TOKENIZER.count_tokens(fitted.render())
        shown = fits[budget] = [item.memory.id for item in fitted.memories]
        assert shown == [memory_id for memory_id in order if memory_id in shown]
        assert 0 < len(shown) < len(TELLINGS)
    everything = memory.recall(owner, "How is my cat Miso?", max_tokens=10_000, at=asked, peek=True)
    assert len(everything.memories) == len(TELLINGS)  # k is 100 with a budget, not 10
    nothing = memory.recall(owner, "How is my cat Miso?", max_tokens=1, at=asked)
    assert nothing.memories == []
    assert nothing.woken == []
    assert nothing.tokens == 0
    few = memory.recall(owner, "How is my cat Miso?", max_tokens=40, at=asked)
    shown = [item.memory.id for item in few.memories]
    assert 0 < len(shown) < len(TELLINGS)  # some fit, not all
    assert shown == fits[40]  # as a peek showed them
    assert {woken.id for woken in few.woken if woken.used} == set(shown)
    accessed = [
        node.id
        for node in memory.export(owner).nodes
        if isinstance(node, Memory) and node.accessed_at == asked
    ]
    assert sorted(accessed) == sorted(shown)  # woken: what fits, and nothing else


@pytest.mark.parametrize("max_tokens", [0, -5, True, 2.5, "100"])
def test_a_budget_that_is_no_whole_number_above_0_is_refused_by_name(
    memory: GraphMem, owner: str, max_tokens: object
) -> None:
    memory.observe(owner, "I adopted a cat.", message_id="m0", at=AT)
    with pytest.raises(InvalidInputError, match=r"^max_tokens: Input should be"):
        memory.recall(owner, "cat?", max_tokens=max_tokens)
    assert memory.statistics(owner).nodes["Memory"] == 1
