// Purpose: store memories derived from one stored turn, each linked (m)-[:FROM]->(t) (tier-0
//          memories also labelled Hot, the mirror of tier 0 that the hot fulltext index covers),
//          add edges
//          between the owner's memories (one per type and pair; ends not stored are skipped),
//          and clear the turn's pending mark, in one transaction. Idempotent: a memory whose
//          (owner, id) exists keeps its stored properties. Edge types come from graphmem's
//          LinkType, never from input.
// Parameters: $owner, $turn_id, $rows (list of memory property maps, each with id),
//             $links (list of {type, source, target, weight, sufficiency}).
// Returns: turn_id (one row when the turn exists, no row when it does not).
MATCH (t:Turn {owner: $owner, id: $turn_id})
CALL (t) {
  UNWIND $rows AS row
  MERGE (m:Memory {owner: $owner, id: row.id})
  ON CREATE SET m += row
  MERGE (m)-[:FROM]->(t)
  WITH m
  WHERE m.tier = 0
  SET m:Hot
}
CALL () {
  UNWIND $links AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Memory {owner: $owner, id: link.target})
  MERGE (a)-[r:$(link.type)]->(b)
  SET r.weight = link.weight, r.sufficiency = link.sufficiency
}
REMOVE t.pending
RETURN t.id AS turn_id
