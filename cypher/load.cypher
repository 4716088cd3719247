// Purpose: bulk-load part of one owner's graph in one transaction: turns, memories each linked
//          (m)-[:FROM]->(t) (tier-0 memories also labelled Hot), and edges between memories.
//          Idempotent: nodes whose (owner, id) exist keep their properties. For imports and
//          benchmarks; edge types come from graphmem's LinkType, never from input.
// Parameters: $owner, $turns (turn property maps), $memories (list of {turn_id, row} with row
//             the memory's property map), $links (list of {type, source, target, weight,
//             sufficiency}).
// Returns: loaded (1).
CALL () {
  UNWIND $turns AS row
  MERGE (t:Turn {owner: $owner, id: row.id})
  ON CREATE SET t += row
}
CALL () {
  UNWIND $memories AS item
  MATCH (t:Turn {owner: $owner, id: item.turn_id})
  MERGE (m:Memory {owner: $owner, id: item.row.id})
  ON CREATE SET m += item.row
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
RETURN 1 AS loaded
