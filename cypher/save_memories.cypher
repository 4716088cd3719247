// Purpose: store memories derived from one stored turn, each linked (m)-[:FROM]->(t), and clear
//          the turn's pending mark; idempotent: a memory whose (owner, id) exists keeps its
//          stored properties.
// Parameters: $owner, $turn_id, $rows (list of memory property maps, each with id).
// Returns: turn_id (one row when the turn exists, no row when it does not).
MATCH (t:Turn {owner: $owner, id: $turn_id})
CALL (t) {
  UNWIND $rows AS row
  MERGE (m:Memory {owner: $owner, id: row.id})
  ON CREATE SET m += row
  MERGE (m)-[:FROM]->(t)
}
REMOVE t.pending
RETURN t.id AS turn_id
