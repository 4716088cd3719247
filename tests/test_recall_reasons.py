"""The reasons a recall gives, on both stores: a memory that shares no word with the query shows
no lexical match, though the others found share none either."""

from datetime import UTC, datetime, timedelta

from graphmem.memory import GraphMem

DAY_ONE = datetime(2026, 4, 1, 8, tzinfo=UTC)
THROAT = "My throat is sore and I feel tired."
LINES = (THROAT, "We watched a film about whales.", "The car needs new tyres.")


def test_memories_that_share_no_word_with_the_query_show_lexical_0(
    memory: GraphMem, owner: str
) -> None:
    for number, text in enumerate(LINES):  # seven hours apart: no turn is around another
        memory.observe(
            owner, text, message_id=f"d1-{number}", at=DAY_ONE + number * timedelta(hours=7)
        )
    nonsense = memory.recall(owner, "xyzzy plugh", k=10, peek=True)
    assert {item.memory.text for item in nonsense.memories} >= set(LINES)
    for item in nonsense.memories:
        assert item.components.lexical == item.normalised.lexical == 0.0
    throat = memory.recall(owner, "Is my throat better?", k=10, peek=True)
    lexical = {item.memory.text: item.components.lexical for item in throat.memories}
    assert lexical.pop(THROAT) == 1.0
    assert set(lexical.values()) == {0.0}
