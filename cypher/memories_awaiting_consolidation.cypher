// Purpose: the owner's facts not yet consolidated (awaiting_consolidation: true, a mark that
//          exists only while true, so its (owner, awaiting_consolidation) index holds only
//          these), oldest first, ties by id, with their embeddings.
// Parameters: $owner, $limit.
// Returns: one row: memories, a list of memory properties, embedding included (date-times as
//          ISO text; one record: see find_similar_memories.cypher).
MATCH (m:Memory {owner: $owner, awaiting_consolidation: true})
WITH m
ORDER BY m.created_at, m.id
LIMIT $limit
RETURN collect(m {.*, created_at: toString(m.created_at), accessed_at: toString(m.accessed_at),
                  valid_from: toString(m.valid_from), valid_until: toString(m.valid_until),
                  attention_long_term_at: toString(m.attention_long_term_at),
                  attention_short_term_at: toString(m.attention_short_term_at)}) AS memories
