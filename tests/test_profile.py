"""The profile: facts read by sleep, one value a slot; conjectures until they fade; open events.

End to end through the facade on both stores, in English and in Chinese; the offline reading of
facts and the pure profile rules beside them.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.cognition.base import Dialogue, DialogueLine
from graphmem.cognition.offline import stated_facts
from graphmem.contract import SELECTION
from graphmem.embedding import E5Embedder
from graphmem.errors import InvalidInputError
from graphmem.mechanisms.impressions import decayed_belief
from graphmem.mechanisms.profile import (
    ConjecturedImpression,
    EventNews,
    ProfilePolicy,
    ProfileSources,
    SlotFact,
    profile_of,
)
from graphmem.memory import GraphMem
from graphmem.model import Attention, Event, Impression, Memory, MemoryKind, Tier

START = datetime(2026, 3, 2, tzinfo=UTC)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Story:
    """A user's first weeks, told in one language, and what the profile should make of them."""

    allergy: str
    paris: str
    throat: str
    berlin: str
    happy: str
    worried: str
    cold: str
    allergy_slot: str


ENGLISH = Story(
    allergy="I'm allergic to milk: even a little gives me hives.",
    paris="I live in Paris.",
    throat="My throat is sore and I've felt tired all afternoon.",
    berlin="I moved to Berlin last month.",
    happy="I got promoted and I'm so happy at work.",
    worried="I can't sleep, I keep worrying about my job.",
    cold="The user has a cold",
    allergy_slot="allergy: milk",
)
CHINESE = Story(
    allergy="我对牛奶过敏，喝一点就会起疹子。",
    paris="我现在住在上海。",
    throat="我喉咙痛，一下午都觉得很累。",
    berlin="我搬到了北京。",
    happy="我升职了，工作上特别开心。",
    worried="我睡不着，一直在担心工作。",
    cold="用户感冒了",
    allergy_slot="allergy: 牛奶",
)


def tell(memory: GraphMem, owner: str, story: Story) -> None:
    """Observe the story over six weeks, then run the sleep job."""
    for day, hour, text in [
        (0, 9, story.allergy),
        (0, 10, story.paris),
        (1, 15, story.throat),
        (40, 20, story.berlin),
        (41, 19, story.happy),
        (43, 21, story.worried),
    ]:
        memory.observe(owner, text, at=START + day * DAY + timedelta(hours=hour))
    memory.consolidate(owner, at=START + 44 * DAY)


@pytest.mark.parametrize("story", [ENGLISH, CHINESE], ids=["english", "chinese"])
def test_the_profile_holds_the_current_values_and_lets_the_cold_fade(
    memory: GraphMem, owner: str, story: Story
) -> None:
    tell(memory, owner, story)

    early = memory.profile(owner, at=START + 2 * DAY)
    assert {(fact.slot, fact.text) for fact in early.facts} == {
        (story.allergy_slot, story.allergy),
        ("home", story.paris),
    }
    assert [item.text for item in early.conjectures] == [story.cold]
    assert [item.category for item in early.events] == ["illness"]

    now = memory.profile(owner, at=START + 44 * DAY)
    facts = {fact.slot: fact for fact in now.facts}
    assert set(facts) == {story.allergy_slot, "home", "mood at work"}
    assert facts["home"].text == story.berlin
    assert [value.text for value in facts["home"].earlier] == [story.paris]
    assert facts["mood at work"].text == story.worried
    assert [value.text for value in facts["mood at work"].earlier] == [story.happy]
    assert facts[story.allergy_slot].since == START + 9 * timedelta(hours=1)
    assert now.conjectures == []  # the cold of six weeks ago has faded
    assert [item.category for item in now.events] == ["work"]
    assert now.events[0].latest.endswith(story.worried)

    # Each fact shows the belief of the observation it was read in, which consolidation moved.
    graph = memory.export(owner)
    observed = {
        node.text: node.belief
        for node in graph.nodes
        if isinstance(node, Memory) and node.kind is MemoryKind.OBSERVATION
    }
    assert all(fact.belief == observed[fact.text] for fact in now.facts)
    [impression] = [
        node for node in graph.nodes if isinstance(node, Impression) and node.text == story.cold
    ]
    [cold] = early.conjectures
    assert cold.belief == pytest.approx(decayed_belief(impression, early.at))
    assert cold.fades_at > early.at
    assert decayed_belief(impression, cold.fades_at) == pytest.approx(0.5)
    assert impression.id == cold.impression
    assert cold.rests_on


def stored_facts(memory: GraphMem, owner: str) -> list[Memory]:
    """The owner's fact memories, by id."""
    return sorted(
        (
            node
            for node in memory.export(owner).nodes
            if isinstance(node, Memory) and node.kind is MemoryKind.FACT
        ),
        key=lambda fact: fact.id,
    )


def test_facts_are_kept_once_and_found_by_no_search(memory: GraphMem, owner: str) -> None:
    tell(memory, owner, ENGLISH)
    facts = stored_facts(memory, owner)
    assert len(facts) == 5  # allergy, Paris, Berlin, two moods at work
    assert all(fact.embedding is None and fact.slot for fact in facts)

    memory.consolidate(owner, at=START + 45 * DAY)  # a second job reads nothing again
    assert stored_facts(memory, owner) == facts
    recall = memory.recall(owner, "Where do I live? What am I allergic to?", k=20, peek=True)
    assert recall.memories
    assert all(item.memory.kind is not MemoryKind.FACT for item in recall.memories)
    with pytest.raises(InvalidInputError, match="profile shows the facts"):
        memory.recall(owner, "milk", kinds=["fact"])


def test_forgetting_the_message_a_fact_was_read_in_forgets_the_fact(
    memory: GraphMem, owner: str
) -> None:
    memory.observe(owner, ENGLISH.allergy, message_id="allergy", at=START)
    memory.consolidate(owner, at=START + DAY)
    assert [fact.slot for fact in memory.profile(owner, at=START + DAY).facts] == ["allergy: milk"]
    memory.forget_message(owner, "allergy")
    assert memory.profile(owner, at=START + DAY).facts == []


def test_an_owner_with_nothing_has_an_empty_profile(memory: GraphMem, owner: str) -> None:
    profile = memory.profile(owner, at=START)
    assert (profile.facts, profile.conjectures, profile.events) == ([], [], [])
    assert profile.render() == ""
    with pytest.raises(InvalidInputError, match="owner"):
        memory.profile("not an owner!")


def test_offline_facts_are_read_from_the_speakers_lines_in_both_languages() -> None:
    lines = [
        ("user", "I'm allergic to peanuts and shellfish."),
        ("assistant", "I live in Paris, as a program can."),
        ("Caroline", "I moved to Lisbon."),
        ("user", "我对花生过敏。"),
        ("user", "The weather is nice."),
    ]
    dialogue = Dialogue(
        lines=[DialogueLine(speaker=who, text=text, at=START) for who, text in lines]
    )
    assert [(fact.slot, fact.line) for fact in stated_facts(dialogue)] == [
        ("allergy: peanuts", 0),
        ("caroline: home", 2),
        ("allergy: 花生", 3),
    ]


def test_the_profile_rules() -> None:
    attention = Attention(long_term=1, long_term_at=START, short_term=0, short_term_at=START)

    def fact(text: str, slot: str, day: int) -> SlotFact:
        memory = Memory(
            id=f"fact-{day}",
            owner="ada",
            text=text,
            created_at=START + day * DAY,
            kind=MemoryKind.FACT,
            importance=5,
            attention=attention,
            tier=Tier.HOT,
            embedding=None,
            accessed_at=START,
            slot=slot,
        )
        return SlotFact(fact=memory, belief=0.6 if day else None)

    trait = Impression(
        id="kind",
        owner="ada",
        text="The user is a kind person",
        created_at=START,
        belief=0.8,
        belief_at=START,
        half_life_days=365,
        embedding=[1.0],
    )
    trip = Event(
        id="trip",
        owner="ada",
        text="2026-03-02: we fly to Rome\n2026-03-05: Rome was sunny",
        created_at=START,
        category="travel",
        title="Trip to Rome",
        first_at=START,
        last_at=START + 3 * DAY,
        timeliness_days=30,
        importance=5,
        attention=attention,
        tier=Tier.HOT,
        embedding=[1.0],
    )
    sources = ProfileSources(
        facts=[fact("Berlin", "home", 5), fact("Paris", "home", 0), fact("Later", "home", 90)],
        impressions=[ConjecturedImpression(impression=trait, rests_on=["c", "cue"])],
        events=[EventNews(event=trip, members=["s"])],
        causal_rules=2,
    )
    policy = ProfilePolicy()
    at_ten = profile_of("ada", sources, START + 10 * DAY, policy, first_hand=0.8)
    [home] = at_ten.facts
    assert (home.text, home.belief, [value.text for value in home.earlier]) == (
        "Berlin",
        0.6,
        ["Paris"],
    )
    [conjecture] = at_ten.conjectures
    assert conjecture.fades_at.date() == (START + 0.678 * 365 * DAY).date()  # log2(0.8 / 0.5)
    assert [(item.title, item.latest) for item in at_ten.events] == [
        ("Trip to Rome", "2026-03-05: Rome was sunny")
    ]
    assert at_ten.causal_rules == 2
    assert at_ten.lines() == [
        "home — Berlin (belief 0.60, since 2026-03-07)",
        f"conjecture — The user is a kind person (belief {conjecture.belief:.2f},"
        f" fades {conjecture.fades_at:%Y-%m-%d})",
        "ongoing travel — Trip to Rome: 2026-03-05: Rome was sunny",
    ]
    assert at_ten.lines(events=False) == at_ten.lines()[:2]
    at_first = profile_of("ada", sources, START, policy, first_hand=0.8)
    assert [(fact.text, fact.belief) for fact in at_first.facts] == [("Paris", 0.8)]
    later = profile_of("ada", sources, START + 300 * DAY, policy, first_hand=0.8)
    assert [fact.text for fact in later.facts] == ["Later"]
    assert (later.conjectures, later.events) == ([], [])


def test_a_recall_within_a_budget_puts_the_profile_first(memory: GraphMem, owner: str) -> None:
    tell(memory, owner, ENGLISH)
    at = START + 44 * DAY
    count = E5Embedder().count_tokens
    recall = memory.recall(owner, "Can I have a latte?", k=2, max_tokens=1000, peek=True, at=at)
    assert recall.profile  # the facts that the two memories do not say
    profile = memory.profile(owner, at=at)
    lines = profile.lines(events=False)
    assert recall.profile == [line for line in lines if line in recall.profile]  # in order
    shown = [item.memory.text for item in recall.memories]
    for fact in profile.facts:  # each fact once: as a profile line, or said by a memory shown
        said = any(fact.text in text for text in shown)
        assert said != any(fact.text in line for line in recall.profile), fact.text
    assert count("\n".join(recall.profile)) <= SELECTION.profile_share * 1000
    assert recall.render().splitlines()[: len(recall.profile)] == recall.profile
    assert recall.memories
    assert recall.tokens == count(recall.render()) <= 1000
    tight = memory.recall(owner, "Can I have a latte?", max_tokens=20, peek=True, at=at)
    assert tight.profile == []  # no line fits in its share of 20 tokens
    assert memory.recall(owner, "Can I have a latte?", peek=True, at=at).profile == []
