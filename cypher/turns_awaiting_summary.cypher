// Purpose: the owner's turns that no dialogue summary covers yet (awaiting_summary: true, a mark
//          that exists only while true, so its (owner, awaiting_summary) index holds only these),
//          oldest first, ties by id.
// Parameters: $owner, $limit.
// Returns: one row: turns, a list of turn properties (date-times as ISO text; one record: see
//          find_similar_memories.cypher).
MATCH (t:Turn {owner: $owner, awaiting_summary: true})
WITH t
ORDER BY t.created_at, t.id
LIMIT $limit
RETURN collect(t {.*, created_at: toString(t.created_at)}) AS turns
