"""Knowing nothing: a recall's confidence, and the floor under which it returns nothing."""

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.confidence import ConfidencePolicy, Signals
from graphmem.contract import NOTHING_RELEVANT, Recall
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
TOLD = (
    "My nephew Tobias starts at the conservatory in Graz next month.",
    "We planted three apple trees behind the barn.",
    "The boiler in the cellar broke again on Tuesday.",
)
ANSWERED = "When does Tobias start at the conservatory in Graz?"
FOREIGN = "Which opera did Margarethe sing at the festival in Salzburg?"


def told(memory: GraphMem, owner: str) -> None:
    """Observe what the user told, a minute apart."""
    for minute, text in enumerate(TOLD):
        memory.observe(owner, text, at=START + timedelta(minutes=minute))


def asked(memory: GraphMem, owner: str, query: str, **options: object) -> Recall:
    """Recall a query an hour later, in peek mode unless told otherwise."""
    return memory.recall(owner, query, at=START + timedelta(hours=1), **{"peek": True, **options})


def test_a_question_memory_answers_is_surer_than_one_it_cannot(
    memory: GraphMem, owner: str
) -> None:
    told(memory, owner)
    answered = asked(memory, owner, ANSWERED)
    foreign = asked(memory, owner, FOREIGN)
    for found in (answered, foreign):
        assert 0.0 <= found.confidence <= 1.0
    assert answered.confidence > foreign.confidence
    assert answered.coverage == 1.0  # every word of it is in memory
    assert foreign.coverage < answered.coverage
    assert answered.nearness > foreign.nearness


def test_under_the_floor_nothing_is_returned_nor_woken(memory: GraphMem, owner: str) -> None:
    told(memory, owner)
    floor = asked(memory, owner, FOREIGN).confidence + 1e-6
    found = asked(memory, owner, FOREIGN, min_confidence=floor, peek=False)
    assert found.nothing_relevant
    assert found.memories == []
    assert found.links == []
    assert found.woken == []
    assert found.rendered == found.render() == NOTHING_RELEVANT
    kept = asked(memory, owner, ANSWERED, min_confidence=floor, peek=False)
    assert not kept.nothing_relevant
    assert TOLD[0] in kept.rendered
    assert kept.woken  # what was returned was used, and woke


def test_with_no_floor_a_recall_returns_what_it_found(memory: GraphMem, owner: str) -> None:
    told(memory, owner)
    found = asked(memory, owner, FOREIGN, min_confidence=0.0)
    assert not found.nothing_relevant
    assert len(found.memories) == len(TOLD)


@pytest.mark.parametrize("floor", [-0.1, 1.5, "high", True])
def test_a_floor_outside_0_to_1_is_refused_by_name(
    memory: GraphMem, owner: str, floor: object
) -> None:
    told(memory, owner)
    with pytest.raises(InvalidInputError, match="min_confidence"):
        asked(memory, owner, ANSWERED, min_confidence=floor)
    assert len(asked(memory, owner, ANSWERED).memories) == len(TOLD)  # nothing lost


def test_the_confidence_grows_with_each_signal() -> None:
    policy = ConfidencePolicy()
    middle = Signals(nearness=0.0, coverage=0.5, first_coverage=0.5)
    for signal, more in (("nearness", 0.05), ("coverage", 1.0), ("first_coverage", 1.0)):
        assert middle.model_copy(update={signal: more}).confidence(policy) > middle.confidence(
            policy
        )
    least = Signals(nearness=-1.0, coverage=0.0, first_coverage=0.0)
    most = Signals(nearness=1.0, coverage=1.0, first_coverage=1.0)
    assert 0.0 < least.confidence(policy) < most.confidence(policy) < 1.0 + 1e-12


def test_what_one_memory_says_together_counts_above_words_scattered(
    memory: GraphMem, owner: str
) -> None:
    told(memory, owner)
    scattered = "Did Tobias plant the apple trees in the cellar?"  # each word held, apart
    found = asked(memory, owner, scattered)
    assert found.coverage == 1.0
    assert found.first_coverage < 1.0
    together = asked(memory, owner, ANSWERED)
    assert together.first_coverage == 1.0


def test_under_the_floor_a_budget_still_opens_with_the_profile(
    memory: GraphMem, owner: str
) -> None:
    told(memory, owner)
    memory.observe(owner, "I'm allergic to milk.", at=START + timedelta(minutes=5))
    memory.consolidate(owner, at=START + timedelta(minutes=30))
    floor = asked(memory, owner, FOREIGN).confidence + 1e-6
    found = asked(memory, owner, FOREIGN, min_confidence=floor, max_tokens=2_000)
    assert found.nothing_relevant
    assert found.memories == []
    assert any(line.startswith("allergy: milk") for line in found.profile)
    assert found.rendered == "\n".join([*found.profile, NOTHING_RELEVANT])
