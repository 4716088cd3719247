"""The offline cognition's rules, and the milk-allergy check through `observe` on both stores."""

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.cognition.base import (
    AttentionQuestion,
    CausalRule,
    Dialogue,
    DialogueLine,
    EventTag,
    EventUpdate,
    FactComparison,
    FactComparisons,
    InferenceQuestion,
    OlderFact,
    RelatedMemory,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.memory import GraphMem

NOW = datetime(2026, 7, 1, 9, tzinfo=UTC)
offline = OfflineCognition()


def label(item: str, *memories: tuple[str, float]) -> float:
    question = AttentionQuestion(
        item=item,
        speaker="user",
        working_memory=[RelatedMemory(text=text, attention=value) for text, value in memories],
    )
    return offline.label_attention(question).score


@pytest.mark.parametrize(
    ("allergy", "milk"),
    [
        (
            "I'm allergic to milk: even a little makes my throat swell.",
            "There's half a glass of milk on the table.",
        ),
        ("我对牛奶过敏，喝一点就会喉咙肿。", "桌上有半杯牛奶。"),
    ],
    ids=["english", "chinese"],
)
def test_the_milk_remark_matters_only_with_the_allergy_in_memory(
    memory: GraphMem, owner: str, allergy: str, milk: str
) -> None:
    memory.observe(owner, "We watched a film about whales.", message_id="film", at=NOW)
    remembered = memory.observe(owner, allergy, message_id="allergy", at=NOW)
    assert remembered.memories[0].importance >= 8
    later = NOW + timedelta(days=3)
    with_allergy = memory.observe(owner, milk, message_id="milk", at=later)
    assert with_allergy.memories[0].importance >= 6

    stranger = owner + "-without"
    memory.observe(stranger, "We watched a film about whales.", message_id="film", at=NOW)
    without_allergy = memory.observe(stranger, milk, message_id="milk", at=later)
    assert without_allergy.memories[0].importance <= 3


def test_salience_cues_rank_health_over_plans_over_small_talk() -> None:
    fever = label("I started having a fever.")
    plan = label("We plan to visit the museum next week.")
    chat = label("The weather is nice.")
    assert fever > plan > chat
    assert label("我开始发烧了。") == fever
    assert label("我今天身体不适。") == fever  # the seed's 身体不适
    assert label("我们计划下周去博物馆。") == plan
    assert label("今天天气不错。") == chat


def test_a_related_memory_lends_attention_only_through_shared_terms() -> None:
    assert label("The car needs new tyres.", ("I'm allergic to milk.", 9.0)) == 2.0
    assert label("Is there milk in this cake?", ("I'm allergic to milk.", 9.0)) == pytest.approx(
        7.65
    )


def test_the_summary_keeps_the_salient_lines_in_order_and_language() -> None:
    lines = [
        DialogueLine(speaker="user", text=text, at=NOW + timedelta(minutes=minute))
        for minute, text in enumerate(
            [
                "你好！",
                "我嗓子疼，有点发烧。",
                "今天天气不错。",
                "下周要去上海出差。",
                "哈哈。",
                "我很担心工作。",
            ]
        )
    ]
    summary = offline.digest_dialogue(Dialogue(lines=lines)).summary
    assert summary == "user: 我嗓子疼，有点发烧。 user: 下周要去上海出差。 user: 我很担心工作。"


@pytest.mark.parametrize(
    "lines",
    [
        ["We fly to Disneyland on Friday!", "My throat hurts and I have a fever.", "Nice weather."],
        ["周五我们飞去迪士尼！", "我喉咙痛，还发烧了。", "今天天气不错。"],
    ],
    ids=["english", "chinese"],
)
def test_events_are_tagged_by_category_with_their_timeliness(lines: list[str]) -> None:
    dialogue = Dialogue(lines=[DialogueLine(speaker="user", text=text, at=NOW) for text in lines])
    tags = {tag.category: tag for tag in offline.digest_dialogue(dialogue).events}
    assert set(tags) == {"travel", "illness"}
    assert tags["travel"].title == lines[0]
    assert tags["illness"].lines == [1]
    assert tags["illness"].timeliness_days == 14
    assert tags["travel"].timeliness_days == 30


def test_a_development_is_appended_to_the_storyline() -> None:
    development = EventTag(
        category="travel", title="Disneyland", detail="Day two: the parade.", timeliness_days=30
    )
    merged = offline.merge_event(
        EventUpdate(
            title="Trip to Disneyland",
            storyline="2026-07-01: Arrived at Disneyland.",
            last_at=NOW,
            development=development,
            at=NOW + timedelta(days=1),
        )
    )
    assert merged.title == "Trip to Disneyland"
    assert (
        merged.storyline == "2026-07-01: Arrived at Disneyland.\n2026-07-02: Day two: the parade."
    )


@pytest.mark.parametrize(
    ("new", "old", "relation"),
    [
        ("I'm in a good mood today.", "I'm worried and can't sleep.", "contradicts"),
        ("I am not allergic to milk.", "I'm allergic to milk.", "contradicts"),
        ("我心情不错。", "我最近很焦虑，睡不着。", "contradicts"),
        ("I'm allergic to milk!", "I'm allergic to milk.", "duplicate"),
        ("My milk allergy makes my throat swell.", "I'm allergic to milk.", "supports"),
        ("I bought a red bicycle.", "I'm allergic to milk.", "unrelated"),
        ("我不喜欢猫。", "我喜欢猫。", "contradicts"),
        ("我最近不开心。", "我最近心情很好。", "contradicts"),
        ("我对花生过敏！", "我对花生过敏。", "duplicate"),
        ("我对花生过敏，吃一点就起疹子。", "我对花生过敏。", "supports"),
        ("我心情很好。", "我心情不错。", "supports"),  # 不错 is no negation
        ("我特别喜欢猫。", "我喜欢猫。", "supports"),  # nor is 特别
        ("我买了一辆红色自行车。", "我对牛奶过敏。", "unrelated"),
        ("I moved to Berlin.", "I live in Paris.", "updates"),
        ("I live in Paris now.", "I live in Paris.", "duplicate"),  # the same home
        ("I started a new job at Google.", "I work at the bank.", "updates"),
        ("My phone number is 555-1234.", "My phone number is 555-9876.", "updates"),
        ("My cat is called Tom.", "My dog is called Rex.", "unrelated"),  # another subject
        ("我搬到了柏林。", "我住在巴黎。", "updates"),
        ("我现在在腾讯工作。", "我在阿里巴巴工作。", "updates"),
    ],
)
def test_facts_are_judged_by_mood_negation_and_shared_terms(
    new: str, old: str, relation: str
) -> None:
    comparison = FactComparison(new=new, older=[OlderFact(text=old, belief=0.8)])
    [fact] = offline.judge_facts(FactComparisons(comparisons=[comparison])).facts
    [judgement] = fact.judgements
    assert judgement.relation == relation
    if relation == "contradicts":
        assert judgement.belief == pytest.approx(0.2)
    if relation == "duplicate":
        assert judgement.belief == pytest.approx(0.9)


def test_causal_rules_give_impressions_with_their_half_lives() -> None:
    rules = [
        CausalRule(cause="sore throat", effect="The user has a cold", sufficiency=0.8),
        CausalRule(cause="helped a stranger", effect="The user is a kind person", sufficiency=0.15),
        CausalRule(cause="won the lottery", effect="The user is rich", sufficiency=0.9),
    ]
    knowing_nothing_more = OfflineCognition(knowledge=[])
    cold = knowing_nothing_more.infer_impressions(
        InferenceQuestion(statement="My throat is sore.", belief=1.0, rules=rules)
    ).impressions
    assert [(i.statement, i.belief, i.half_life_days) for i in cold] == [
        ("The user has a cold", 0.8, 7.0)
    ]
    kind = knowing_nothing_more.infer_impressions(
        InferenceQuestion(statement="I helped a stranger carry her bags.", belief=0.9, rules=rules)
    ).impressions
    [impression] = kind
    assert (impression.statement, impression.half_life_days) == ("The user is a kind person", 365)
    assert impression.belief == pytest.approx(0.135)


def test_chinese_statements_give_chinese_impressions() -> None:
    def inferred(statement: str) -> list[tuple[str, float, float]]:
        question = InferenceQuestion(statement=statement, belief=0.8, rules=[])
        return [
            (found.statement, round(found.belief, 6), found.half_life_days)
            for found in offline.infer_impressions(question).impressions
        ]

    assert inferred("我喉咙痛。") == [("用户感冒了", 0.72, 7.0)]
    assert inferred("我帮助了一个迷路的老人。") == [("用户是个善良的人", 0.12, 365.0)]
    assert inferred("我睡不着，一直在担心。") == [("用户压力很大", 0.32, 3.0)]
    assert inferred("I can't sleep.") == [("The user is under stress", 0.32, 3.0)]
    assert inferred("我嗓子痒。") == []  # not 嗓子疼: a cause is matched in all its terms
