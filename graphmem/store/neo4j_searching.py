"""The Neo4j store's searches, by similarity, terms and association, and the wake of a recall.

The lexical search asks Lucene (the fulltext indexes over the memories' `terms`) with one clause
a term, each scoring the term's weight times its rarity among the owner's memories.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.contract import ANY_MEMORY, MemoryFilter, Woken
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Embedding, Link, Tier
from graphmem.store.findings import EvokedCue, Neighbourhood, SimilarMemory
from graphmem.store.neo4j_connection import Neo4jConnection
from graphmem.store.neo4j_properties import half_lives, impression_from, memory_from, turn_from
from graphmem.store.neo4j_statements import load_statement
from graphmem.store.rules import RARITY_COUNT, searched_terms, term_rarity

VECTOR_FETCH = 400
"""Nearest neighbours asked of the vector index per similarity search, of which the best `limit`
are kept: the index's graph search is approximate over many memories; asked for 400 (and
exploring four times that, schema.cypher), it finds 99% of the true best 20 of an owner with
10^5 memories among 2 x 10^5, against 97% when asked for 200 (measured when 0.1.0 chose it)."""


def lucene_clause(term: str, boost: float) -> str:
    """A Lucene clause for memories holding a content term (graphmem.terms), scoring `boost`.

    The term is matched whole among a memory's `terms` (the index's whitespace analyzer keeps
    them as written) by a regular expression that is the term itself: Lucene scores such a
    match by its boost alone, however often the term occurs. graphmem.terms yields only
    letters, digits, apostrophes and Han characters, none of them regular-expression or Lucene
    syntax, so nothing needs escaping.
    """
    return f"terms:/{term}/^{boost:.6f}"


def lucene_search(owner: str, clauses: Sequence[str]) -> str:
    """A Lucene query for one owner's memories matching any of the clauses.

    Owners are checked to hold no Lucene syntax (letters, digits and marks of any script and
    _ . : @ -, none of them special in a quoted phrase, nor a space, so the whitespace analyzer
    keeps an owner whole), so nothing needs escaping; the owner is matched again exactly after
    Lucene. The owner's clause adds the same score to every memory of the owner.
    """
    return f'owner:"{owner}" AND ({" OR ".join(clauses)})'


def _similar_from(found: Mapping[str, Any]) -> SimilarMemory:
    """A found memory from a map with memory, similarity and turns."""
    return SimilarMemory(
        memory=memory_from(found["memory"]),
        similarity=found["similarity"],
        turns=[turn_from(turn) for turn in found["turns"]],
    )


class Neo4jSearching(Neo4jConnection):
    """The Neo4j store's searches for memories, and the wake of those a recall used."""

    def find_similar_memories(
        self,
        owner: str,
        embedding: Embedding,
        limit: int,
        deepest: Tier = Tier.DEEP,
        *,
        shallowest: Tier = Tier.HOT,
        at_least: float | None = None,
        where: MemoryFilter = ANY_MEMORY,
    ) -> list[SimilarMemory]:
        """The owner's memories in tiers `shallowest` to `deepest` most similar to an embedding.

        With `at_least`, only those whose similarity is at least that: a recall reading deeper
        tiers asks for no memory less similar than the worst of the `limit` it holds already.
        Only memories `where` admits are found: the vector index cannot apply such a filter,
        so a filtered search compares the memories it admits one by one (exact).
        """
        parameters = {
            "owner": owner,
            "embedding": embedding,
            "limit": limit,
            "shallowest": int(shallowest),
            "deepest": int(deepest),
            "at_least": at_least,
        }
        if where == ANY_MEMORY:
            return self._find(
                "find_similar_memories", parameters | {"fetch": max(limit, VECTOR_FETCH)}
            )
        return self._find("find_similar_memories_where", parameters | where.parameters())

    def working_memories(
        self, owner: str, embeddings: Sequence[Embedding], size: int
    ) -> list[list[SimilarMemory]]:
        """For each embedding, the owner's `size` hot memories most similar to it (no turns).

        The working memory in whose light a new item is labelled; one search for many items.
        """
        if not embeddings:
            return []
        rows = self._run(
            load_statement("working_memories"),
            {
                "owner": owner,
                "embeddings": list(embeddings),
                "size": size,
                "fetch": max(size, VECTOR_FETCH),
            },
            read=True,
        )
        return [
            [
                SimilarMemory(
                    memory=memory_from(found["memory"]),
                    similarity=found["similarity"],
                    turns=[],
                )
                for found in row["found"]
            ]
            for row in rows
        ]

    def find_memories_mentioning(
        self,
        owner: str,
        terms: Mapping[str, float],
        embedding: Embedding,
        limit: int,
        deepest: Tier = Tier.DEEP,
        *,
        where: MemoryFilter = ANY_MEMORY,
    ) -> list[SimilarMemory]:
        """The owner's memories down to `deepest` best matching these weighted content terms.

        Terms are those of graphmem.terms, each with the query's weight for it; each memory
        comes with its similarity to the embedding. Ranked by the sum, over the terms a memory
        holds, of weight times the term's rarity among all the owner's memories (term_rarity;
        two reads: the counts, then Lucene with each term's clause scoring that product); ties
        by similarity, then id, so that the owner's name (in every id) decides nothing. Only
        the first MAX_SEARCH_TERMS terms are searched. Only memories `where` admits are found:
        a filtered search asks Lucene for every hit, not 4 x `limit`.
        """
        searched = searched_terms(terms)
        if not searched:
            return []
        [counts] = self._run(
            load_statement("count_memories_holding"),
            {
                "owner": owner,
                "searches": [
                    {"term": term, "search": lucene_search(owner, [lucene_clause(term, 1.0)])}
                    for term in searched
                ],
                "cap": RARITY_COUNT,
            },
            read=True,
        )
        holding = {row["term"]: row["holding"] for row in counts["holding"]}
        boosts = {
            term: weight * term_rarity(holding[term], counts["memories"])
            for term, weight in searched.items()
        }
        return self._find(
            "find_memories_mentioning",
            {
                "owner": owner,
                "index": "hot_memory_terms" if deepest == Tier.HOT else "memory_terms",
                "search": lucene_search(
                    owner, [lucene_clause(term, boost) for term, boost in boosts.items()]
                ),
                "embedding": embedding,
                "limit": limit,
                "options": {"limit": 4 * limit} if where == ANY_MEMORY else {},
                "deepest": int(deepest),
            }
            | where.parameters(),
        )

    def find_neighbours(
        self,
        owner: str,
        ids: Sequence[str],
        embedding: Embedding,
        *,
        window: int,
        links: int,
        deepest: Tier = Tier.DEEP,
        known: Sequence[str] = (),
        evoked: Sequence[str] = (),
        where: MemoryFilter = ANY_MEMORY,
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
        are found, as neighbours or cues (before the strongest are taken).
        """
        [row] = self._run(
            load_statement("find_neighbours"),
            {
                "owner": owner,
                "ids": list(ids),
                "known": list(known),
                "evoked": list(evoked),
                "embedding": embedding,
                "window": window,
                "links": links,
                "deepest": int(deepest),
            }
            | where.parameters(),
            read=True,
        )
        return Neighbourhood(
            memories=[_similar_from(found) for found in row["found"]],
            links=[
                Link(
                    type=kind, source=source, target=target, weight=weight, sufficiency=sufficiency
                )
                for kind, source, target, weight, sufficiency in row["links"]
            ],
            cues=[
                EvokedCue(
                    impression=impression_from(cue["impression"]),
                    memory=cue["memory"],
                    belief=cue["belief"],
                )
                for cue in row["cues"]
            ],
        )

    def wake(
        self,
        owner: str,
        used: Sequence[str],
        now: datetime,
        attention: AttentionPolicy,
        tiers: TierPolicy,
    ) -> list[Woken]:
        """Use memories and wake their neighbours (mechanisms.attention), all at once."""
        [row] = self._write(
            owner,
            load_statement("wake"),
            {
                "owner": owner,
                "ids": list(dict.fromkeys(used)),
                "now": now,
                "long_gain": attention.use_long_term,
                "short_gain": attention.use_short_term,
                "per_hop": attention.spread_per_hop,
                "hops": attention.spread_hops,
                "fan_out": attention.spread_fan_out,
                "min_gain": attention.spread_min_gain,
                **half_lives(attention),
                "floors": list(tiers.floors),
            },
        )
        return [Woken.model_validate(item) for item in row["woken"]]

    def _find(self, name: str, parameters: dict[str, Any]) -> list[SimilarMemory]:
        """Run a search of cypher/<name>.cypher, whose one record lists the memories found."""
        [row] = self._run(load_statement(name), parameters, read=True)
        return [_similar_from(found) for found in row["found"]]
