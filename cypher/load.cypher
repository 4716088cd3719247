// Purpose: bulk-load memories and edges of one owner, after their turns (save_turns, in the
//          same transaction): memories each linked (m)-[:FROM]->(t) (tier-0 memories also
//          labelled Hot), and edges between memories. Idempotent: nodes whose (owner, id) exist
//          keep their properties. For imports and benchmarks; edge types come from graphmem's
//          LinkType, never from input.
// Parameters: $owner, $memories (list of {turn_id, row} with row the memory's property map),
//             $links (list of {type, source, target, weight, sufficiency}).
// Returns: loaded (1).
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
