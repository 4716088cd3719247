// Purpose: wait until the memory vector index is online (at once when it is; while a new index
//          is built over existing memories, e.g. after a migration, a similarity search would
//          fail), so that a prepared store can search.
// Parameters: $seconds (the longest wait).
// Returns: nothing; fails when the index is not online within $seconds.
CALL db.awaitIndex('memory_vectors', $seconds)
