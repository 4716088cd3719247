"""The embedded store's searches of its indexed graph: by embedding, by content term, nearby.

Each reads the graph as it is (the store holds its lock around the call); the memories found
come without their embeddings, each with its similarity to the query's embedding.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice

import numpy as np

from graphmem.contract import ANY_MEMORY, SEARCHED_KINDS, MemoryFilter
from graphmem.model import Embedding, Link, LinkType, Memory, Tier
from graphmem.similarity import inner_products
from graphmem.store.findings import EvokedCue, Neighbourhood, SimilarMemory
from graphmem.store.networkx_graph import FloatArray, IndexedGraph, NodeKey
from graphmem.store.rules import searched_terms, term_rarity


def searchable(memory: Memory) -> bool:
    """Whether searches find the memory: of SEARCHED_KINDS (not a summary, not a fact)."""
    return memory.kind in SEARCHED_KINDS


def working_memories(
    graph: IndexedGraph, owner: str, embeddings: Sequence[Embedding], size: int
) -> list[list[SimilarMemory]]:
    """For each embedding, the owner's `size` hot memories most similar to it (no turns).

    The working memory in whose light a new item is labelled; one search for many items.
    """
    rows = graph.rows.get(owner)
    hot = [] if rows is None else rows.within(Tier.HOT, Tier.HOT)
    if rows is None or not hot or not embeddings:
        return [[] for _ in embeddings]
    return [
        [
            SimilarMemory(memory=_stored(graph, owner, memory_id), similarity=similarity, turns=[])
            for similarity, memory_id in _best(row, hot, rows.ids, size)
        ]
        for row in rows.similarities(hot, embeddings)
    ]


def similar_memories(
    graph: IndexedGraph,
    owner: str,
    embedding: Embedding,
    limit: int,
    *,
    deepest: Tier,
    shallowest: Tier,
    at_least: float | None,
    where: MemoryFilter,
) -> list[SimilarMemory]:
    """The owner's memories in tiers `shallowest` to `deepest` most similar to an embedding.

    With `at_least`, only those whose similarity is at least that: a recall reading deeper
    tiers asks for no memory less similar than the worst of the `limit` it holds already.
    Only memories `where` admits are found.
    """
    rows = graph.rows.get(owner)
    if rows is None:
        return []
    places = rows.within(shallowest, deepest)
    if where != ANY_MEMORY:
        found_by = _searchable_by(graph, where)
        places = [
            place
            for place in places
            if found_by(_stored(graph, owner, rows.ids[place], embedding=True))
        ]
    if not places:
        return []
    [similarities] = rows.similarities(places, [embedding])
    if at_least is not None:
        kept = np.flatnonzero(similarities >= at_least)
        places, similarities = [places[index] for index in kept.tolist()], similarities[kept]
    best = _best(similarities, places, rows.ids, limit)
    return [
        _found(graph, _stored(graph, owner, memory_id, embedding=True), similarity)
        for similarity, memory_id in best
    ]


def memories_mentioning(
    graph: IndexedGraph,
    owner: str,
    terms: Mapping[str, float],
    embedding: Embedding,
    limit: int,
    *,
    deepest: Tier,
    where: MemoryFilter,
) -> list[SimilarMemory]:
    """The owner's memories down to `deepest` best matching these weighted content terms.

    Terms are those of graphmem.terms, each with the query's weight for it; each memory
    comes with its similarity to the embedding. Ranked by the sum, over the terms a memory
    holds, of weight times the term's rarity among all the owner's memories (term_rarity);
    ties by similarity, then id, so that the owner's name (in every id) decides nothing.
    Only the first MAX_SEARCH_TERMS terms are searched; only memories `where` admits found.
    """
    searched = searched_terms(terms)
    found_by = _searchable_by(graph, where)
    index = graph.mentions.get(owner, {})
    memories = len(graph.ids.get((owner, "Memory"), {}))
    matched: dict[str, float] = {}
    for term, weight in sorted(searched.items()):  # one order, so sums are the same
        holding = index.get(term, set())
        value = weight * term_rarity(len(holding), memories)
        for memory_id in holding:
            matched[memory_id] = matched.get(memory_id, 0.0) + value
    found = [
        memory
        for memory_id in matched
        if isinstance(memory := graph.node(owner, "Memory", memory_id), Memory)
        and memory.tier <= deepest
        and found_by(memory)
    ]
    # Similarity only decides among equal matches: read it for those that can make the cut,
    # not for every memory holding a common word.
    ranked = sorted(found, key=lambda memory: -matched[memory.id])
    floor = matched[ranked[limit - 1].id] if len(ranked) > limit else 0.0
    contenders = [memory for memory in ranked if matched[memory.id] >= floor]
    similarity: dict[str, float] = {}
    _measure(graph, contenders, embedding, similarity)
    best = sorted(
        contenders,
        key=lambda memory: (-matched[memory.id], -similarity[memory.id], memory.id),
    )
    return [_found(graph, memory, similarity[memory.id]) for memory in best[:limit]]


def neighbourhood(
    graph: IndexedGraph,
    owner: str,
    ids: Sequence[str],
    embedding: Embedding,
    *,
    window: int,
    links: int,
    deepest: Tier,
    known: Sequence[str],
    evoked: Sequence[str],
    where: MemoryFilter,
) -> Neighbourhood:
    """Memories next to the given ones, where association spreads relevance, and the edges.

    Those FROM the turns within `window` positions of theirs in the same session, and
    the `links` most strongly linked to each by RELATED, CAUSES or PART_OF either way, or
    through an event both are PART_OF (strength 1; ties by similarity to the embedding,
    then id), and the `links` cues of each `evoked` impression (by id) that gave it the
    most belief (ties: the latest, then id; cues stored without their belief left out); in
    tiers down to `deepest`; each with its similarity to the embedding; the given and the
    `known` ones left out. With them, the edges among the given, known and found memories,
    and those cues, known ones included (one read for all). Only memories `where` admits
    are found, as neighbours or cues.
    """
    found_by = _searchable_by(graph, where)
    given = set(ids)
    found: dict[str, Memory] = {}
    similarity: dict[str, float] = {}  # to the embedding, each memory's read once
    mates = _EventMates(
        graph,
        owner,
        embedding=embedding,
        similarity=similarity,
        admits=lambda memory: memory.tier <= deepest and found_by(memory),
    )
    for memory_id in dict.fromkeys(ids):
        memory = graph.node(owner, "Memory", memory_id)
        if not isinstance(memory, Memory):
            continue
        for turn in graph.turns_of(memory):
            assert turn.position is not None
            session = graph.sessions[(owner, turn.session)]
            low = max(turn.position - window, 0)
            for turn_id in session[low : turn.position + window + 1]:
                for other in graph.memories_from(owner, turn_id):
                    found.setdefault(other.id, other)
        strongest: dict[str, tuple[float, Memory]] = {}
        for linked, weight in _linked(graph, owner, memory_id, mates, given=given, links=links):
            if (
                linked.id not in given
                and linked.tier <= deepest
                and found_by(linked)
                and weight > strongest.get(linked.id, (-1.0, linked))[0]
            ):
                strongest[linked.id] = (weight, linked)
        candidates = [linked for _weight, linked in strongest.values()]
        _measure(graph, candidates, embedding, similarity)
        ranked = sorted(
            strongest.values(),
            key=lambda pair: (-pair[0], -similarity[pair[1].id], pair[1].id),
        )
        for _weight, linked in ranked[:links]:
            found.setdefault(linked.id, linked)
    cues = _strongest_cues(graph, owner, evoked, limit=links, deepest=deepest, found_by=found_by)
    for cue in cues:
        memory = graph.node(owner, "Memory", cue.memory)
        if isinstance(memory, Memory) and memory.id not in given:
            found.setdefault(memory.id, memory)
    left_out = given.union(known)
    memories = sorted(
        (
            memory
            for memory in found.values()
            if memory.id not in left_out and memory.tier <= deepest and found_by(memory)
        ),
        key=lambda memory: memory.id,
    )
    _measure(graph, memories, embedding, similarity)
    return Neighbourhood(
        memories=[_found(graph, memory, similarity[memory.id]) for memory in memories],
        links=_links_among(graph, owner, left_out.union(memory.id for memory in memories)),
        cues=cues,
    )


def _strongest_cues(
    graph: IndexedGraph,
    owner: str,
    evoked: Sequence[str],
    *,
    limit: int,
    deepest: Tier,
    found_by: Callable[[Memory], bool],
) -> list[EvokedCue]:
    """The `limit` cues of each impression that gave it the most belief, in tiers to `deepest`.

    Only memories that `found_by` finds are cues.

    Ties go to the latest cue, then the smaller id; cues without their belief are left out.
    """
    cues = []
    for impression_id in dict.fromkeys(evoked):
        key: NodeKey = (owner, "Impression", impression_id)
        if key not in graph:
            continue
        impression = graph.at(key).model_copy(update={"embedding": []})
        held: list[tuple[float, Memory]] = []
        for _source, target, edge_type, link in graph.outgoing(key):
            memory = graph.at(target)
            if (
                edge_type == LinkType.INFERRED_FROM.value
                and link.belief is not None
                and memory.tier <= deepest
                and found_by(memory)
            ):
                held.append((link.belief, memory))
        held.sort(key=lambda pair: (-pair[0], -pair[1].created_at.timestamp(), pair[1].id))
        cues += [
            EvokedCue(impression=impression, memory=memory.id, belief=belief)
            for belief, memory in held[:limit]
        ]
    return sorted(cues, key=lambda cue: (cue.impression.id, cue.memory))


def _searchable_by(graph: IndexedGraph, where: MemoryFilter) -> Callable[[Memory], bool]:
    """Whether a search that `where` filters finds a memory (searchable, and admitted)."""
    if where == ANY_MEMORY:
        return searchable
    return lambda memory: searchable(memory) and where.admits(memory, graph.turns_of)


def _links_among(graph: IndexedGraph, owner: str, ids: set[str]) -> list[Link]:
    """The edges between the given memories, ordered by type, source and target."""
    keys = {(owner, "Memory", memory_id) for memory_id in ids}
    links: list[Link] = [
        link
        for key in keys
        if key in graph
        for _source, target, _edge_type, link in graph.outgoing(key)
        if target in keys
    ]
    return sorted(links, key=lambda link: (link.type.value, link.source, link.target))


def _linked(
    graph: IndexedGraph,
    owner: str,
    memory_id: str,
    mates: "_EventMates",
    *,
    given: set[str],
    links: int,
) -> list[tuple[Memory, float]]:
    """A memory's neighbours along wake-up edges, and the event mates (strength 1) it can take.

    Every mate has the same strength, so of an event's mates ranked by similarity, then id (the
    order association takes them in), only the first `links` not `given` can make the cut.
    """
    linked: list[tuple[Memory, float]] = []
    for (other_id, label), weight in graph.wake_neighbours(owner, (memory_id, "Memory")):
        if label == "Event":
            taken = islice((mate for mate in mates.of(other_id) if mate.id not in given), links)
            linked += [(mate, 1.0) for mate in taken]
        elif isinstance(other := graph.node(owner, label, other_id), Memory):
            linked.append((other, weight))
    return linked


class _EventMates:
    """The memories of an owner's events that one search finds, each event read once.

    Most similar to the query first, ties by id. A search's seeds often share an event, and an
    event grows with memory: read per seed, its memories would be read again for each.
    """

    def __init__(
        self,
        graph: IndexedGraph,
        owner: str,
        *,
        embedding: Embedding,
        similarity: dict[str, float],
        admits: Callable[[Memory], bool],
    ) -> None:
        self._graph = graph
        self._owner = owner
        self._embedding = embedding
        self._similarity = similarity
        self._admits = admits
        self._members: dict[str, list[Memory]] = {}

    def of(self, event_id: str) -> list[Memory]:
        """The event's memories that the search admits, most similar first."""
        if event_id not in self._members:
            members = [
                memory
                for source, _target, edge_type, _link in self._graph.incoming(
                    (self._owner, "Event", event_id)
                )
                if edge_type == LinkType.PART_OF.value
                and isinstance(memory := self._graph.at(source), Memory)
                and self._admits(memory)
            ]
            _measure(self._graph, members, self._embedding, self._similarity)
            self._members[event_id] = sorted(
                members, key=lambda memory: (-self._similarity[memory.id], memory.id)
            )
        return self._members[event_id]


def _measure(
    graph: IndexedGraph,
    memories: Sequence[Memory],
    embedding: Embedding,
    similarity: dict[str, float],
) -> None:
    """Add to `similarity` each memory's similarity to the embedding that it lacks."""
    unmeasured = [memory for memory in memories if memory.id not in similarity]
    similarity.update(
        zip(
            (memory.id for memory in unmeasured),
            _similarities(graph, unmeasured, embedding),
            strict=True,
        )
    )


def _similarities(
    graph: IndexedGraph, memories: Sequence[Memory], embedding: Embedding
) -> list[float]:
    """The cosine similarity of each stored memory's embedding to an embedding."""
    if not memories:
        return []
    similarities: list[float] = _similarity_matrix(graph, memories, [embedding])[0].tolist()
    return similarities


def _similarity_matrix(
    graph: IndexedGraph, memories: Sequence[Memory], embeddings: Sequence[Embedding]
) -> FloatArray:
    """For each embedding (a row), the cosine similarity of each stored memory's to it."""
    matrix = np.stack([graph.searched(memory)[0] for memory in memories])
    queries = np.array(embeddings, dtype=np.float64)
    norms = np.outer(np.linalg.norm(queries, axis=1), np.linalg.norm(matrix, axis=1))
    similarities: FloatArray = inner_products(queries, matrix) / np.where(norms == 0.0, 1.0, norms)
    return similarities


def _best(
    similarities: FloatArray, rows: list[int], ids: list[str], limit: int
) -> list[tuple[float, str]]:
    """The `limit` most similar (similarity, id) of the rows (ids[row]), ties by id.

    numpy finds those that can be among them: the `limit` best and every tie of the last.
    """
    found: Iterable[int] = range(len(rows))
    if len(rows) > limit:
        cut = np.partition(similarities, -limit)[-limit]
        found = np.flatnonzero(similarities >= cut).tolist()
    ranked = sorted(found, key=lambda index: (-similarities[index], ids[rows[index]]))[:limit]
    return [(float(similarities[index]), ids[rows[index]]) for index in ranked]


def _stored(graph: IndexedGraph, owner: str, memory_id: str, *, embedding: bool = False) -> Memory:
    """A stored memory by id: as stored, or (by default) without its embedding."""
    memory = graph.node(owner, "Memory", memory_id)
    assert isinstance(memory, Memory)
    return memory if embedding else graph.searched(memory)[1]


def _found(graph: IndexedGraph, memory: Memory, similarity: float) -> SimilarMemory:
    """A search result: the memory without its embedding, its similarity and its turns."""
    return SimilarMemory(
        memory=graph.searched(memory)[1], similarity=similarity, turns=graph.turns_of(memory)
    )
