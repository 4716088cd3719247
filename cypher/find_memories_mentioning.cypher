// Purpose: the lexical channel of recall: the owner's memories in tiers 0..$deepest (that a
//          recall's filter admits) whose content terms (`terms`) hold the query's, best Lucene
//          match first (each term a clause scoring its weight times its rarity: the largest sum
//          of the terms held first), ties by similarity to the query embedding, then id (ids
//          are drawn from the owner's name, which must decide nothing), each with that
//          similarity and its source turns; dialogue summaries and facts left out (they
//          restate their turns' observations).
// Parameters: $owner, $index (hot_memory_terms for a search of tier 0 only, else memory_terms),
//             $search (a Lucene query built by graphmem from the query's weighted terms and their
//             counts, cypher/count_memories_holding.cypher: the owner as a phrase, each term as
//             a regular expression matching it whole, boosted), $embedding, $limit, $options,
//             $deepest (0-3); the filter, each null for no condition (as in
//             find_similar_memories_where.cypher): $sessions, $speakers, $since, $until, $kinds,
//             $min_belief.
// Returns: one row: found, a list, best match first, of {memory (properties, embedding and
//          terms left out, date-times as ISO text), similarity (cosine in [-1, 1]), turns
//          (list of turn properties, likewise)}; see find_similar_memories.cypher for why.
//          Lucene is asked for 4 x $limit hits ($options {limit}), or every hit for a filtered
//          recall ($options {}), as deeper tiers and the filter are applied after it; the
//          similarity, which reads a memory's embedding, is computed only for the hits that
//          match at least as well as the $limit-th (ties with it may still enter).
CALL db.index.fulltext.queryNodes($index, $search, $options)
YIELD node AS m, score
WHERE m:Memory AND m.owner = $owner AND m.tier <= $deepest
  AND NOT m.kind IN ['summary', 'fact']
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND ($min_belief IS NULL OR m.belief IS NULL OR m.belief >= $min_belief)
  AND ($sessions IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn) WHERE source.session IN $sessions })
  AND ($speakers IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn) WHERE source.speaker IN $speakers })
WITH m, score
ORDER BY score DESC
WITH collect({memory: m, score: score}) AS hits
UNWIND hits AS hit
WITH hit.memory AS m, hit.score AS score, hits[$limit - 1].score AS boundary
WHERE boundary IS NULL OR score >= boundary
WITH m, score, 2 * vector.similarity.cosine(m.embedding, $embedding) - 1 AS similarity
ORDER BY score DESC, similarity DESC, m.id ASC
LIMIT $limit
CALL (m) {
  OPTIONAL MATCH (m)-[:FROM]->(t:Turn)
  WITH t ORDER BY t.created_at, t.id
  RETURN collect(t {.*, created_at: toString(t.created_at)}) AS turns
}
WITH m {.*, embedding: null, terms: null, created_at: toString(m.created_at),
       accessed_at: toString(m.accessed_at), valid_from: toString(m.valid_from),
       valid_until: toString(m.valid_until),
       attention_long_term_at: toString(m.attention_long_term_at),
       attention_short_term_at: toString(m.attention_short_term_at)} AS memory,
     similarity, turns, score AS match
ORDER BY match DESC, similarity DESC, memory.id ASC
RETURN collect({memory: memory, similarity: similarity, turns: turns}) AS found
