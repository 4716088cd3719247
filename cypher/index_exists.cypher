// Purpose: whether the database has an index of this name (of any kind), to tell what an
//          older graphmem left in it.
// Parameters: $name.
// Returns: one row: exists (a boolean).
SHOW INDEXES YIELD name
WHERE name = $name
RETURN count(name) > 0 AS exists
