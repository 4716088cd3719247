"""The facade on both stores: idempotent observe, clear errors on bad input, owners kept apart."""

import gc
import unicodedata
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem.cognition.base import (
    AttentionLabel,
    AttentionQuestion,
    PerceptionQuestion,
    Perceptions,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.config import Settings
from graphmem.contract import HealthCounts, OwnerGraph, QueryTurn
from graphmem.embedding import CachedEmbedder, Embedder, Purpose
from graphmem.errors import ConflictError, InvalidInputError, ModelError
from graphmem.memory import GraphMem
from graphmem.model import MAX_TEXT_CHARS, Event, LinkType, Memory, MemoryKind, Turn
from graphmem.scoring import QUERY_EMBEDDING_CHARS
from graphmem.store.base import Store

from .test_sleep_crash import CONVERSATION, START, canonical, node_key, observe_all

DAY_ONE = datetime(2026, 4, 1, 20, tzinfo=UTC)


def test_the_same_message_id_stores_one_turn(memory: GraphMem, store: Store, owner: str) -> None:
    first = memory.observe(owner, "My throat is sore.", message_id="m-1", at=DAY_ONE)
    again = memory.observe(owner, "My throat is sore.", message_id="m-1", at=DAY_ONE)
    assert (first.already_stored, again.already_stored) == (False, True)
    assert again.as_json()["already_stored"] is True  # as MCP and HTTP answer it
    assert (again.turn, again.memories) == (first.turn, [])
    assert again.conjectures == []  # the impression counted once, so the cold once
    counts = store.count_graph(owner)
    assert counts.nodes["Turn"] == 1
    assert counts.nodes["Memory"] == 2  # the observation and "the user has a cold"
    assert counts.nodes["Impression"] == 1
    assert counts.links == {"FROM": 1, "INFERRED_FROM": 2}


def test_a_known_message_id_with_new_text_is_a_conflict(
    memory: GraphMem, store: Store, owner: str
) -> None:
    memory.observe(owner, "We painted the fence green.", message_id="m-1", at=DAY_ONE)
    with pytest.raises(ConflictError, match=r"'m-1' of owner .* already stored with another text"):
        memory.observe(owner, "Something else.", message_id="m-1", at=DAY_ONE)
    [found] = memory.recall(owner, "Something else", k=5).memories
    assert found.memory.text == "We painted the fence green."


def test_yesterdays_symptoms_are_recalled_with_their_turns(memory: GraphMem, owner: str) -> None:
    memory.observe(owner, "My throat is sore and I feel tired.", message_id="d1-1", at=DAY_ONE)
    memory.observe(owner, "We watched a film about whales.", message_id="d1-2", at=DAY_ONE)
    memory.observe(owner, "The car needs new tyres.", message_id="d1-3", at=DAY_ONE)
    day_two = DAY_ONE + timedelta(days=1)
    memory.observe(owner, "I started having a fever.", message_id="d2-1", at=day_two)
    recall = memory.recall(owner, "Which symptoms came before the fever?", k=3)
    assert "My throat is sore and I feel tired." in [item.memory.text for item in recall.memories]
    for item in recall.memories:
        if item.memory.kind is MemoryKind.CONJECTURE:  # "the user has a cold", from no turn
            continue
        [turn] = item.turns
        assert (turn.owner, turn.text) == (owner, item.memory.text)
    assert " My throat is sore and I feel tired.\n" in recall.render() + "\n"


def test_chinese_is_recalled_like_english(memory: GraphMem, owner: str) -> None:
    memory.observe(owner, "我对牛奶过敏。", message_id="z1", at=DAY_ONE)
    memory.observe(owner, "明天要去北京出差。", message_id="z2", at=DAY_ONE)
    memory.observe(owner, "周末想去公园放风筝。", message_id="z3", at=DAY_ONE)
    [best] = memory.recall(owner, "桌上有半杯牛奶", k=1).memories
    assert best.memory.text == "我对牛奶过敏。"


@pytest.mark.parametrize("name", ["小明", "ålice", "अमित"])  # Han; Latin, composed; a vowel sign
def test_an_owner_may_be_named_in_any_script(memory: GraphMem, owner: str, name: str) -> None:
    mine, neighbour = f"{name}.{owner}", f"{name}{name}.{owner}"
    memory.observe(mine, "我最喜欢奶奶包的韭菜猪肉饺子。", message_id="z1", at=DAY_ONE)
    memory.observe(mine, "我对牛奶过敏。", message_id="z2", at=DAY_ONE)
    memory.observe(neighbour, "我也喜欢饺子。", message_id="z1", at=DAY_ONE)
    recalled = memory.recall(mine, "饺子", k=5, peek=True).memories
    assert recalled[0].memory.text == "我最喜欢奶奶包的韭菜猪肉饺子。"
    assert recalled[0].components.lexical > 0  # found by its word, in the owner's index
    assert {item.memory.owner for item in recalled} == {mine}
    assert {mine, neighbour} <= set(memory.owners())
    with pytest.raises(InvalidInputError, match="composed form"):
        memory.observe(unicodedata.normalize("NFD", "ålice") + owner, "Hi.", message_id="x")


def test_a_dialogue_is_recalled_for_its_latest_user_turn(memory: GraphMem, owner: str) -> None:
    memory.observe(owner, "We painted the fence green.", message_id="m1", at=DAY_ONE, session="a")
    memory.observe(owner, "I'm allergic to milk.", message_id="m2", at=DAY_ONE, session="b")
    dialogue = [
        {"speaker": "Ann", "text": "We painted the fence last weekend, it took ages."},
        {"speaker": "assistant", "text": "That sounds like hard work! What colour is it now?"},
        {"speaker": "Ann", "text": "Can I have milk in my coffee?"},
        {"speaker": "assistant", "text": "Let me think about what you told me."},
    ]
    as_turns = memory.recall(owner, dialogue, k=1, peek=True, at=DAY_ONE)
    assert as_turns.memories[0].memory.text == "I'm allergic to milk."
    as_text = memory.recall(
        owner, "\n".join(f"{t['speaker']}: {t['text']}" for t in dialogue), k=1, peek=True
    )
    assert as_text.query == as_turns.query
    assert as_text.memories[0].memory.id == as_turns.memories[0].memory.id


def test_a_time_the_question_names_picks_the_memory_of_that_time(
    memory: GraphMem, owner: str
) -> None:
    visits = {
        "m1": ("We visited the science museum with my cousin.", DAY_ONE - timedelta(days=150)),
        "m2": ("We visited the art museum with my cousin.", DAY_ONE - timedelta(days=60)),
        "m3": ("We visited the history museum with my cousin.", DAY_ONE - timedelta(days=5)),
    }
    for message_id, (text, at) in visits.items():
        memory.observe(owner, text, message_id=message_id, at=at, session=message_id)
    memory.observe(owner, "The car needs new tyres.", message_id="c1", at=DAY_ONE, session="c")
    memory.observe(owner, "I'm allergic to milk.", message_id="c2", at=DAY_ONE, session="c")
    for question, wanted in [
        ("Which museum did I visit two months ago?", "m2"),
        ("Which museum did I visit in November?", "m1"),  # 2 November 2025
        ("我上周去了哪个博物馆？", "m3"),
    ]:
        [best] = memory.recall(owner, question, k=1, peek=True, at=DAY_ONE).memories
        assert best.memory.text == visits[wanted][0], question
        assert best.components.time_match == 1.0


def test_a_speaker_the_question_names_picks_what_they_said(memory: GraphMem, owner: str) -> None:
    said = {
        "user": "The ginger dumplings were far too salty.",
        "assistant": "Ginger dumplings are often too salty.",
    }
    for number, (speaker, text) in enumerate(said.items()):
        memory.observe(owner, text, message_id=f"d{number}", at=DAY_ONE, speaker=speaker)
    memory.observe(owner, "The car needs new tyres.", message_id="c1", at=DAY_ONE, session="c")
    for question, wanted, component in [
        ("What did I say about the ginger dumplings?", "user", "asker_match"),
        ("What did you say about the ginger dumplings?", "assistant", "speaker_match"),
        ("我说过姜饺子怎么样？", "user", "asker_match"),
    ]:
        [best] = memory.recall(owner, question, k=1, peek=True, at=DAY_ONE).memories
        assert best.memory.text == said[wanted], question
        assert getattr(best.components, component) == 1.0


def test_a_turn_telling_of_a_thing_comes_before_one_that_only_asked_of_it(
    memory: GraphMem, owner: str
) -> None:
    turns = [
        ("Tim", "Did you finish the charity race in Boston?"),
        ("Ann", "Yes, the race took four hours and my knees hurt."),
    ]
    for number, (speaker, text) in enumerate(turns):
        memory.observe(
            owner, text, message_id=f"r{number}", at=DAY_ONE, speaker=speaker, session="race"
        )
    memory.observe(owner, "The car needs new tyres.", message_id="c1", at=DAY_ONE, session="c")
    recalled = memory.recall(owner, "Did Ann finish the charity race?", k=2, peek=True, at=DAY_ONE)
    assert [item.memory.text for item in recalled.memories] == [text for _, text in reversed(turns)]
    assert [item.components.statement for item in recalled.memories] == [1.0, 0.0]


def test_memories_of_one_owner_never_reach_another(memory: GraphMem, owner: str) -> None:
    other = owner + "-other"
    memory.observe(owner, "I'm allergic to milk.", message_id="a1", at=DAY_ONE)
    memory.observe(other, "I love hiking in the Alps.", message_id="a1", at=DAY_ONE)
    for query in ["milk allergy", "hiking", "anything at all"]:
        assert {item.memory.owner for item in memory.recall(other, query, k=10).memories} == {other}
        assert {item.memory.owner for item in memory.recall(owner, query, k=10).memories} == {owner}


@pytest.mark.parametrize(
    ("owner_text", "text", "problem"),
    [
        ("ok", "", "text: text is empty or only whitespace"),
        ("ok", "   \n", "text: text is empty or only whitespace"),
        ("ok", "x" * (MAX_TEXT_CHARS + 1), f"the limit is {MAX_TEXT_CHARS}"),
        ("ok", "broken \udc80 unicode", "invalid Unicode"),
        ("not an owner!", "hello", "owner 'not an owner!' is not"),
        ("ok", 42, "text: Input should be a valid string"),
    ],
)
def test_bad_input_is_named_and_changes_nothing(
    memory: GraphMem, store: Store, owner: str, owner_text: str, text: str, problem: str
) -> None:
    memory.observe(owner, "I'm allergic to milk.", message_id="keep", at=DAY_ONE)
    before = store.count_graph(owner)
    target = owner if owner_text == "ok" else owner_text
    with pytest.raises(InvalidInputError, match=problem):
        memory.observe(target, text, message_id="bad", at=DAY_ONE)
    assert store.count_graph(owner) == before
    [kept] = memory.recall(owner, "milk", k=5).memories
    assert kept.memory.text == "I'm allergic to milk."


def test_bad_recall_arguments_are_named(memory: GraphMem, owner: str) -> None:
    with pytest.raises(InvalidInputError, match="text is empty"):
        memory.recall(owner, " ")
    with pytest.raises(InvalidInputError, match="query: turn 1 must be"):
        memory.recall(owner, [{"speaker": "Ann", "text": "hi"}, {"who": "Ann"}])
    with pytest.raises(InvalidInputError, match="text is empty"):
        memory.recall(owner, [{"speaker": "Ann", "text": ""}])
    with pytest.raises(InvalidInputError, match="a non-empty list of"):
        memory.recall(owner, [])
    with pytest.raises(InvalidInputError, match="k: Input should be greater than or equal to 1"):
        memory.recall(owner, "milk", k=0)
    with pytest.raises(InvalidInputError, match="owner 'a b' is not"):
        memory.recall("a b", "milk")


def test_naive_datetimes_are_refused(memory: GraphMem, owner: str) -> None:
    with pytest.raises(InvalidInputError, match="at must be timezone-aware"):
        memory.observe(owner, "hello", at=datetime(2026, 1, 1))


def test_a_recall_past_its_budget_returns_what_it_has_and_says_so(
    memory: GraphMem, owner: str
) -> None:
    for number, text in enumerate(["My throat is sore.", "We painted the fence.", "Cats nap."]):
        memory.observe(owner, text, message_id=f"m{number}", at=DAY_ONE)
    query = "What colour is the bicycle shed?"  # nothing answers it well: recall thinks again
    whole = memory.recall(owner, query, k=3, motivation=0, peek=True, at=DAY_ONE)
    assert whole.cut_short == []
    assert len(whole.attempts) > 1
    hurried = memory.recall(
        owner, query, k=3, motivation=0, peek=True, at=DAY_ONE, budget_seconds=1e-9
    )
    assert hurried.cut_short == ["thinking again", "association"]
    assert len(hurried.attempts) == 1
    assert hurried.memories  # what the first search found, ranked
    with pytest.raises(InvalidInputError, match="budget_seconds: Input should be greater than 0"):
        memory.recall(owner, query, budget_seconds=0)


class SteadyCognition(OfflineCognition):
    """The offline cognition, except that every item deserves attention 7.5."""

    def label_attention(self, question: AttentionQuestion) -> AttentionLabel:
        """Attention 7.5, whatever the item."""
        return AttentionLabel(score=7.5, related=[], reason="steady")


def test_open_takes_a_cognition_of_ones_own(tmp_path: Path) -> None:
    settings = Settings(path=tmp_path / "graph.json", embedding_cache=tmp_path / "cache.sqlite")
    with GraphMem.open(settings, cognition=SteadyCognition()) as memory:
        observation = memory.observe("ann", "A plain remark.", message_id="m1", at=DAY_ONE)
    [remembered] = observation.memories
    assert remembered.importance == 7.5  # the offline rules give a plain remark far less


class RecordingEmbedder:
    """The tests' embedder, noting every text it is asked to embed as a query, and each call's
    passages."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.name = embedder.name
        self.dimensions = embedder.dimensions
        self.queries: list[str] = []
        self.passages: list[list[str]] = []

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Note the texts, then embed with the tests' embedder."""
        if purpose == "query":
            self.queries += texts
        else:
            self.passages.append(list(texts))
        return self._embedder.embed(texts, purpose)

    def close(self) -> None:
        """Nothing: the tests' embedder stays open for the other tests."""


def test_open_takes_an_embedder_of_ones_own(tmp_path: Path, embedder: CachedEmbedder) -> None:
    recording = RecordingEmbedder(embedder)
    settings = Settings(path=tmp_path / "graph.json", embedding_cache=tmp_path / "cache.sqlite")
    with GraphMem.open(settings, embedder=recording) as memory:
        memory.observe("ann", "A plain remark.", message_id="m1", at=DAY_ONE)
        memory.recall("ann", "a remark", at=DAY_ONE)
    assert ["A plain remark."] in recording.passages  # the turn (its words: the cognition's)
    assert "a remark" in recording.queries


def test_a_long_query_is_embedded_from_its_start_and_searched_whole(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    recording = RecordingEmbedder(embedder)
    memory = GraphMem(store, recording)
    memory.observe(owner, "We painted the fence green.", message_id="m1", at=DAY_ONE, session="a")
    memory.observe(owner, "The kettle whistles.", message_id="m2", at=DAY_ONE, session="b")
    query = "what colour " * 8_000 + "fence"  # the one shared word comes last
    assert len(query) > MAX_TEXT_CHARS - 5_000
    found = memory.recall(owner, query, k=2, peek=True, at=DAY_ONE)
    embedded = [*recording.queries, *(text for texts in recording.passages for text in texts)]
    assert max(len(text) for text in embedded) == QUERY_EMBEDDING_CHARS  # the query's start
    lexical = {item.memory.text: item.components.lexical for item in found.memories}
    assert lexical["We painted the fence green."] > 0  # "fence", at the query's very end
    assert lexical["The kettle whistles."] == 0


def test_the_events_of_the_summaries_made_at_once_are_embedded_in_one_call(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    recording = RecordingEmbedder(embedder)
    memory = GraphMem(store, recording)
    memory.observe_many(owner, conversation_items())
    graph = store.export(owner)
    summaries = [
        node for node in graph.nodes if isinstance(node, Memory) and node.kind is MemoryKind.SUMMARY
    ]
    events = {node.title: node.embedding for node in graph.nodes if isinstance(node, Event)}
    assert len(summaries) >= 2
    assert all(summary.embedding is None for summary in summaries)  # no search finds one
    assert not {summary.text for summary in summaries} & {
        text for texts in recording.passages for text in texts
    }
    [news] = [
        texts
        for texts in recording.passages
        if sorted(text.split(". ")[0] for text in texts) == sorted(events)
    ]
    for text in news:  # each stored with its own news's embedding
        assert events[text.split(". ")[0]] == embedder.embed([text], "passage")[0]


def conversation_items() -> list[dict[str, object]]:
    """The sleep-crash conversation as observe_many items, as observe_all observes it."""
    days = {"mon": 0, "tue": 1, "wed": 2, "fri": 4}
    return [
        {
            "text": text,
            "message_id": f"m{number}",
            "at": START + timedelta(days=days[session], hours=4 * (number % 4)),
            "session": session,
        }
        for number, (session, text) in enumerate(CONVERSATION)
    ]


def test_a_batch_builds_the_graph_that_turn_by_turn_observing_builds(
    memory: GraphMem, store: Store, owner: str
) -> None:
    observe_all(memory, owner + "-one-by-one")
    observed = memory.observe_many(owner, conversation_items())
    assert [item.turn.id for item in observed] == [f"m{n}" for n in range(len(CONVERSATION))]
    assert not any(item.pending for item in observed)
    assert all(len(item.memories) == 1 for item in observed)
    assert sum(len(item.conjectures) for item in observed) >= 1
    batch, one_by_one = store.export(owner), store.export(owner + "-one-by-one")
    # The same nodes and edges, but for what labelling decides: in a batch, a turn's working
    # memory also holds the earlier turns of its batch most like it, hot or not, each with the
    # attention it was just given (not yet faded).
    assert sorted(map(node_key, batch.nodes)) == sorted(map(node_key, one_by_one.nodes))
    links, related = canonical(batch)[1], canonical(one_by_one)[1]
    assert [link for link in links if "-RELATED" not in link] == [
        link for link in related if "-RELATED" not in link
    ]
    assert {link for link in related if "-RELATED" in link} <= set(links)
    importance = {
        node_key(node): node.importance for node in one_by_one.nodes if isinstance(node, Memory)
    }
    changed = {
        node_key(node): node.importance - importance[node_key(node)]
        for node in batch.nodes
        if isinstance(node, Memory) and node.importance != importance[node_key(node)]
    }
    assert len(changed) <= 3, changed
    assert all(abs(difference) < 0.5 for difference in changed.values()), changed


def test_a_batch_observed_again_changes_nothing(memory: GraphMem, store: Store, owner: str) -> None:
    items = conversation_items()
    memory.observe_many(owner, items[:10])
    before = store.export(owner)
    again = memory.observe_many(owner, items[:10])
    assert [
        (item.pending, item.memories, item.conjectures, item.already_stored) for item in again
    ] == [(False, [], [], True)] * 10
    assert store.export(owner) == before
    rest = memory.observe_many(owner, items)
    assert [bool(item.memories) for item in rest] == [False] * 10 + [True] * 6
    assert [item.already_stored for item in rest] == [True] * 10 + [False] * 6


class DownCognition(OfflineCognition):
    """The offline cognition, except that the model is down whenever a turn is perceived."""

    def perceive(self, question: PerceptionQuestion) -> Perceptions:
        """Fail as an unreachable model does."""
        raise ModelError("the model is down")

    def label_attention(self, question: AttentionQuestion) -> AttentionLabel:
        """Fail as an unreachable model does."""
        raise ModelError("the model is down")


def test_only_a_message_derived_earlier_is_already_stored(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    down, up = GraphMem(store, embedder, DownCognition()), GraphMem(store, embedder)
    left = down.observe(owner, "I keep bees.", message_id="b1", at=DAY_ONE)
    assert (left.pending, left.already_stored) == (True, False)
    derived = up.observe(owner, "I keep bees.", message_id="b1", at=DAY_ONE)
    assert (derived.pending, bool(derived.memories), derived.already_stored) == (False, True, False)
    again = up.observe(owner, "I keep bees.", message_id="b1", at=DAY_ONE)
    assert (again.pending, again.memories, again.already_stored) == (False, [], True)
    up.forget_message(owner, "b1")
    forgotten = up.observe(owner, "I keep bees.", message_id="b1", at=DAY_ONE)
    assert (forgotten.forgotten, forgotten.already_stored) == (True, False)
    readmitted = up.observe(owner, "I keep bees.", message_id="b1", readmit_forgotten=True)
    assert (bool(readmitted.memories), readmitted.already_stored) == (True, False)


def test_observing_leaves_the_garbage_collector_as_it_found_it(
    memory: GraphMem, owner: str
) -> None:
    assert gc.isenabled()
    memory.observe_many(owner, conversation_items()[:3])
    assert gc.isenabled()  # paused while the batch was derived, running again
    gc.disable()
    try:
        memory.observe(owner, "The kettle whistles.", message_id="k", at=DAY_ONE)
        assert not gc.isenabled()  # the caller's choice stands
    finally:
        gc.enable()


def test_a_bad_item_is_named_and_nothing_of_the_batch_is_stored(
    memory: GraphMem, store: Store, owner: str
) -> None:
    items = conversation_items()
    items[3] = {**items[3], "at": datetime(2026, 5, 4, 8)}
    with pytest.raises(InvalidInputError, match="item 3: at must be timezone-aware"):
        memory.observe_many(owner, items)
    with pytest.raises(InvalidInputError, match="item 1 must have a text and only"):
        memory.observe_many(owner, [items[0], {"txt": "typo"}])
    twice = [items[0], {**items[1], "message_id": "m0"}]
    with pytest.raises(InvalidInputError, match="message ids 'm0' come twice"):
        memory.observe_many(owner, twice)
    with pytest.raises(InvalidInputError, match="non-empty list"):
        memory.observe_many(owner, [])
    assert store.owners().count(owner) == 0


def health_from_export(graph: OwnerGraph) -> HealthCounts:
    """The health checks worked out from an export, independently of the stores' own counting."""
    memories = [node for node in graph.nodes if isinstance(node, Memory)]
    turns = [node for node in graph.nodes if isinstance(node, Turn)]
    merged = {link.source for _s, _t, link in graph.links if link.type is LinkType.MERGED_INTO}
    linked = {end for _s, _t, link in graph.links for end in (link.source, link.target)}
    conjectured = [memory.created_at for memory in memories if memory.kind is MemoryKind.CONJECTURE]
    return HealthCounts(
        kinds=dict(Counter(memory.kind.value for memory in memories)),
        pending_turns=sum(turn.pending for turn in turns),
        awaiting_summary=sum(turn.awaiting_summary for turn in turns),
        awaiting_consolidation=sum(memory.awaiting_consolidation for memory in memories),
        open_contradictions=sum(
            link.type is LinkType.CONTRADICTS and not {link.source, link.target} & merged
            for _s, _t, link in graph.links
        ),
        superseded=sum(memory.valid_until is not None for memory in memories),
        never_used=sum(memory.accessed_at == memory.created_at for memory in memories),
        isolated=sum(node.id not in linked for node in graph.nodes),
        first_conjecture_at=min(conjectured, default=None),
        last_conjecture_at=max(conjectured, default=None),
    )


def test_health_counts_what_the_graph_holds(memory: GraphMem, store: Store, owner: str) -> None:
    day = timedelta(days=1)
    for number, text in enumerate(
        ["My throat hurts.", "I'm in a good mood these days.", "I'm allergic to peanuts."]
    ):
        memory.observe(owner, text, message_id=f"a{number}", at=DAY_ONE, session="a")
    memory.consolidate(owner, at=DAY_ONE + day)
    for number, text in enumerate(["I'm worried and can't sleep.", "I'm allergic to peanuts!"]):
        memory.observe(owner, text, message_id=f"b{number}", at=DAY_ONE + 2 * day, session="b")
    memory.consolidate(owner, at=DAY_ONE + 3 * day)
    memory.observe(owner, "Nice weather today.", message_id="c0", at=DAY_ONE + 4 * day)
    memory.recall(owner, "peanut allergy", k=1, at=DAY_ONE + 4 * day)
    lonely = Turn(
        id="d0", owner=owner, text="Left pending.", created_at=DAY_ONE, session="d", pending=True
    )
    store.save_turns(owner, [lonely])

    health = memory.health(owner, at=DAY_ONE + 5 * day)
    assert health.checks == health_from_export(store.export(owner))
    assert health.counts == store.count_graph(owner)
    assert (health.checks.pending_turns, health.checks.isolated) == (1, 1)  # the lonely turn
    assert health.checks.awaiting_summary == 1  # today's remark
    assert health.checks.awaiting_consolidation == 1  # today's remark
    assert health.counts.links["MERGED_INTO"] == 1  # peanuts, twice
    assert health.checks.open_contradictions >= 1  # a good mood against worries
    assert health.checks.kinds["conjecture"] == 1  # the user has a cold
    assert health.oldest_conjecture_days == health.newest_conjecture_days == 5.0
    assert 0 < health.checks.never_used < sum(health.checks.kinds.values())
    assert (health.embedder, health.cognition) == ("multilingual-e5-small-q4", "offline rules")
    assert memory.health(owner + "-nobody").checks == HealthCounts(
        kinds={},
        pending_turns=0,
        awaiting_summary=0,
        awaiting_consolidation=0,
        open_contradictions=0,
        superseded=0,
        never_used=0,
        isolated=0,
        first_conjecture_at=None,
        last_conjecture_at=None,
    )


def test_the_verbs_refuse_what_a_store_cannot_keep_before_any_work(
    memory: GraphMem, owner: str
) -> None:
    with pytest.raises(InvalidInputError, match="whole minutes"):
        memory.recall(
            owner, "milk", at=datetime(2026, 3, 1, tzinfo=timezone(timedelta(seconds=30)))
        )
    with pytest.raises(InvalidInputError, match="year 1500 to 8499"):
        memory.consolidate(owner, at=datetime(1, 1, 1, tzinfo=UTC))
    with pytest.raises(InvalidInputError, match="limit"):
        memory.complete_pending(owner, limit=2**63)
    with pytest.raises(InvalidInputError, match="characters"):
        memory.learn(owner, "x" * 1_000_000, "a cold", 0.5)  # refused before it is embedded
    with pytest.raises(InvalidInputError):
        memory.recall(owner, [QueryTurn(speaker="user", text="\ud800")])  # a lone surrogate
    assert memory.statistics(owner).total == 0
