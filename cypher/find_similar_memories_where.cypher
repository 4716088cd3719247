// Purpose: find_similar_memories.cypher for a filtered recall: the owner's memories in tiers
//          $shallowest..$deepest that the filter admits, most similar to an embedding, best
//          first with ties broken by id, each with its source turns oldest first. The filter
//          holds conditions the vector index cannot apply (turns' sessions and speakers, lists
//          of kinds, beliefs that may be absent), so the memories it admits are read from the
//          owner's and compared one by one: exact, at a cost that grows with the owner's
//          memories in those tiers. Dialogue summaries and facts are left out.
// Parameters: $owner, $embedding (list of floats), $limit, $shallowest and $deepest (0-3),
//             $at_least (a similarity in [-1, 1], or null for any); the filter, each null for
//             no condition: $sessions and $speakers (lists: one source turn of one of them),
//             $since and $until (date-times: made at or after, before), $kinds (list of
//             kinds), $min_belief (a belief at least this, or none).
// Returns: one row: found, a list, best first, of {memory (properties, embedding and terms
//          left out, date-times as ISO text), similarity (cosine in [-1, 1]), turns (list of
//          turn properties, likewise)}; see find_similar_memories.cypher for why.
MATCH (m:Memory {owner: $owner})
WHERE $shallowest <= m.tier <= $deepest AND NOT m.kind IN ['summary', 'fact']
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND ($min_belief IS NULL OR m.belief IS NULL OR m.belief >= $min_belief)
  AND ($sessions IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn) WHERE source.session IN $sessions })
  AND ($speakers IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn) WHERE source.speaker IN $speakers })
WITH m, 2 * vector.similarity.cosine(m.embedding, $embedding) - 1 AS similarity
WHERE $at_least IS NULL OR similarity >= $at_least
ORDER BY similarity DESC, m.id ASC
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
     similarity, turns
ORDER BY similarity DESC, memory.id ASC
RETURN collect({memory: memory, similarity: similarity, turns: turns}) AS found
