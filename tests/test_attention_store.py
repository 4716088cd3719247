"""Wake-up, spreading, tiers and re-tiering through the store verbs, the same on both stores."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.contract import Woken
from graphmem.errors import StoreError
from graphmem.mechanisms.attention import AttentionPolicy, current_attention
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Attention, Link, LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.store.base import Store
from graphmem.store.changes import Derivation

from .conftest import DIMENSIONS

START = datetime(2026, 9, 1, 8, tzinfo=UTC)
UNIT = [1.0] + [0.0] * (DIMENSIONS - 1)
"""Every memory's embedding here, of the size of the Neo4j vector index (which skips others)."""
POLICY = AttentionPolicy()
TIERS = TierPolicy()


def add(
    store: Store,
    owner: str,
    name: str,
    *,
    level: float = 5.0,
    tier: Tier = Tier.HOT,
    at: datetime = START,
    vector: list[float] | None = None,
) -> Memory:
    """Store a turn and one memory named `name` with this long-term attention and tier."""
    [turn] = store.save_turns(
        owner, [Turn(id=f"turn-{name}", owner=owner, text=name, created_at=at)]
    )
    memory = Memory(
        id=name,
        owner=owner,
        text=f"memory {name}",
        created_at=at,
        kind=MemoryKind.OBSERVATION,
        importance=level,
        attention=Attention(long_term=level, long_term_at=at, short_term=0.0, short_term_at=at),
        tier=tier,
        embedding=vector if vector is not None else UNIT,
        accessed_at=at,
    )
    save(store, owner, turn, [memory])
    return memory


def save(store: Store, owner: str, turn: Turn, memories: list[Memory]) -> None:
    """Store the owner's memories FROM one stored turn."""
    store.save_memories(owner, [Derivation(source=turn, memories=memories)])


def related(source: str, target: str, weight: float) -> Link:
    return Link(type=LinkType.RELATED, source=source, target=target, weight=weight)


def attention_of(store: Store, owner: str, name: str) -> Memory:
    found = store.find_similar_memories(owner, UNIT, 1000)
    return next(item.memory for item in found if item.memory.id == name)


def test_use_wakes_neighbours_two_hops_with_falloff_and_weight(store: Store, owner: str) -> None:
    for name in ["a", "b", "c", "d", "e", "f"]:
        add(store, owner, name, level=1.0, tier=Tier.DEEP)
    store.link_memories(
        owner,
        [
            related("a", "b", 1.0),
            related("c", "b", 0.9),  # direction does not matter
            related("a", "d", 0.5),
            related("a", "f", 0.3),  # a gain of 0.75, under the least gain: dropped
            related("c", "e", 1.0),  # three hops from a: untouched
            Link(type=LinkType.CAUSES, source="d", target="c", sufficiency=0.9),
        ],
    )
    now = START + timedelta(days=1)
    woken = store.wake(owner, ["a"], now, POLICY, TIERS)
    gains = {item.id: item.short_term_gain for item in woken}
    assert gains == pytest.approx(
        {"a": 5.0, "b": 5 * 0.5 * 1.0, "c": 5 * 0.25 * 1.0 * 0.9, "d": 5 * 0.5 * 0.5}
    )
    assert [item.used for item in woken] == [True, False, False, False]
    used = attention_of(store, owner, "a")
    assert used.tier == Tier.HOT
    assert used.accessed_at == now
    decayed = 0.5 ** (1 / 30)
    assert used.attention.long_term == pytest.approx(decayed + 1.0)
    assert used.attention.short_term == pytest.approx(5.0)
    b = attention_of(store, owner, "b")
    assert b.attention.short_term == pytest.approx(2.5)
    assert (b.attention.long_term, b.attention.long_term_at) == (1.0, START)  # no gain, no write
    assert b.tier == Tier.WARM  # from tier 3: 0.98 long-term + 2.5 short-term reach 2.5
    assert attention_of(store, owner, "e").attention.short_term == 0.0


def test_a_hub_wakes_only_its_strongest_edges(store: Store, owner: str) -> None:
    add(store, owner, "hub", level=1.0)
    spokes = [f"s{number:02d}" for number in range(20)]
    for name in spokes:
        add(store, owner, name, level=1.0, tier=Tier.DEEP)
    store.link_memories(
        owner, [related("hub", name, 0.5 + n / 100) for n, name in enumerate(spokes)]
    )
    woken = store.wake(owner, ["hub"], START, POLICY, TIERS)
    assert [item.id for item in woken if not item.used] == sorted(spokes[-POLICY.spread_fan_out :])


def test_concurrent_paths_keep_the_largest_gain_and_used_nodes_gain_once(
    store: Store, owner: str
) -> None:
    for name in ["a", "b", "x"]:
        add(store, owner, name, level=1.0)
    store.link_memories(
        owner, [related("a", "x", 0.4), related("b", "x", 0.9), related("a", "b", 1.0)]
    )
    woken = {item.id: item for item in store.wake(owner, ["a", "b", "a"], START, POLICY, TIERS)}
    assert woken["x"].short_term_gain == pytest.approx(5 * 0.5 * 0.9)
    assert (woken["a"].used, woken["b"].used) == (True, True)
    assert attention_of(store, owner, "a").attention.short_term == pytest.approx(5.0)


def test_links_need_stored_memories(store: Store, owner: str) -> None:
    add(store, owner, "a")
    with pytest.raises(StoreError):
        store.link_memories(owner, [related("a", "missing", 0.5)])


def test_shallow_search_sees_only_the_hot_tier(store: Store, owner: str) -> None:
    add(store, owner, "hot", tier=Tier.HOT)
    add(store, owner, "warm", tier=Tier.WARM)
    add(store, owner, "deep", tier=Tier.DEEP)

    def found(deepest: Tier, shallowest: Tier = Tier.HOT) -> list[str]:
        return sorted(
            item.memory.id
            for item in store.find_similar_memories(owner, UNIT, 10, deepest, shallowest=shallowest)
        )

    assert found(Tier.HOT) == ["hot"]
    assert found(Tier.WARM) == ["hot", "warm"]
    assert found(Tier.DEEP) == ["deep", "hot", "warm"]
    assert found(Tier.DEEP, shallowest=Tier.WARM) == ["deep", "warm"]  # thinking again


def test_retier_sinks_the_faded_and_the_overflow(store: Store, owner: str) -> None:
    tiers = TierPolicy(capacities=(2, 10, 100))
    for number, level in enumerate([9.0, 8.0, 7.0, 6.0]):
        add(store, owner, f"strong{number}", level=level)
    add(store, owner, "fading", level=6.0, tier=Tier.HOT)
    later = START + timedelta(days=90)  # 6.0 fades to 0.75: tier 3
    moves = store.retier(owner, later, POLICY, tiers)
    tiers_now = {
        item.memory.id: item.memory.tier for item in store.find_similar_memories(owner, UNIT, 10)
    }
    # 9 -> 1.125, 8 -> 1.0, 7 -> 0.875, 6 -> 0.75 after 90 days: all sink by attention.
    assert tiers_now == {
        "strong0": Tier.COOL,
        "strong1": Tier.COOL,
        "strong2": Tier.DEEP,
        "strong3": Tier.DEEP,
        "fading": Tier.DEEP,
    }
    assert moves == 5
    assert store.retier(owner, later, POLICY, tiers) == 0


def test_retier_overflow_keeps_the_most_attended(store: Store, owner: str) -> None:
    tiers = TierPolicy(capacities=(2, 10, 100))
    for number, level in enumerate([9.0, 8.0, 7.0, 6.0]):
        add(store, owner, f"m{number}", level=level)
    assert store.retier(owner, START, POLICY, tiers) == 2
    hot = sorted(item.memory.id for item in store.find_similar_memories(owner, UNIT, 10, Tier.HOT))
    assert hot == ["m0", "m1"]
    level = current_attention(attention_of(store, owner, "m3").attention, START, POLICY)
    assert level == pytest.approx(6.0)


def test_wake_results_are_typed(store: Store, owner: str) -> None:
    add(store, owner, "only")
    [item] = store.wake(owner, ["only", "unknown"], START, POLICY, TIERS)
    assert item == Woken(id="only", label="Memory", used=True, short_term_gain=5.0, tier=Tier.HOT)


def test_the_lexical_channel_finds_shared_words_in_both_languages(store: Store, owner: str) -> None:
    texts = {
        "recipe": "Grandma's dumpling recipe uses pork.",
        "bike": "I bought a new bike.",
        "dinner": "Dumplings for dinner tonight!",
        "milk": "我对牛奶过敏。",
    }
    for name, text in texts.items():
        [turn] = store.save_turns(owner, [Turn(id=name, owner=owner, text=text, created_at=START)])
        memory = add(store, owner + "-unused", name)  # a twin owner's memory of the same id
        save(store, owner, turn, [memory.model_copy(update={"owner": owner, "text": text})])
    [deep] = store.save_turns(
        owner, [Turn(id="deep", owner=owner, text="dumplings", created_at=START)]
    )
    save(
        store,
        owner,
        deep,
        [
            add(store, owner + "-x", "deep", tier=Tier.DEEP).model_copy(
                update={"owner": owner, "text": "Dumpling dough rests overnight."}
            )
        ],
    )

    def found(words: list[str], deepest: Tier = Tier.DEEP) -> list[str]:
        hits = store.find_memories_mentioning(owner, dict.fromkeys(words, 1.0), UNIT, 10, deepest)
        assert all(item.similarity == pytest.approx(1.0) for item in hits)
        return sorted(item.memory.id for item in hits)

    assert found(["dumpl"]) == ["deep", "dinner", "recipe"]
    assert found(["dumpl"], Tier.COOL) == ["dinner", "recipe"]
    assert found(["牛奶"]) == ["milk"]
    assert found(["sailb"]) == []
    assert store.find_memories_mentioning(owner + "-other", {"dumpl": 1.0}, UNIT, 10) == []


def test_a_shallow_lexical_search_follows_memories_into_and_out_of_the_hot_tier(
    store: Store, owner: str
) -> None:
    add(store, owner, "deep", level=0.5, tier=Tier.DEEP)
    [turn] = store.save_turns(owner, [Turn(id="kite", owner=owner, text="kite", created_at=START)])
    kite = add(store, owner + "-twin", "kite").model_copy(
        update={"owner": owner, "text": "We flew a kite at the beach.", "tier": Tier.DEEP}
    )
    save(store, owner, turn, [kite])

    def shallow() -> list[str]:
        hits = store.find_memories_mentioning(owner, {"kite": 1.0}, UNIT, 10, Tier.HOT)
        return [item.memory.id for item in hits]

    assert shallow() == []
    store.wake(owner, ["kite"], START, POLICY, TIERS)
    assert shallow() == ["kite"]
    store.retier(owner, START + timedelta(days=60), POLICY, TIERS)
    assert shallow() == []
    assert [
        m.memory.id for m in store.find_memories_mentioning(owner, {"kite": 1.0}, UNIT, 10)
    ] == ["kite"]


def test_concurrent_wakes_lose_no_increment(store: Store, owner: str) -> None:
    for name in ["used", "near"]:
        add(store, owner, name, level=1.0)
    store.link_memories(owner, [related("used", "near", 1.0)])
    later = START + timedelta(hours=1)  # every wake decays to the same moment: gains just add
    wakes = 40
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _: store.wake(owner, ["used"], later, POLICY, TIERS), range(wakes)))
    used = attention_of(store, owner, "used").attention
    near = attention_of(store, owner, "near").attention
    long_decay = 0.5 ** (1 / (30 * 24))
    assert used.long_term == pytest.approx(1.0 * long_decay + wakes * POLICY.use_long_term)
    assert used.short_term == pytest.approx(wakes * POLICY.use_short_term)
    assert near.short_term == pytest.approx(wakes * POLICY.use_short_term * 0.5)
