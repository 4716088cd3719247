// Purpose: create graphmem's schema: a unique (owner, id) per label, one Owner node per owner (its
//          write lock: cypher/lock_owner.cypher), a unique (owner, hash) per Tombstone (what a
//          forgotten message leaves: cypher/save_tombstones.cypher), a unique id per ApiKey (the keys of
//          `graphmem serve`, outside every owner's graph: cypher/save_api_key.cypher), owner indexes, turns by
//          (owner, session, position), the marks of work to do (each property exists only while
//          true, so its index holds only the marked nodes), events by (owner, category), memories
//          by (owner, kind) (the profile's facts: cypher/profile_sources.cypher), the
//          memory vector index (owner and tier as its filter properties, so a similarity search
//          is narrowed to one owner's tiers inside the index; unquantized: the default binary
//          quantization loses most of the true nearest neighbours; a search explores four times
//          the neighbours it is asked for, which finds 99.8% of the true top 20 of 10^5 memories
//          where once finds 96%: benchmarks/README.md), and fulltext indexes over
//          memories' content terms (the property `terms`, graphmem.terms as one text, kept whole
//          by the whitespace analyzer, so Lucene matches the terms the embedded store matches;
//          with the owner, so a query can be narrowed to one owner inside Lucene): one over all
//          memories, one over the label Hot that mirrors tier 0, so a shallow search never reads
//          deeper tiers. Drops memory_embedding, the unfiltered vector index that graphmem made
//          on Neo4j 5.26, which SEARCH cannot filter, and memory_text and hot_memory_text, the
//          fulltext indexes over memory texts that graphmem made before `terms` (the store gives
//          older memories their terms before it runs this: add_memory_terms.cypher).
//          Idempotent.
// Parameters: $dimensions (embedding size of the configured embedder).
// Returns: nothing. The only file with several statements: the loader runs them one at a time.
//          Vector statements need Cypher 25 (the server's default language is still Cypher 5).
CREATE CONSTRAINT turn_key IF NOT EXISTS FOR (n:Turn) REQUIRE (n.owner, n.id) IS UNIQUE;
CREATE CONSTRAINT memory_key IF NOT EXISTS FOR (n:Memory) REQUIRE (n.owner, n.id) IS UNIQUE;
CREATE CONSTRAINT event_key IF NOT EXISTS FOR (n:Event) REQUIRE (n.owner, n.id) IS UNIQUE;
CREATE CONSTRAINT session_key IF NOT EXISTS FOR (n:Session) REQUIRE (n.owner, n.id) IS UNIQUE;
CREATE CONSTRAINT impression_key IF NOT EXISTS FOR (n:Impression) REQUIRE (n.owner, n.id) IS UNIQUE;
CREATE CONSTRAINT owner_key IF NOT EXISTS FOR (n:Owner) REQUIRE n.owner IS UNIQUE;
CREATE CONSTRAINT tombstone_key IF NOT EXISTS FOR (n:Tombstone) REQUIRE (n.owner, n.hash) IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE;
CREATE INDEX turn_owner IF NOT EXISTS FOR (n:Turn) ON (n.owner);
CREATE INDEX memory_owner IF NOT EXISTS FOR (n:Memory) ON (n.owner);
CREATE INDEX event_owner IF NOT EXISTS FOR (n:Event) ON (n.owner);
CREATE INDEX impression_owner IF NOT EXISTS FOR (n:Impression) ON (n.owner);
CREATE INDEX tombstone_owner IF NOT EXISTS FOR (n:Tombstone) ON (n.owner);
CREATE INDEX memory_owner_tier IF NOT EXISTS FOR (n:Memory) ON (n.owner, n.tier);
CREATE INDEX turn_session IF NOT EXISTS FOR (n:Turn) ON (n.owner, n.session, n.position);
CREATE INDEX turn_pending IF NOT EXISTS FOR (n:Turn) ON (n.owner, n.pending);
CREATE INDEX turn_awaiting_summary IF NOT EXISTS FOR (n:Turn) ON (n.owner, n.awaiting_summary);
CREATE INDEX memory_awaiting_consolidation IF NOT EXISTS
FOR (n:Memory) ON (n.owner, n.awaiting_consolidation);
CREATE INDEX event_category IF NOT EXISTS FOR (n:Event) ON (n.owner, n.category);
CREATE INDEX memory_kind IF NOT EXISTS FOR (n:Memory) ON (n.owner, n.kind);
DROP INDEX memory_embedding IF EXISTS;
CYPHER 25 CREATE VECTOR INDEX memory_vectors IF NOT EXISTS
FOR (n:Memory) ON (n.embedding) WITH [n.owner, n.tier]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false,
                       `vector.default_search_expansion_factor`: 4.0}};
DROP INDEX memory_text IF EXISTS;
DROP INDEX hot_memory_text IF EXISTS;
CREATE FULLTEXT INDEX memory_terms IF NOT EXISTS FOR (n:Memory) ON EACH [n.terms, n.owner]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CREATE FULLTEXT INDEX hot_memory_terms IF NOT EXISTS FOR (n:Hot) ON EACH [n.terms, n.owner]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
