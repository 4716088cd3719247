"""The offline cognition's sense of meaning (graphmem.cognition.meaning), on its own.

Its sentences are the tests' own, kept out of the prototypes as tests/test_paraphrases.py keeps
its own; what a whole story makes of them is tested there and in the scenario tests.
"""

import numpy as np
import pytest

from graphmem.cognition import prototypes
from graphmem.cognition.base import CausalRule, InferenceQuestion
from graphmem.cognition.meaning import (
    REFERENCE_VECTORS,
    Meaning,
    reference_texts,
    reference_vectors,
)
from graphmem.cognition.offline import COMMON_KNOWLEDGE, OfflineCognition
from graphmem.embedding import CachedEmbedder, E5Embedder


@pytest.fixture(scope="module")
def meaning(embedder: CachedEmbedder) -> Meaning:
    return Meaning(embedder)


def test_the_shipped_reference_vectors_are_the_bundled_embedders_of_todays_prototypes(
    embedder: CachedEmbedder,
) -> None:
    shipped = reference_vectors(E5Embedder.name)
    assert set(shipped) == set(reference_texts()), (
        f"{REFERENCE_VECTORS.name} is out of date: run scripts/reference-vectors"
    )
    sample = reference_texts()[::97]
    for purpose in ("passage", "query"):
        texts = [text for kind, text in sample if kind == purpose]
        fresh = np.array(embedder.embed(texts, purpose))
        kept = np.array([shipped[purpose, text] for text in texts])
        cosines = np.sum(fresh * kept, axis=1) / (
            np.linalg.norm(fresh, axis=1) * np.linalg.norm(kept, axis=1)
        )
        assert cosines.min() > 0.999


def test_a_test_sentence_is_no_prototype() -> None:
    for sentence in ["Cream in my coffee is a bad idea for me.", "我们到了大理，住在洱海边。"]:
        assert sentence not in prototypes.SENTENCES


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("I can't touch milk.", "The fridge is full of dairy."),
        ("I can't touch milk.", "桌上有一杯牛奶。"),
        ("乳制品我不能吃。", "冰箱里有牛奶。"),
    ],
)
def test_words_alike_in_meaning_are_found_across_languages(
    meaning: Meaning, left: str, right: str
) -> None:
    assert meaning.alike_words(left, right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("The rash came back on my arms.", "I planted chives and basil."),  # no food, no rash
        ("I'm allergic to milk.", "I need to repair my bike."),
        ("That was a great match!", "What an awesome concert."),  # small talk bridges nothing
        ("My hives are itchy again.", "The chives grew tall."),  # spelt alike, meant apart
    ],
)
def test_words_of_small_talk_or_spelt_alike_are_not_alike(
    meaning: Meaning, left: str, right: str
) -> None:
    assert meaning.alike_words(left, right) == []


def test_kinds_of_things_are_told_apart_from_small_talk(meaning: Meaning) -> None:
    kinds = meaning.nearest(
        [
            "My skin swells up whenever I eat shrimp.",
            "我一吃虾身上就肿。",
            "We flew into Lima and took a bus up to Cusco.",
            "I put the kettle on.",
        ],
        {**prototypes.SALIENCE, **prototypes.EVENTS},
    )
    assert kinds == ["health or safety", "health or safety", "travel", None]


def test_a_cause_said_in_other_words_makes_its_impression_and_an_allergy_does_not(
    embedder: CachedEmbedder,
) -> None:
    cognition = OfflineCognition(embedder=embedder)

    def inferred(statement: str) -> list[str]:
        question = InferenceQuestion(statement=statement, belief=0.8, rules=[])
        return [item.statement for item in cognition.infer_impressions(question).impressions]

    assert inferred("It's raw and scratchy when I swallow.") == ["The user has a cold"]
    assert inferred("我嗓子干得冒烟，一咽东西就难受。") == ["用户感冒了"]
    assert inferred("Eating shrimp makes my lips swell.") == []
    assert inferred("I'm so allergic to cats.") == []
    # Nearest sore legs, which no cause explains, though "hurts" is alike a sore throat's words.
    assert inferred("My ankle hurts after the long hike.") == []
    # A shade nearer a sore throat, with no word of one; a fever's words come next.
    assert inferred("I'm running hot and my whole body is shaking") == ["The user has a cold"]
    [impression] = cognition.infer_impressions(
        InferenceQuestion(
            statement="It's raw and scratchy when I swallow.",
            belief=0.8,
            rules=[],
        )
    ).impressions
    assert "by meaning" in impression.reason


def test_an_owners_rule_applies_to_its_cause_in_other_words(embedder: CachedEmbedder) -> None:
    cognition = OfflineCognition(knowledge=[], embedder=embedder)
    rule = CausalRule(cause="I skipped breakfast", effect="The user is hungry", sufficiency=0.5)
    question = InferenceQuestion(
        statement="I left home without breakfast.", belief=0.8, rules=[rule]
    )
    assert [item.statement for item in cognition.infer_impressions(question).impressions] == [
        "The user is hungry"
    ]


def test_without_an_embedder_the_cognition_reads_words_alone() -> None:
    words_only = OfflineCognition(knowledge=COMMON_KNOWLEDGE)
    question = InferenceQuestion(
        statement="It's raw and scratchy when I swallow.", belief=0.8, rules=[]
    )
    assert words_only.infer_impressions(question).impressions == []
