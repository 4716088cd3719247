"""The model's validation and the attention decay arithmetic."""

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from graphmem.contract import QueryTurn
from graphmem.mechanisms.attention import AttentionPolicy, current_attention, decay
from graphmem.model import MAX_TEXT_CHARS, Attention, Link, LinkType, Turn
from graphmem.scoring import Query, bm25
from graphmem.terms import HAN, mentions, term_list, terms

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def turn(**changes: object) -> Turn:
    values: dict[str, object] = {"id": "m1", "owner": "alice", "text": "hello", "created_at": NOW}
    values.update(changes)
    return Turn.model_validate(values)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"text": ""}, "empty or only whitespace"),
        ({"text": " \n\t"}, "empty or only whitespace"),
        ({"text": "x" * (MAX_TEXT_CHARS + 1)}, f"the limit is {MAX_TEXT_CHARS}"),
        ({"text": "bad \ud800 text"}, "lone surrogate at index 4"),
        ({"owner": "al ice"}, "is not 1-128 characters"),
        ({"owner": ""}, "is not 1-128 characters"),
        ({"owner": "-alice"}, "starting with a letter or digit"),
        ({"owner": "a" * 129}, "is not 1-128 characters"),
        ({"id": "  "}, "id must be 1-256 characters"),
        ({"created_at": datetime(2026, 1, 1)}, "timezone"),
    ],
)
def test_invalid_node_fields_are_named(changes: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        turn(**changes)


def test_text_is_kept_verbatim_and_time_in_utc() -> None:
    text = "MATCH (n) DETACH DELETE n // ' \" \\ 牛奶过敏 \x07"
    stored = turn(
        text=text, created_at=datetime(2026, 1, 1, 8, tzinfo=timezone(timedelta(hours=8)))
    )
    assert stored.text == text
    assert stored.created_at == NOW
    assert stored.created_at.tzinfo is UTC


def test_links_carry_exactly_their_properties() -> None:
    assert Link(type=LinkType.RELATED, source="a", target="b", weight=0.4).weight == 0.4
    assert Link(type=LinkType.CAUSES, source="a", target="b", sufficiency=0.9).sufficiency == 0.9
    with pytest.raises(ValidationError, match="RELATED edges need weight"):
        Link(type=LinkType.RELATED, source="a", target="b")
    with pytest.raises(ValidationError, match="FROM edges take no weight"):
        Link(type=LinkType.FROM, source="a", target="b", weight=1.0)
    with pytest.raises(ValidationError, match="CAUSES edges need sufficiency"):
        Link(type=LinkType.CAUSES, source="a", target="b")


def test_decay_halves_per_half_life_and_never_grows_backwards() -> None:
    day = timedelta(days=1)
    assert decay(8.0, NOW, NOW + 3 * day, day) == pytest.approx(1.0)
    assert decay(8.0, NOW, NOW - day, day) == 8.0


def test_current_attention_sums_parts_with_their_own_half_lives() -> None:
    policy = AttentionPolicy()
    attention = Attention(long_term=4.0, long_term_at=NOW, short_term=6.0, short_term_at=NOW)
    assert current_attention(attention, NOW, policy) == pytest.approx(10.0)
    later = NOW + timedelta(hours=12)
    expected = 4.0 * 0.5 ** (12 / (30 * 24)) + 3.0
    assert current_attention(attention, later, policy) == pytest.approx(expected)
    month = NOW + timedelta(days=30)
    assert current_attention(attention, month, policy) == pytest.approx(2.0, abs=1e-6)


def test_bm25_rewards_rare_shared_terms() -> None:
    documents = ["Grandma's dumpling recipe.", "I bought a bike.", "A bike and a dumpling."]
    scores = bm25(Query.of("dumpling recipe").term_weights(), documents)
    assert scores[0] > scores[2] > scores[1] == 0.0
    assert bm25(Query.of("牛奶").term_weights(), ["我对牛奶过敏", "今天下雨"])[1] == 0.0


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("dog", "dogs"),
        ("name", "names"),
        ("story", "stories"),
        ("recipe", "recipes"),
        ("shoe", "shoes"),
        ("John", "John's"),
        ("Tim", "Tim's"),
        ("allergy", "allergic"),
    ],
)
def test_english_words_match_across_plural_possessive_and_ending(one: str, other: str) -> None:
    assert terms(one) == terms(other) != frozenset()


@pytest.mark.parametrize("word", ["bus", "class", "focus"])
def test_a_word_that_is_no_plural_keeps_its_s(word: str) -> None:
    assert terms(word) == {word[:5]}


def test_chinese_terms_are_bigrams_and_words() -> None:
    found = term_list("我最喜欢奶奶包的韭菜猪肉饺子")
    assert "饺子" in found
    assert "韭菜" in found
    assert found.count("饺子") == 2
    assert found.count("菜猪") == 1
    assert "肉饺" in terms("我最喜欢奶奶包的韭菜猪肉饺子")
    assert "迪士尼" in terms("我们去了迪士尼乐园")  # a word of three characters


def mentioned_one_by_one(text: str, cues: tuple[str, ...]) -> bool:
    """`mentions` as its docstring defines it, each cue searched for on its own."""
    lowered = text.lower()
    return any(
        re.search(
            re.escape(cue)
            if HAN.search(cue)
            else r"\b" + re.escape(cue) + (r"\b" if len(cue) <= 3 else ""),
            lowered,
        )
        for cue in cues
    )


cue_words = st.sampled_from(["art", "artist", "work", "worked", "wor", "ill", "生病", "生", "病了"])


@given(
    cues=st.lists(cue_words, min_size=1, max_size=5, unique=True).map(tuple),
    pieces=st.lists(st.one_of(cue_words, st.sampled_from([" ", "s", "X", "-", "的", "'"]))),
)
def test_mentions_finds_what_searching_each_cue_finds(
    cues: tuple[str, ...], pieces: list[str]
) -> None:
    text = "".join(pieces)
    assert mentions(text, cues) == mentioned_one_by_one(text, cues)


def test_a_dialogue_query_weighs_its_latest_user_turn_most() -> None:
    query = Query.of("Bart: I have a magic show on New Year's Eve\nAssistant: Wonderful!\n")
    assert [turn.speaker for turn in query.turns] == ["Bart", "Assistant"]
    assert query.focus == "I have a magic show on New Year's Eve"
    weights = Query(
        turns=[
            QueryTurn(speaker="Bart", text="the dumplings"),
            QueryTurn(speaker="Bart", text="milk?"),
        ]
    ).term_weights()
    assert weights["milk"] == 1.0
    assert 0 < weights["dumpl"] < 1.0
    assert next(iter(weights)) == "milk"  # the focus's terms come first in a search
    later = Query.of("Bart: the dumplings\nLisa: the apples\nBart: milk?").term_weights()
    assert list(later) == ["milk", "bart", "apple", "lisa", "dumpl"]  # then the latest lines'
    plain = Query.of("What is my allergy: milk or eggs?")
    assert plain.turns == [QueryTurn(text="What is my allergy: milk or eggs?")]
