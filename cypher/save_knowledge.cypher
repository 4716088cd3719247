// Purpose: store knowledge memories of one owner, from no turn (tier-0 memories also labelled
//          Hot, the mirror of tier 0 that the hot fulltext index covers), and edges between the
//          owner's memories (one per type and pair; a repeat updates the edge's weight or
//          sufficiency; ends not stored are skipped), in one transaction. Idempotent: a memory
//          whose (owner, id) exists keeps its stored properties. Edge types come from graphmem's
//          LinkType, never from input.
// Parameters: $owner, $rows (list of memory property maps, each with id),
//             $links (list of {type, source, target, weight, sufficiency}).
// Returns: saved (1).
CALL () {
  UNWIND $rows AS row
  MERGE (m:Memory {owner: $owner, id: row.id})
  ON CREATE SET m += row
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
RETURN 1 AS saved
