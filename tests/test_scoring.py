"""The ranking rule of recall: attention, importance and recency only break near-ties; a time
or a speaker the query names and a question asking for many things steer relevance."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import strategies as st

from graphmem.contract import PRESETS
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.model import Attention, Memory, MemoryKind, Tier, Turn
from graphmem.scoring import Association, Query, Scored, score
from graphmem.store.findings import SimilarMemory

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SPEAKERS = ["user", "assistant", "Tim"]
WORDS = ["dumplings", "milk", "allergy", "fever", "disneyland", "passport", "exam", "ginger"]


@st.composite
def found_memories(draw: st.DrawFn) -> list[SimilarMemory]:
    """Memories as a search finds them: any similarity, words, attention, importance and age."""
    count = draw(st.integers(min_value=2, max_value=12))
    found = []
    for index in range(count):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
        ending = draw(st.sampled_from(["", "?", " for me?"]))  # a statement or a question
        attention = draw(st.floats(min_value=0, max_value=10))
        hours = draw(st.floats(min_value=0, max_value=24 * 365))
        at = NOW - timedelta(hours=hours)
        memory = Memory(
            id=f"m{index}",
            owner="alice",
            text=" ".join(words) + ending,
            created_at=at,
            kind=MemoryKind.OBSERVATION,
            importance=draw(st.floats(min_value=0, max_value=10)),
            attention=Attention(
                long_term=attention, long_term_at=at, short_term=0.0, short_term_at=at
            ),
            tier=Tier.HOT,
            embedding=None,
            accessed_at=at,
        )
        turn = Turn(
            id=f"t{index}",
            owner="alice",
            text=memory.text,
            created_at=at,
            speaker=draw(st.sampled_from(SPEAKERS)),
            session=draw(st.sampled_from(["a", "b"])),
            position=index,
        )
        similarity = draw(st.floats(min_value=0.5, max_value=1.0))
        found.append(SimilarMemory(memory=memory, similarity=similarity, turns=[turn]))
    return found


def attended(found: SimilarMemory, attention: float, importance: float) -> SimilarMemory:
    """The memory found with this attention and importance."""
    at = found.memory.created_at
    memory = found.memory.model_copy(
        update={
            "attention": Attention(
                long_term=attention, long_term_at=at, short_term=0.0, short_term_at=at
            ),
            "importance": importance,
        }
    )
    return found.model_copy(update={"memory": memory})


def test_a_clearly_more_relevant_memory_is_never_outranked_by_a_more_attended_one() -> None:
    # Three memories of three sessions (no association between them), none sharing a word with
    # the query: only relevance separates them, and the least relevant is the most attended,
    # the most important and the newest.
    weights = PRESETS["balanced"]
    assert weights.tie_break_bound <= 0.15  # attention, importance and recency: near-ties only
    old = NOW - timedelta(days=300)
    best = attended(found_memory(0, "We baked bread.", 0.90, old, "a", 0), 0, 0)
    middle = attended(
        found_memory(1, "We took a walk.", 0.80, NOW - timedelta(days=30), "b", 0), 5, 5
    )
    loud = attended(found_memory(2, "We sang songs.", 0.70, NOW, "c", 0), 10, 10)
    assert ranking("What did we do?", [loud, middle, best]) == ["m0", "m1", "m2"]


def test_importance_breaks_a_near_tie_of_relevance() -> None:
    # Worked by hand: relevance is min-max normalised over the three, whose similarities span
    # 0.2, so 0.001 apart is 0.005 of relevance, less than importance's 0.05 x (10 - 0) / 10.
    plain = attended(found_memory(0, "We baked bread.", 0.801, NOW, "a", 0), 5, 0)
    important = attended(found_memory(1, "We took a walk.", 0.800, NOW, "b", 0), 5, 10)
    far = attended(found_memory(2, "We sang songs.", 0.600, NOW, "c", 0), 5, 0)
    assert ranking("What did we do?", [plain, important, far]) == ["m1", "m0", "m2"]


def found_memory(
    index: int,
    text: str,
    similarity: float,
    at: datetime,
    session: str,
    position: int,
    speaker: str = "user",
) -> SimilarMemory:
    """A memory as a search finds it, from one turn of a session, with plain attention."""
    attention = Attention(long_term=5.0, long_term_at=at, short_term=0.0, short_term_at=at)
    memory = Memory(
        id=f"m{index}",
        owner="alice",
        text=text,
        created_at=at,
        kind=MemoryKind.OBSERVATION,
        importance=5.0,
        attention=attention,
        tier=Tier.HOT,
        embedding=None,
        accessed_at=at,
    )
    turn = Turn(
        id=f"t{index}",
        owner="alice",
        text=text,
        created_at=at,
        speaker=speaker,
        session=session,
        position=position,
    )
    return SimilarMemory(memory=memory, similarity=similarity, turns=[turn])


def _scored(query: str, found: list[SimilarMemory]) -> list[Scored]:
    """The memories found, scored under the default weights, best first."""
    return score(
        Query.of(query),
        found,
        [],
        now=NOW,
        weights=PRESETS["balanced"],
        policy=AttentionPolicy(),
        association=Association(),
        limit=len(found),
    )


def ranking(query: str, found: list[SimilarMemory]) -> list[str]:
    """The ids of the memories found, best first, under the default weights."""
    return [item.memory.id for item in _scored(query, found)]


def test_a_memory_of_the_time_the_query_names_ranks_first() -> None:
    """Two visits to a museum, equally similar: the one of two months ago answers that."""
    found = [
        found_memory(0, "visited the science museum", 0.90, NOW - timedelta(days=140), "a", 0),
        found_memory(1, "visited the art museum", 0.90, NOW - timedelta(days=61), "b", 0),
        found_memory(2, "cooked dumplings", 0.70, NOW - timedelta(days=3), "c", 0),
    ]
    assert ranking("museum visit", found)[0] == "m0"  # ties by id
    assert ranking("a museum visit two months ago", found)[0] == "m1"
    assert ranking("a museum visit in August", found)[0] == "m0"  # 14 August 2025


def test_a_question_asking_for_many_things_reaches_beyond_one_session() -> None:
    """Under a plain question a session about a charity run keeps its turns together; asked
    "how many", the best memory of another session comes before that session's lesser turns."""
    run = NOW - timedelta(days=30)
    found = [
        found_memory(index, text, similarity, run + index * timedelta(minutes=1), "run", index)
        for index, (text, similarity) in enumerate(
            [
                ("I ran the charity run for the cure", 0.95),
                ("congratulations on the charity run", 0.90),
                ("tips for the next charity run", 0.89),
                ("training plan for charity runs", 0.88),
            ]
        )
    ]
    found.append(
        found_memory(9, "I joined a charity walk", 0.86, NOW - timedelta(days=90), "walk", 0)
    )
    plain = ranking("charity events I took part in", found)
    many = ranking("how many charity events did I take part in", found)
    assert plain.index("m2") < plain.index("m9")
    assert many.index("m9") < many.index("m2")
    assert plain[:2] == many[:2] == ["m0", "m1"]


@pytest.mark.parametrize(
    ("query", "named", "asker"),
    [
        ("What instruments does Melanie play?", {"Melanie"}, set()),
        ("what did melanie and Caroline talk about", {"Melanie", "Caroline"}, set()),
        ("What did Melanies friend say?", set(), set()),  # a name inside another word is not named
        ("Where did I go on my trip?", set(), {"user"}),
        ("What did I tell Caroline?", {"Caroline"}, {"user"}),
        ("How many eggs did you say we need?", {"assistant"}, set()),
        ("Can you remind me what you suggested for dinner?", {"assistant"}, set()),
        ("How long did it take to move?", set(), set()),
        ("我上周去了哪里？", set(), {"user"}),
        ("你之前推荐过哪本书？", {"assistant"}, set()),
    ],
)
def test_the_speakers_a_query_asks_about(query: str, named: set[str], asker: set[str]) -> None:
    speakers = {"Melanie", "Caroline", "user", "assistant"}
    assert Query.of(query).speakers_named(speakers) == named
    assert Query.of(query).asker(speakers) == asker
    capitalised = {"Melanie", "Caroline", "User", "Assistant"}
    assert Query.of(query).speakers_named(capitalised) == {name.title() for name in named}
    assert Query.of(query).asker(capitalised) == {name.title() for name in asker}


def test_the_first_person_is_whoever_asks() -> None:
    """The focus turn's speaker when given, else `user`, else the only one not the agent."""
    dialogue = Query.of("Ann: we painted the fence\nassistant: nice!\nMelanie: did I enjoy it?")
    assert dialogue.asker({"Ann", "Melanie", "assistant"}) == {"Melanie"}
    assert dialogue.asker({"Ann", "user", "assistant"}) == set()
    question = Query.of("What did I paint?")
    assert question.asker({"Ann", "user", "assistant"}) == {"user"}
    assert question.asker({"Ann", "assistant"}) == {"Ann"}
    assert question.asker({"Ann", "Melanie", "assistant"}) == set()
    assert question.speakers_named({"Ann", "user", "assistant"}) == set()


def dumplings_said(user: float, agent: float) -> list[SimilarMemory]:
    """The same words said by the user (m0) and by the agent (m1), in two conversations, with
    these similarities, and an unrelated turn."""
    at = NOW - timedelta(days=3)
    advice = "ginger dumplings with fresh ginger"
    return [
        found_memory(0, advice, user, at, "a", 0, "user"),
        found_memory(1, advice, agent, at, "b", 0, "assistant"),
        found_memory(2, "cooked rice", 0.70, at, "c", 0, "user"),
    ]


def test_a_speaker_the_query_names_breaks_a_near_tie_but_not_a_clear_lead() -> None:
    assert ranking("ginger dumplings", dumplings_said(0.90, 0.90))[0] == "m0"  # ties by id
    asked = "what did you say about the ginger dumplings?"
    assert ranking(asked, dumplings_said(0.90, 0.90))[0] == "m1"
    assert ranking(asked, dumplings_said(0.99, 0.90))[0] == "m0"


def test_the_askers_own_words_outrank_a_somewhat_better_match_by_another() -> None:
    """A question in the first person asks of the asker's life, which their own turns tell."""
    assert ranking("ginger dumplings", dumplings_said(0.90, 0.99))[0] == "m1"
    asked = "what did I think of the ginger dumplings?"
    assert ranking(asked, dumplings_said(0.90, 0.99))[0] == "m0"
    assert ranking(asked, dumplings_said(0.75, 0.99))[0] == "m1"


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I ran the charity race.", 1.0),
        ("Great race!", 1.0),
        ("Did you finish the charity race?", 0.0),
        ("Wow, John! What inspired you to run it?", 0.0),
        ("Can you suggest recipes for my quinoa?", 1.0),  # it tells of its speaker
        ("I ran it in two hours. Have you ever run one?", 1.0),
        ("你跑完比赛了吗？", 0.0),
        ("我该怎么准备比赛？", 1.0),
    ],
)
def test_a_question_that_tells_nothing_of_its_speaker_is_no_statement(
    text: str, statement: float
) -> None:
    found = [
        found_memory(0, text, 0.9, NOW, "a", 0),
        found_memory(1, "cooked rice", 0.5, NOW, "b", 0),
    ]
    [item] = [item for item in _scored("charity race", found) if item.memory.id == "m0"]
    assert item.raw.statement == item.normalised.statement == statement


def test_an_answer_comes_before_a_question_that_only_echoes_its_words() -> None:
    """Asked later about a race, the turn telling of it ranks above the one that asked of it,
    though the question is a little more similar; not above a clearly better match."""
    at = NOW - timedelta(days=3)
    found = [
        found_memory(0, "Did you finish the charity race in May?", 0.92, at, "a", 0, "Tim"),
        found_memory(1, "The charity race took me four hours.", 0.90, at, "b", 0, "Ann"),
        found_memory(2, "cooked rice", 0.50, at, "c", 0, "Ann"),
    ]
    assert ranking("How long was the charity race?", found)[0] == "m1"
    found[1] = found_memory(1, "The charity race took me four hours.", 0.60, at, "b", 0, "Ann")
    assert ranking("How long was the charity race?", found)[0] == "m0"


def test_the_names_of_the_speakers_asked_about_are_not_matched_as_words() -> None:
    """What Maria said to John matches "John" as a word only when John is not a speaker."""
    at = NOW - timedelta(days=3)

    def lexical(second_speaker: str) -> dict[str, float]:
        found = [
            found_memory(0, "Thanks John, lovely pasta", 0.9, at, "a", 0, "Maria"),
            found_memory(1, "Thanks Anna, lovely pasta", 0.9, at, "b", 0, second_speaker),
            found_memory(2, "cooked rice", 0.5, at, "c", 0, "Maria"),
        ]
        scored = _scored("What pasta did John cook?", found)
        return {item.memory.id: item.raw.lexical for item in scored}

    named = lexical("John")
    assert named["m0"] == named["m1"] > named["m2"]
    unnamed = lexical("Anna")
    assert unnamed["m0"] > unnamed["m1"] > unnamed["m2"]


def test_a_component_equal_over_the_memories_found_shows_0_beside_its_raw_value() -> None:
    """Equally similar and equally important, the memories are separated by their words alone:
    relevance and importance show 0, the raw cosine and label beside them."""
    at = NOW - timedelta(days=3)
    found = [
        found_memory(0, "ginger dumplings", 0.8, at, "a", 0),
        found_memory(1, "ginger tea", 0.8, at, "b", 0),
        found_memory(2, "cooked rice", 0.8, at, "c", 0),
    ]
    scored = _scored("ginger dumplings", found)
    assert [item.memory.id for item in scored] == ["m0", "m1", "m2"]
    for item in scored:
        assert (item.raw.relevance, item.normalised.relevance) == (0.8, 0.0)
        assert (item.raw.importance, item.normalised.importance) == (5.0, 0.0)
    lexical = [item.normalised.lexical for item in scored]
    assert lexical[0] == 1.0 > lexical[1] > lexical[2] == 0.0


def test_memories_that_share_no_word_with_the_query_show_no_lexical_match() -> None:
    """`xyzzy plugh` shares no word with any memory: lexical is 0 on every one, not 1. Asked
    about ginger, the memories without it, alone and with their neighbours, show 0 too."""
    at = NOW - timedelta(days=3)
    found = [
        found_memory(0, "ginger dumplings", 0.9, at, "a", 0),
        found_memory(1, "We painted the fence", 0.8, at, "a", 1),  # ginger is next to it
        found_memory(2, "cooked rice", 0.7, at, "b", 0),
        found_memory(3, "a film about whales", 0.6, at, "c", 0),
    ]
    for item in _scored("xyzzy plugh", found):
        assert item.raw.lexical == item.normalised.lexical == 0.0
    lexical = {item.memory.id: item.raw.lexical for item in _scored("ginger", found)}
    assert lexical["m0"] > lexical["m1"] > lexical["m2"] == lexical["m3"] == 0.0
