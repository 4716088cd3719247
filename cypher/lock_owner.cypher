// Purpose: take the owner's write lock: the first statement of every write transaction of the owner
//          (graphmem/store/neo4j_connection.py), so that the owner's write transactions run one
//          after another and never deadlock on each other (an observe locks turns, memories and
//          impressions that a concurrent observe or recall of the same owner may lock in another
//          order). The lock is the owner's Owner node, made on first use (unique by owner); writing
//          a property takes the node's write lock, held to commit; the property is removed again.
//          Other owners' writes are not held up.
// Parameters: $owner.
// Returns: nothing.
MERGE (lock:Owner {owner: $owner})
SET lock._lock = true
REMOVE lock._lock
