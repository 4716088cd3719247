// Purpose: give memories that an older graphmem stored without them their `terms` (computed by
//          graphmem from their texts: graphmem.store.neo4j.indexed_terms), which the fulltext
//          indexes memory_terms and hot_memory_terms read. Nothing else of a memory changes.
// Parameters: $rows (a list of {owner, id, terms}).
// Returns: nothing.
UNWIND $rows AS row
MATCH (m:Memory {owner: row.owner, id: row.id})
WHERE m.terms IS NULL
SET m.terms = row.terms
