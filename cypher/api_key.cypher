// Purpose: one API key's record by its id (the id a presented secret names), to compare the
//          secret's hash with (graphmem.keys.matches).
// Parameters: $id.
// Returns: at most one row: key, the ApiKey node's properties.
MATCH (k:ApiKey {id: $id})
RETURN properties(k) AS key
