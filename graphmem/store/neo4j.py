"""The Neo4j store: maps the model to flat node properties and runs the statements in cypher/.

One piece, though long: it is the one module that speaks to the driver (neo4j is imported here
only), and each verb is short, one statement of cypher/ with the parameters it builds and the
rows it reads back; the node properties below are the names those statements read and write,
so a verb, its statement and its mapping are read and checked together. Preparing the schema,
and giving the memories of a database an older graphmem wrote the `terms` they now carry, is a
few statements run the same way. In order: loading cypher/; the model as node properties and
back; the statements' parameters and rows; the Lucene queries of the lexical search; the store:
its verbs, then running statements (transactions under the owner's write lock, the traffic
counted, each statement in a `graphmem.telemetry.traced_statement` block named after its file,
driver errors as graphmem's).
"""

import functools
import logging
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, LiteralString, TypeVar, cast

import neo4j
import neo4j.exceptions
from pydantic import SecretStr

from graphmem.errors import ConfigurationError, StoreError, StoreUnavailableError
from graphmem.keys import ApiKey
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy, Settlement
from graphmem.mechanisms.impressions import Cue, ImpressionPolicy
from graphmem.mechanisms.profile import (
    ConjecturedImpression,
    EventNews,
    ProfileSources,
    SlotFact,
)
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import (
    Attention,
    Embedding,
    Event,
    Impression,
    Link,
    LinkType,
    Memory,
    Node,
    Tier,
    Turn,
)
from graphmem.store.base import (
    ANY_MEMORY,
    RARITY_COUNT,
    Cause,
    Derivation,
    EventTrail,
    EvokedCue,
    Forgetting,
    GraphCounts,
    HealthCounts,
    ImpressionTrail,
    MemoryFilter,
    Neighbourhood,
    OwnerClaim,
    OwnerGraph,
    Provenance,
    SimilarMemory,
    Sourced,
    StoreTraffic,
    SummaryChange,
    Tombstone,
    UpdateTrail,
    Woken,
    belief_bin,
    check_nodes,
    check_tombstones,
    searched_terms,
    term_rarity,
    tombstone_hash,
)
from graphmem.telemetry import traced_statement
from graphmem.terms import terms as content_terms

Done = TypeVar("Done")
"""What a transaction's work returns."""

log = logging.getLogger("graphmem")


# -- the statements in cypher/ ---------------------------------------------------------------------


def cypher_directory() -> Traversable:
    """Where the .cypher files are: inside the installed wheel, else at the checkout's top level."""
    packaged = resources.files("graphmem") / "cypher"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "cypher"


_statement_names: dict[str, str] = {}
"""The file each statement loaded came from, which names its telemetry: `statement_name`."""


@functools.cache
def load_statements(name: str) -> tuple[LiteralString, ...]:
    """The statements of cypher/<name>.cypher, without the header comment, split at semicolons."""
    text = (cypher_directory() / f"{name}.cypher").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    parts = [part.strip() for part in re.split(r";\s*$", body, flags=re.MULTILINE)]
    # The files are part of the package, never built from input: they are literal query text.
    statements = tuple(cast(LiteralString, statement) for statement in parts if statement)
    _statement_names.update(dict.fromkeys(statements, name))
    return statements


def statement_name(statement: str) -> str:
    """The name of the cypher/ file a statement was loaded from (its text is never reported)."""
    return _statement_names.get(statement, "statement")


def load_statement(name: str) -> LiteralString:
    """The single statement of cypher/<name>.cypher."""
    statements = load_statements(name)
    if len(statements) != 1:
        raise StoreError(f"cypher/{name}.cypher holds {len(statements)} statements, not one")
    return statements[0]


# -- the model as flat node properties, and back ---------------------------------------------------


ATTENTION_PROPERTIES = {
    "long_term": "attention_long_term",
    "long_term_at": "attention_long_term_at",
    "short_term": "attention_short_term",
    "short_term_at": "attention_short_term_at",
}
"""Attention is flattened into these node properties so Browser shows each part by name."""


def _native(value: Any) -> Any:
    """Turn driver temporal values into Python ones; leave the rest alone."""
    return value.to_native() if hasattr(value, "to_native") else value


def _key_from(properties: Mapping[str, Any]) -> ApiKey:
    """An API key from its node properties."""
    return ApiKey.model_validate({key: _native(value) for key, value in properties.items()})


def _turn_row(turn: Turn) -> dict[str, Any]:
    """Node properties of a turn; each mark exists only while true (its index holds only those)."""
    row = turn.model_dump()
    row["pending"] = True if turn.pending else None
    row["awaiting_summary"] = True if turn.awaiting_summary else None
    return row


def _saved_turn_row(turn: Turn) -> dict[str, Any]:
    """A row of save_turns.cypher: the turn's node properties and the hash of its tombstone."""
    return {"turn": _turn_row(turn), "tombstone": tombstone_hash(turn.id)}


def _turn_from(properties: Mapping[str, Any]) -> Turn:
    """A turn from its node properties."""
    return Turn.model_validate({key: _native(value) for key, value in properties.items()})


def _memory_row(memory: Memory) -> dict[str, Any]:
    """Node properties of a memory: attention flattened, enums as values, marks while true.

    With them `terms`, the content terms of its text (graphmem.terms) in one text, which the
    fulltext indexes read: the lexical channel matches the same terms as the embedded store's.
    """
    row = memory.model_dump(exclude={"attention"})
    row["kind"] = memory.kind.value
    row["tier"] = int(memory.tier)
    row["awaiting_consolidation"] = True if memory.awaiting_consolidation else None
    row["offline"] = True if memory.offline else None
    row["terms"] = indexed_terms(memory.text)
    row.update(_attention_row(memory.attention))
    return row


def indexed_terms(text: str) -> str:
    """A memory text's content terms as the fulltext indexes hold them: sorted, one space apart."""
    return " ".join(sorted(content_terms(text)))


def _memory_from(properties: Mapping[str, Any]) -> Memory:
    """A memory from its node properties (a summary's have no embedding; terms are left out)."""
    data = {key: value for key, value in properties.items() if key != "terms"}
    return Memory.model_validate({"embedding": None, **_unflattened(data)})


def _event_row(event: Event) -> dict[str, Any]:
    """Node properties of an event: attention flattened, the tier as its number."""
    row = event.model_dump(exclude={"attention"})
    row["tier"] = int(event.tier)
    row.update(_attention_row(event.attention))
    return row


def _event_from(properties: Mapping[str, Any]) -> Event:
    """An event from its node properties."""
    return Event.model_validate(_unflattened(properties))


def _impression_row(impression: Impression) -> dict[str, Any]:
    """Node properties of an impression."""
    return impression.model_dump()


def _impression_from(properties: Mapping[str, Any]) -> Impression:
    """An impression from its node properties."""
    return Impression.model_validate({key: _native(value) for key, value in properties.items()})


def _attention_row(attention: Attention) -> dict[str, Any]:
    """Attention as the flat node properties of ATTENTION_PROPERTIES."""
    return {name: getattr(attention, part) for part, name in ATTENTION_PROPERTIES.items()}


def _unflattened(properties: Mapping[str, Any]) -> dict[str, Any]:
    """Model data from node properties: temporal values native, attention gathered again."""
    data = {key: _native(value) for key, value in properties.items()}
    data["attention"] = Attention.model_validate(
        {part: data.pop(name) for part, name in ATTENTION_PROPERTIES.items()}
    )
    return data


NODE_READERS: dict[str, Callable[[Mapping[str, Any]], Node]] = {
    "Turn": _turn_from,
    "Memory": _memory_from,
    "Event": _event_from,
    "Impression": _impression_from,
}
"""How each label's node properties become a model."""


# -- the statements' parameters and rows -----------------------------------------------------------


def _summary_parameters(owner: str, change: SummaryChange) -> dict[str, Any]:
    """The parameters of save_summary.cypher for one summary and its events."""
    return {
        "owner": owner,
        "summary": _memory_row(change.summary),
        "turns": list(change.turns),
        "events": [
            {
                "event": _event_row(event.event),
                "previous": event.previous,
                "members": list(event.members),
            }
            for event in change.events
        ],
        "facts": [{"fact": _memory_row(item.fact), "turn": item.turn} for item in change.facts],
    }


def _half_lives(policy: AttentionPolicy) -> dict[str, float]:
    """The attention half-lives in seconds, as the wake and re-tier statements take them."""
    return {
        "long_half_life": policy.long_term_half_life.total_seconds(),
        "short_half_life": policy.short_term_half_life.total_seconds(),
    }


def _sourced_from(item: Mapping[str, Any]) -> Sourced:
    """A memory with its turns from a map of memory and turns."""
    return Sourced(
        memory=_memory_from(item["memory"]), turns=[_turn_from(turn) for turn in item["turns"]]
    )


def _provenance_from(row: Mapping[str, Any]) -> Provenance:
    """A turn's provenance from the row of cypher/turn_provenance.cypher."""
    return Provenance(
        turn=_turn_from(row["turn"]),
        memories=[_sourced_from(item) for item in row["memories"]],
        impressions=[
            ImpressionTrail(
                impression=_impression_from(item["impression"]),
                cues=[
                    Cue.model_validate({key: _native(value) for key, value in cue.items()})
                    for cue in item["cues"]
                ],
                conjectures=[_memory_from(memory) for memory in item["conjectures"]],
            )
            for item in row["impressions"]
        ],
        events=[
            EventTrail(
                event=_event_from(item["event"]),
                developments=[_sourced_from(summary) for summary in item["developments"]],
                members=item["members"],
                previous=item["previous"],
                following=item["following"],
            )
            for item in row["events"]
        ],
        updates=[
            UpdateTrail(
                memory=_memory_from(item["memory"]),
                newer=[(memory_id, _native(at)) for memory_id, at in item["newer"]],
                older=item["older"],
            )
            for item in row["updates"]
        ],
    )


def _similar_from(found: Mapping[str, Any]) -> SimilarMemory:
    """A found memory from a map with memory, similarity and turns."""
    return SimilarMemory(
        memory=_memory_from(found["memory"]),
        similarity=found["similarity"],
        turns=[_turn_from(turn) for turn in found["turns"]],
    )


def _labelled_link_from(values: Sequence[Any]) -> tuple[str, str, Link]:
    """An edge with its end labels from [type, source, target, weight, sufficiency, belief, …]."""
    kind, source, target, weight, sufficiency, belief, source_label, target_label = values
    link = Link(
        type=kind,
        source=source,
        target=target,
        weight=weight,
        sufficiency=sufficiency,
        belief=belief,
    )
    return source_label, target_label, link


def _rows(result: neo4j.Result) -> list[dict[str, Any]]:
    """A result's records as dicts of their values as decoded.

    Every statement returns maps, lists and values, never nodes, and Record.data() would walk
    each nested value again in Python (a third of a recall's time).
    """
    keys = result.keys()
    return [dict(zip(keys, record, strict=True)) for record in result]


# -- the lexical search in Lucene ------------------------------------------------------------------


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


# -- the store -------------------------------------------------------------------------------------


TERMS_BATCH = 5_000
"""Memories given their terms in one transaction when an older graphmem's database is prepared."""

INDEX_WAIT = 300
"""Seconds `prepare` waits for the indexes to come online."""

VECTOR_FETCH = 400
"""Nearest neighbours asked of the vector index per similarity search, of which the best `limit`
are kept: the index's graph search is approximate over many memories; asked for 400 (and
exploring four times that, schema.cypher), it finds 99% of the true best 20 of an owner with
10^5 memories among 2 x 10^5, against 97% when asked for 200 (measured when 0.1.0 chose it)."""


HOW_TO_START_NEO4J = (
    "start Neo4j (`scripts/neo4j start` in a graphmem checkout, or `docker compose up -d --wait`"
    " beside its docker-compose.yml: docs/neo4j.md) or set GRAPHMEM_NEO4J_URI to the Bolt address"
    " of a running server"
)
"""What to do when Neo4j cannot be reached."""


def _not_a_bolt_address(uri: str, reason: Exception) -> str:
    """The message for a URI the driver cannot use, naming the forms of a Bolt address."""
    return (
        f"the Neo4j URI {uri!r} is not a Bolt address ({reason}); set GRAPHMEM_NEO4J_URI to the"
        " server's Bolt address, such as bolt://127.0.0.1:7687, or neo4j://HOST:7687 for a"
        " cluster (http://HOST:7474 is Neo4j Browser's)"
    )


class Neo4jStore:
    """The store on a Neo4j server, reached over Bolt; every statement comes from cypher/."""

    def __init__(self, driver: neo4j.Driver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._counting = threading.Lock()
        self._transactions = 0
        self._statements = 0

    @classmethod
    def connect(cls, uri: str, user: str, password: SecretStr, database: str) -> "Neo4jStore":
        """Connect to the server at `uri` and check that it answers and accepts the credentials.

        A URI that is not a Bolt address raises a ConfigurationError, a server that cannot be
        reached a StoreUnavailableError; each says what to do.
        """
        try:
            driver = neo4j.GraphDatabase.driver(
                uri,
                auth=(user, password.get_secret_value()),
                # Properties such as `sufficiency` exist only once an edge has one: not a problem.
                notifications_disabled_categories=["UNRECOGNIZED"],
            )
        except (neo4j.exceptions.ConfigurationError, ValueError) as error:  # "http://..."
            raise ConfigurationError(_not_a_bolt_address(uri, error)) from error
        store = cls(driver, database)
        try:
            with store._translated_errors():
                store._verify_connectivity(uri)
        except BaseException:
            driver.close()
            raise
        return store

    def _verify_connectivity(self, uri: str) -> None:
        """Check that the server at `uri` answers, saying what to do if it cannot be reached."""
        try:
            self._driver.verify_connectivity()
        except neo4j.exceptions.ServiceUnavailable as error:
            raise StoreUnavailableError(
                f"Neo4j could not be reached: {error} (GRAPHMEM_NEO4J_URI is {uri});"
                f" {HOW_TO_START_NEO4J}"
            ) from error
        except ValueError as error:  # a host or port that does not resolve
            raise ConfigurationError(_not_a_bolt_address(uri, error)) from error

    # -- the verbs ---------------------------------------------------------------------------

    def prepare(self, dimensions: int) -> None:
        """Create constraints and indexes if missing; check the vector index size; wait for all.

        A database that an older graphmem wrote (its fulltext index memory_text still there)
        first has its memories given their terms (_add_memory_terms).
        """
        [older] = self._run(load_statement("index_exists"), {"name": "memory_text"}, read=True)
        if older["exists"]:
            self._add_memory_terms()
        for statement in load_statements("schema"):
            self._run(statement, {"dimensions": dimensions})
        rows = self._run(load_statement("vector_index_dimensions"), {})
        if rows and rows[0]["dimensions"] != dimensions:
            raise ConfigurationError(
                f"the Neo4j vector index holds {rows[0]['dimensions']}-dimensional embeddings"
                f" but the embedder makes {dimensions}; use the same embedder or a new database"
            )
        try:
            self._run(load_statement("await_indexes"), {"seconds": INDEX_WAIT})
        except StoreError as error:
            raise StoreError(
                f"the Neo4j indexes are not online after {INDEX_WAIT} s (being built over the"
                " memories already stored: the vector index memory_vectors takes about 40 minutes"
                f" a million on two cores); open the store again later ({error})"
            ) from error

    def _add_memory_terms(self) -> None:
        """Give every memory stored without `terms` its terms, TERMS_BATCH a transaction.

        An interrupted run loses nothing: the schema's statements, which drop the older fulltext
        indexes, run only after it, so the next `prepare` goes on where it stopped.
        """
        done = 0
        while rows := self._run(
            load_statement("memories_without_terms"), {"batch": TERMS_BATCH}, read=True
        ):
            self._run(
                load_statement("add_memory_terms"),
                {
                    "rows": [
                        {
                            "owner": row["owner"],
                            "id": row["id"],
                            "terms": indexed_terms(row["text"]),
                        }
                        for row in rows
                    ]
                },
            )
            done += len(rows)
            log.info("gave %d memories stored by an older graphmem their terms", done)

    def save_turns(
        self, owner: str, turns: Sequence[Turn], *, readmit_forgotten: bool = False
    ) -> list[Turn]:
        """Store the owner's turns in order, each unless one with its id is stored; return them.

        One transaction. Returns, in input order, the stored turn of each: the new one, or the
        one already there (a turn never changes once stored). A turn whose id has a tombstone
        (a message the owner forgot) is neither stored nor returned, unless `readmit_forgotten`:
        then the turns' tombstones are deleted first, in the same transaction, and they are
        stored.
        """
        check_nodes(owner, turns)
        if not turns:
            return []
        statements = [
            (
                load_statement("save_turns"),
                {"owner": owner, "rows": [_saved_turn_row(turn) for turn in turns]},
            )
        ]
        if readmit_forgotten:
            hashes = [tombstone_hash(turn.id) for turn in turns]
            statements.insert(
                0, (load_statement("delete_tombstones"), {"owner": owner, "hashes": hashes})
            )
        rows = self._write_together(owner, statements)[-1]
        return [_turn_from(row["turn"]) for row in rows]

    def save_memories(
        self,
        owner: str,
        derivations: Sequence[Derivation],
        policy: ImpressionPolicy | None = None,
    ) -> list[list[Memory]]:
        """Store what turns gave, in order, in one transaction; clear the turns' pending marks.

        Each turn's memories come FROM it; edges whose ends are not stored are skipped (an edge
        may name a memory of an earlier derivation of the same call); memories already stored
        are kept as they are. While a turn is pending, each of its impressions accumulates on
        the owner's impression of its statement (INFERRED_FROM the turn's memories), and those
        that cross the threshold make their conjecture (INFERRED_FROM the impression). Returns
        the conjectures made, a list per derivation. `policy` (default ImpressionPolicy()) sets
        the threshold. StoreError if a turn is not stored (then nothing is).
        """
        check_nodes(owner, [node for derivation in derivations for node in derivation.nodes])
        if not derivations:
            return []
        parameters = {
            "owner": owner,
            "derivations": [
                {
                    "turn_id": derivation.source.id,
                    "rows": [_memory_row(memory) for memory in derivation.memories],
                    "links": [link.model_dump(mode="json") for link in derivation.links],
                    "impressions": [
                        {
                            "impression": _impression_row(item.impression),
                            "conjecture": _memory_row(item.conjecture),
                        }
                        for item in derivation.impressions
                    ],
                }
                for derivation in derivations
            ],
            "threshold": (policy or ImpressionPolicy()).threshold,
        }

        def work(transaction: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            rows = self._send(transaction, load_statement("save_memories"), parameters)
            saved = {row["turn_id"] for row in rows}
            missing = [item.source.id for item in derivations if item.source.id not in saved]
            if missing:  # raised inside the transaction function, so nothing is committed
                raise StoreError(f"turn {missing[0]!r} of owner {owner} is not stored")
            return rows

        rows = self._in_transaction(owner, work)
        return [
            [
                derivation.impressions[index].conjecture.model_copy(update={"belief": belief})
                for index, belief in row["conjectures"]
            ]
            for derivation, row in zip(derivations, rows, strict=True)
        ]

    def save_knowledge(self, owner: str, memories: Sequence[Memory], links: Sequence[Link]) -> None:
        """Store knowledge memories (from no turn) and edges among memories; idempotent by id."""
        check_nodes(owner, memories)
        self._write(
            owner,
            load_statement("save_knowledge"),
            {
                "owner": owner,
                "rows": [_memory_row(memory) for memory in memories],
                "links": [link.model_dump(mode="json") for link in links],
            },
        )

    def profile_sources(self, owner: str, at: datetime) -> ProfileSources:
        """What the owner's profile at `at` is read from (mechanisms.profile.ProfileSources)."""
        [row] = self._run(load_statement("profile_sources"), {"owner": owner, "at": at}, read=True)
        return ProfileSources(
            facts=[
                SlotFact(fact=_memory_from(item["fact"]), belief=item["belief"])
                for item in row["facts"]
            ],
            impressions=[
                ConjecturedImpression(
                    impression=_impression_from(item["impression"]), rests_on=item["rests_on"]
                )
                for item in row["impressions"]
            ],
            events=[
                EventNews(event=_event_from(item["event"]), members=item["members"])
                for item in row["events"]
            ],
            causal_rules=row["causal_rules"],
        )

    def causal_rules(self, owner: str) -> list[Cause]:
        """The owner's causal knowledge: every CAUSES edge, by cause and effect."""
        [row] = self._run(load_statement("causal_rules"), {"owner": owner}, read=True)
        return [Cause.model_validate(rule) for rule in row["rules"]]

    def load(self, owner: str, graph: OwnerGraph) -> None:
        """Bulk-load an owner's nodes and edges, as `export` gives them; idempotent by id.

        One transaction; a node already stored keeps its properties; turns take their
        positions in the order of the positions they carry (those without one last); edges
        whose ends are not stored are skipped. Its tombstones are stored but those of its turns:
        a turn loaded is no longer forgotten (its tombstone goes). For imports and benchmarks,
        not for `observe`.
        """
        check_nodes(owner, graph.nodes)
        check_tombstones(owner, graph.tombstones)
        turns = [node for node in graph.nodes if isinstance(node, Turn)]
        turns.sort(key=lambda turn: (turn.position is None, turn.position or 0))
        self._write_together(
            owner,
            [
                (
                    load_statement("save_tombstones"),
                    {"owner": owner, "hashes": [item.hash for item in graph.tombstones]},
                ),
                (
                    load_statement("delete_tombstones"),
                    {"owner": owner, "hashes": [tombstone_hash(turn.id) for turn in turns]},
                ),
                (
                    load_statement("save_turns"),
                    {"owner": owner, "rows": [_saved_turn_row(turn) for turn in turns]},
                ),
                (
                    load_statement("load"),
                    {
                        "owner": owner,
                        "memories": [
                            _memory_row(node) for node in graph.nodes if isinstance(node, Memory)
                        ],
                        "events": [
                            _event_row(node) for node in graph.nodes if isinstance(node, Event)
                        ],
                        "impressions": [
                            _impression_row(node)
                            for node in graph.nodes
                            if isinstance(node, Impression)
                        ],
                        "links": [
                            {
                                **link.model_dump(mode="json"),
                                "source_label": source_label,
                                "target_label": target_label,
                            }
                            for source_label, target_label, link in graph.links
                        ],
                    },
                ),
            ],
        )

    def forget(self, owner: str) -> None:
        """Delete every node, edge and tombstone of the owner; other owners are untouched.

        Deletes in batches of committed transactions: if interrupted, run it again.
        """
        self._run_batched(load_statement("forget_owner"), {"owner": owner})

    def session_turns(self, owner: str, session: str, last: int | None) -> list[Turn]:
        """The turns of one session of the owner in their order: all, or the `last` of them."""
        parameters = {"owner": owner, "session": session, "last": last}
        rows = self._run(load_statement("session_turns"), parameters, read=True)
        return [_turn_from(row["turn"]) for row in rows]

    def pending_turns(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns whose memories are not derived yet, oldest first."""
        rows = self._run(
            load_statement("pending_turns"), {"owner": owner, "limit": limit}, read=True
        )
        return [_turn_from(row["turn"]) for row in rows]

    def turns_awaiting_summary(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns that no dialogue summary covers yet, oldest first."""
        [row] = self._run(
            load_statement("turns_awaiting_summary"), {"owner": owner, "limit": limit}, read=True
        )
        return [_turn_from(turn) for turn in row["turns"]]

    def importance_of(self, owner: str, ids: Sequence[str]) -> dict[str, float]:
        """The importance of each of these memories of the owner, by id (those stored)."""
        [row] = self._run(
            load_statement("importance_of"), {"owner": owner, "ids": list(ids)}, read=True
        )
        return {memory_id: importance for memory_id, importance in row["importances"]}

    def latest_event(self, owner: str, category: str) -> Event | None:
        """The owner's event of this category updated last (ties by id), if any."""
        [row] = self._run(
            load_statement("latest_event"), {"owner": owner, "category": category}, read=True
        )
        return next((_event_from(event) for event in row["events"]), None)

    def save_summaries(self, owner: str, changes: Sequence[SummaryChange]) -> None:
        """Store dialogue summaries, in order, each FROM its turns with its events, at once.

        For each: clears the turns' summary marks; creates or updates each event, NEXT from its
        previous one and with its members PART_OF it; stores each fact FROM its turn. All or
        nothing (one transaction, one journal entry). Idempotent: a summary or fact already
        stored is kept.
        """
        for change in changes:
            check_nodes(owner, change.nodes())
        if changes:
            statement = load_statement("save_summary")
            self._write_together(
                owner, [(statement, _summary_parameters(owner, change)) for change in changes]
            )

    def memories_awaiting_consolidation(self, owner: str, limit: int) -> list[Memory]:
        """The owner's facts not yet consolidated, oldest first, with their embeddings."""
        [row] = self._run(
            load_statement("memories_awaiting_consolidation"),
            {"owner": owner, "limit": limit},
            read=True,
        )
        return [_memory_from(memory) for memory in row["memories"]]

    def settle_facts(
        self,
        owner: str,
        settlements: Sequence[Settlement],
        now: datetime,
        *,
        beliefs: BeliefPolicy,
        attention: AttentionPolicy,
    ) -> None:
        """Apply facts' consolidations in order, at once (one transaction, one journal entry).

        Each fact's moves in order, its edges, its mark cleared. A move sets belief b to
        b + rate * (estimate - b) (b of a memory without one is the first-hand belief); its
        attention change is that of mechanisms.beliefs (raise: the use gains, accessed_at and
        tier 0 as in `wake`; lower: mechanisms.attention.lowered). Moves and edges naming
        memories not stored are skipped. An UPDATES edge ends the older memory's validity when
        the newer one was made (`valid_until`, the earliest if several) and starts the newer
        one's (`valid_from`). A fact not awaiting consolidation (settled by another job since it
        was read, or gone) is skipped whole, so that settling twice moves no belief twice.
        """
        policies = {
            "now": now,
            "rate": beliefs.rate,
            "first_hand": beliefs.first_hand,
            "kept": beliefs.kept_attention,
            "long_gain": attention.use_long_term,
            "short_gain": attention.use_short_term,
            **_half_lives(attention),
        }
        statement = load_statement("settle_fact")
        if settlements:
            self._write_together(
                owner,
                [
                    (
                        statement,
                        {
                            "owner": owner,
                            "fact": settlement.fact,
                            "moves": [move.model_dump(mode="json") for move in settlement.moves],
                            "links": [link.model_dump(mode="json") for link in settlement.links],
                            **policies,
                        },
                    )
                    for settlement in settlements
                ],
            )

    def provenance(self, owner: str, turn: str) -> Provenance | None:
        """What was derived from one of the owner's turns (None if no such turn is stored)."""
        rows = self._run(
            load_statement("turn_provenance"), {"owner": owner, "turn": turn}, read=True
        )
        return _provenance_from(rows[0]) if rows else None

    def forget_turn(self, owner: str, forgetting: Forgetting) -> bool:
        """Write a Forgetting at once, unless the turn's provenance changed since; say if written.

        One transaction, under the owner's write lock, reads the provenance again and writes
        only if it is unchanged (cypher/forget_turn.cypher), with the tombstone of the turn's
        id (cypher/save_tombstones.cypher).
        """
        check_nodes(owner, [*forgetting.replaced, *forgetting.added])
        turn = forgetting.provenance.turn.id
        deleted: dict[str, list[str]] = {label: [] for label in ("Memory", "Impression", "Event")}
        for label, node_id in forgetting.deleted:
            deleted[label].append(node_id)
        edges: dict[tuple[str, str, LinkType], list[dict[str, str]]] = {
            ("Event", "Event", LinkType.NEXT): [],
            ("Memory", "Event", LinkType.PART_OF): [],
            ("Memory", "Impression", LinkType.INFERRED_FROM): [],
        }
        for source_label, target_label, link in forgetting.linked:
            edges[(source_label, target_label, link.type)].append(
                {"source": link.source, "target": link.target}
            )
        parameters = {
            "owner": owner,
            "turn": turn,
            "deleted_memories": deleted["Memory"],
            "deleted_impressions": deleted["Impression"],
            "deleted_events": deleted["Event"],
            "memories": [
                _memory_row(node) for node in forgetting.replaced if isinstance(node, Memory)
            ],
            "events": [_event_row(node) for node in forgetting.replaced if isinstance(node, Event)],
            "impressions": [
                _impression_row(node)
                for node in forgetting.replaced
                if isinstance(node, Impression)
            ],
            "added": [_memory_row(memory) for memory in forgetting.added],
            "unlinked_members": [
                {"source": link.source, "target": link.target}
                for _source_label, _target_label, link in forgetting.unlinked
            ],
            "next": edges[("Event", "Event", LinkType.NEXT)],
            "members": edges[("Memory", "Event", LinkType.PART_OF)],
            "inferred": edges[("Memory", "Impression", LinkType.INFERRED_FROM)],
        }

        def work(transaction: neo4j.ManagedTransaction) -> bool:
            provenance = {"owner": owner, "turn": turn}
            rows = self._send(transaction, load_statement("turn_provenance"), provenance)
            if not rows or _provenance_from(rows[0]) != forgetting.provenance:
                return False
            self._send(transaction, load_statement("forget_turn"), parameters)
            tombstone = {"owner": owner, "hashes": [tombstone_hash(turn)]}
            self._send(transaction, load_statement("save_tombstones"), tombstone)
            return True

        return self._in_transaction(owner, work)

    def owners(self) -> list[str]:
        """Every owner that has a turn, sorted."""
        [row] = self._run(load_statement("owners"), {}, read=True)
        return list(row["owners"])

    def claim_owner(
        self, owner: str, worker: str, now: datetime, until: datetime, since: datetime
    ) -> OwnerClaim:
        """Claim (or renew) the lease on an owner's nightly job: on its Owner node."""
        parameters = {"owner": owner, "worker": worker, "now": now, "until": until, "since": since}
        [row] = self._write(owner, load_statement("claim_owner"), parameters)
        return OwnerClaim.model_validate({key: _native(value) for key, value in row.items()})

    def release_owner(self, owner: str, worker: str, now: datetime, failure: str | None) -> bool:
        """End `worker`'s lease on the owner, its job ended at `now` (failed: why); say if held."""
        parameters = {"owner": owner, "worker": worker, "now": now, "failure": failure}
        return bool(self._write(owner, load_statement("release_owner"), parameters))

    def save_key(self, key: ApiKey) -> None:
        """Store a new API key's record: an ApiKey node outside every owner's graph."""
        self._run(load_statement("save_api_key"), key.model_dump(exclude={"revoked_at"}))

    def find_key(self, key_id: str) -> ApiKey | None:
        """The API key with this id, or None."""
        rows = self._run(load_statement("api_key"), {"id": key_id}, read=True)
        return _key_from(rows[0]["key"]) if rows else None

    def list_keys(self) -> list[ApiKey]:
        """Every API key, oldest first."""
        rows = self._run(load_statement("api_keys"), {}, read=True)
        return [_key_from(row["key"]) for row in rows]

    def revoke_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Mark the key revoked at `at` (the first revocation's time stays); None if unknown."""
        rows = self._run(load_statement("revoke_api_key"), {"id": key_id, "revoked_at": at})
        return _key_from(rows[0]["key"]) if rows else None

    def export(self, owner: str) -> OwnerGraph:
        """Every node, edge and tombstone of the owner (by label and id, type and ends, hash)."""
        [row] = self._run(load_statement("export"), {"owner": owner}, read=True)
        return OwnerGraph(
            nodes=[NODE_READERS[item["label"]](item["node"]) for item in row["nodes"]],
            links=[_labelled_link_from(link) for link in row["links"]],
            tombstones=[Tombstone(owner=owner, hash=hash) for hash in row["tombstones"]],
        )

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
                    memory=_memory_from(found["memory"]),
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
                    impression=_impression_from(cue["impression"]),
                    memory=cue["memory"],
                    belief=cue["belief"],
                )
                for cue in row["cues"]
            ],
        )

    def link_memories(self, owner: str, links: Sequence[Link]) -> None:
        """Add edges between the owner's memories (one per type and pair; a repeat updates it)."""
        rows = [link.model_dump(mode="json") for link in links]
        [result] = self._write(
            owner, load_statement("link_memories"), {"owner": owner, "rows": rows}
        )
        if result["linked"] != len(rows):
            raise StoreError(f"{len(rows) - result['linked']} edges name memories not stored")

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
                **_half_lives(attention),
                "floors": list(tiers.floors),
            },
        )
        return [Woken.model_validate(item) for item in row["woken"]]

    def retier(
        self, owner: str, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
    ) -> int:
        """Sink memories whose attention faded or that overflow a tier; return the moves made."""
        common = {"owner": owner, "now": now, **_half_lives(attention)}
        [sunk] = self._run_batched(
            load_statement("retier_sink"), {**common, "floors": list(tiers.floors)}
        )
        moves = int(sunk["moved"] or 0)
        for tier, capacity in enumerate(tiers.capacities):
            [overflow] = self._run_batched(
                load_statement("retier_overflow"), {**common, "tier": tier, "capacity": capacity}
            )
            moves += int(overflow["moved"])
        return moves

    def count_graph(self, owner: str) -> GraphCounts:
        """Count the owner's nodes per label, edges per type, memories per tier and belief.

        With them its tombstones, which count_nodes.cypher counts as a label of its own.
        """
        nodes = self._run(load_statement("count_nodes"), {"owner": owner}, read=True)
        links = self._run(load_statement("count_links"), {"owner": owner}, read=True)
        memories = self._run(load_statement("count_memories"), {"owner": owner}, read=True)
        tiers = dict.fromkeys(map(int, Tier), 0)
        beliefs: Counter[str] = Counter()
        for row in memories:
            tiers[row["tier"]] += row["count"]
            tenth = row["tenth"]
            beliefs[belief_bin(None if tenth < 0 else tenth / 10)] += row["count"]
        per_label = {row["label"]: row["count"] for row in nodes}
        tombstones = per_label.pop("Tombstone")
        return GraphCounts(
            nodes=per_label,
            links={row["type"]: row["count"] for row in links},
            tiers=tiers,
            beliefs=dict(beliefs),
            tombstones=tombstones,
        )

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""
        [row] = self._run(load_statement("count_health"), {"owner": owner}, read=True)
        kinds = {entry["kind"]: entry["count"] for entry in row.pop("kinds")}
        return HealthCounts.model_validate({**row, "kinds": kinds})

    def traffic(self) -> StoreTraffic:
        """Write transactions committed and statements sent since the store was opened."""
        with self._counting:
            return StoreTraffic(transactions=self._transactions, statements=self._statements)

    def close(self) -> None:
        """Close the driver and its connections."""
        self._driver.close()

    # -- running statements ------------------------------------------------------------------

    def _run(
        self, statement: LiteralString, parameters: dict[str, Any], *, read: bool = False
    ) -> list[dict[str, Any]]:
        """Run one statement in its own transaction (retried on transient errors); return rows."""
        routing = neo4j.RoutingControl.READ if read else neo4j.RoutingControl.WRITE
        self._count(statements=1)
        with traced_statement(statement_name(statement)), self._translated_errors():
            records, _summary, keys = self._driver.execute_query(
                statement, parameters, database_=self._database, routing_=routing
            )
        self._count(transactions=0 if read else 1)
        return [dict(zip(keys, record, strict=True)) for record in records]  # as in _rows

    def _find(self, name: str, parameters: dict[str, Any]) -> list[SimilarMemory]:
        """Run a search of cypher/<name>.cypher, whose one record lists the memories found."""
        [row] = self._run(load_statement(name), parameters, read=True)
        return [_similar_from(found) for found in row["found"]]

    def _write(
        self, owner: str, statement: LiteralString, parameters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Run one write statement of the owner in its own transaction; return its rows."""
        return self._write_together(owner, [(statement, parameters)])[-1]

    def _write_together(
        self, owner: str, statements: Sequence[tuple[LiteralString, dict[str, Any]]]
    ) -> list[list[dict[str, Any]]]:
        """Run write statements of the owner in order in one transaction; return their rows."""

        def work(transaction: neo4j.ManagedTransaction) -> list[list[dict[str, Any]]]:
            return [
                self._send(transaction, statement, parameters)
                for statement, parameters in statements
            ]

        return self._in_transaction(owner, work)

    def _in_transaction(self, owner: str, work: Callable[[neo4j.ManagedTransaction], Done]) -> Done:
        """Run `work` in one write transaction of the owner (retried on transient errors).

        The transaction takes the owner's write lock first, so the owner's write transactions
        run one at a time and never deadlock on each other. A deadlock costs more than its
        retry: the driver (5.28 and 6.4 alike) hands a failed transaction's connection back to
        its pool before it has finished checking it, and another thread that takes the
        connection meanwhile can fail or hang reading from it.
        """

        def locked(transaction: neo4j.ManagedTransaction) -> Done:
            self._send(transaction, load_statement("lock_owner"), {"owner": owner})
            return work(transaction)

        with (
            self._translated_errors(),
            self._driver.session(database=self._database) as session,
        ):
            done = session.execute_write(locked)
        self._count(transactions=1)
        return done

    def _send(
        self,
        transaction: neo4j.ManagedTransaction,
        statement: LiteralString,
        parameters: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """Run one statement in a transaction and read its rows, counted in the store's traffic."""
        self._count(statements=1)
        with traced_statement(statement_name(statement)):
            return _rows(transaction.run(statement, parameters))

    def _count(self, *, transactions: int = 0, statements: int = 0) -> None:
        """Add to the store's traffic."""
        with self._counting:
            self._transactions += transactions
            self._statements += statements

    def _run_batched(
        self, statement: LiteralString, parameters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Run a statement that commits in batches (CALL {} IN TRANSACTIONS): auto-commit."""
        with (
            traced_statement(statement_name(statement)),
            self._translated_errors(),
            self._driver.session(database=self._database) as session,
        ):
            self._count(transactions=1, statements=1)  # its batches counted as one
            result = session.run(statement, parameters)
            keys = result.keys()
            return [dict(zip(keys, record, strict=True)) for record in result]

    @contextmanager
    def _translated_errors(self) -> Iterator[None]:
        """Turn driver errors into graphmem's, separating 'unreachable' from 'refused'."""
        refusal = None
        try:
            yield
        except neo4j.exceptions.AuthError as error:
            refusal = error.message  # raised below: the driver's frames hold the password
        except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired) as error:
            raise StoreUnavailableError(f"Neo4j could not be reached: {error}") from error
        except neo4j.exceptions.Neo4jError as error:
            raise StoreError(f"Neo4j refused a statement: {error.code}: {error.message}") from error
        except neo4j.exceptions.DriverError as error:
            raise StoreError(f"the Neo4j driver failed: {error}") from error
        if refusal is not None:  # outside the except block, so without the driver's error
            raise ConfigurationError(f"Neo4j refused the credentials: {refusal}")
