// Purpose: memories that an older graphmem stored without `terms` (the content terms that the
//          fulltext indexes read), of any owner, for the store to give them their terms batch by
//          batch when it prepares the database (add_memory_terms.cypher).
// Parameters: $batch (at most this many).
// Returns: one row per memory: owner, id, text.
MATCH (m:Memory)
WHERE m.terms IS NULL
RETURN m.owner AS owner, m.id AS id, m.text AS text
LIMIT $batch
