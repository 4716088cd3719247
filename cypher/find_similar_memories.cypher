// Purpose: the owner's memories in tiers $shallowest..$deepest most similar to an embedding,
//          found inside the vector index (filtered there by owner and tier, so the cost does not
//          grow with other owners' memories or with tiers not searched; the index answers
//          exactly when the filter leaves few memories and approximately over many, hence the
//          over-fetch $fetch, measured in benchmarks/scale.py), best first with ties broken by
//          id, each with its source turns oldest first. A recall that thinks again reads only
//          the tiers it has not read, and only the memories at least as similar as the worst it
//          holds ($at_least). Dialogue summaries and facts are left out: they restate their
//          turns' observations.
// Parameters: $owner, $embedding (list of floats), $limit, $fetch (nearest neighbours asked of
//             the index, >= $limit), $shallowest and $deepest (0-3), $at_least (a similarity
//             in [-1, 1], or null for any).
// Returns: one row: found, a list, best first, of {memory (properties, embedding and terms
//          left out, date-times as ISO text), similarity (cosine in [-1, 1]), turns (list of
//          turn properties, likewise)}. One record with a list, and date-times as text, because the
//          Python driver spends ~25 us on every record and ~40 us on every DateTime.
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (
    VECTOR INDEX memory_vectors
    FOR $embedding
    WHERE m.owner = $owner AND m.tier >= $shallowest AND m.tier <= $deepest
    LIMIT $fetch
  ) SCORE AS score
WITH m, score
WHERE NOT m.kind IN ['summary', 'fact']
  AND ($at_least IS NULL OR 2 * score - 1 >= $at_least)
ORDER BY score DESC, m.id ASC
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
     2 * score - 1 AS similarity, turns
ORDER BY similarity DESC, memory.id ASC
RETURN collect({memory: memory, similarity: similarity, turns: turns}) AS found
