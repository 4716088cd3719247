// Purpose: delete every node of one owner (Turn, Session, Memory, Event, Impression, Tombstone,
//          Owner) with its edges (edges never cross owners), in batches that each commit: an
//          interrupted run leaves a part deleted, and running it again finishes the work. Runs
//          in an auto-commit transaction (CALL {} IN TRANSACTIONS).
// Parameters: $owner.
// Returns: deleted (how many nodes).
CALL () {
  MATCH (n:Turn {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Session {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Memory {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Event {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Impression {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Tombstone {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Owner {owner: $owner}) RETURN n
}
CALL (n) {
  DETACH DELETE n
  RETURN 1 AS gone
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(gone) AS deleted
