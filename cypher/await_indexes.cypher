// Purpose: wait until every index is online (at once when they are; while a new index is built
//          over existing memories, e.g. the vector index after a migration or memory_terms after
//          an older graphmem's memories were given their terms, a search would fail), so that a
//          prepared store can search.
// Parameters: $seconds (the longest wait).
// Returns: nothing; fails when an index is not online within $seconds.
CALL db.awaitIndexes($seconds)
