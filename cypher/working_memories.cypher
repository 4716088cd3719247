// Purpose: for each of several embeddings, the owner's hot (tier 0) memories most similar to it:
//          the working memory in whose light a new item is labelled, for a batch of items in one
//          round trip. Found inside the vector index, filtered there by owner and tier, with the
//          over-fetch $fetch of find_similar_memories; dialogue summaries and facts left out;
//          best first, ties broken by id.
// Parameters: $owner, $embeddings (list of lists of floats), $size (memories per embedding),
//             $fetch (nearest neighbours asked of the index, >= $size).
// Returns: one row per embedding, in order: found, a list, best first, of {memory (properties,
//          embedding and terms left out, date-times as ISO text), similarity (cosine in [-1, 1])}.
CYPHER 25
UNWIND $embeddings AS embedding
CALL (embedding) {
  MATCH (m:Memory)
    SEARCH m IN (
      VECTOR INDEX memory_vectors
      FOR embedding
      WHERE m.owner = $owner AND m.tier >= 0 AND m.tier <= 0
      LIMIT $fetch
    ) SCORE AS score
  WITH m, score
  WHERE NOT m.kind IN ['summary', 'fact']
  ORDER BY score DESC, m.id ASC
  LIMIT $size
  RETURN collect({
    memory: m {.*, embedding: null, terms: null, created_at: toString(m.created_at),
               accessed_at: toString(m.accessed_at), valid_from: toString(m.valid_from),
               valid_until: toString(m.valid_until),
               attention_long_term_at: toString(m.attention_long_term_at),
               attention_short_term_at: toString(m.attention_short_term_at)},
    similarity: 2 * score - 1
  }) AS found
}
RETURN found
