// Purpose: every API key's record, oldest first (`graphmem keys list` shows them without
//          their hashes).
// Parameters: none.
// Returns: one row a key: key, the ApiKey node's properties.
MATCH (k:ApiKey)
RETURN properties(k) AS key
ORDER BY k.created_at, k.id
