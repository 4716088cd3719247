// Purpose: the owner's memories in tiers 0..$deepest most similar to an embedding (exact cosine;
//          the (owner, tier) index bounds a shallow search by the hot tier's capacity), best
//          first with ties broken by id, each with its source turns oldest first.
// Parameters: $owner, $embedding (list of floats), $limit, $deepest (0-3).
// Returns: memory (properties, embedding left out), similarity (cosine in [-1, 1]), turns (list of turn properties).
MATCH (m:Memory {owner: $owner})
WHERE m.tier <= $deepest
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC, m.id ASC
LIMIT $limit
CALL (m) {
  OPTIONAL MATCH (m)-[:FROM]->(t:Turn)
  WITH t ORDER BY t.created_at, t.id
  RETURN collect(t {.*}) AS turns
}
RETURN m {.*, embedding: null} AS memory, 2 * score - 1 AS similarity, turns
ORDER BY similarity DESC, memory.id ASC
