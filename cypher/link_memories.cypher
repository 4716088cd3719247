// Purpose: add edges between the owner's memories, one per type and pair; a repeat updates the
//          edge's weight or sufficiency. The type comes from graphmem's LinkType, never from input.
// Parameters: $owner, $rows (list of {type, source, target, weight, sufficiency}).
// Returns: linked (how many rows found both memories).
UNWIND $rows AS row
MATCH (a:Memory {owner: $owner, id: row.source})
MATCH (b:Memory {owner: $owner, id: row.target})
MERGE (a)-[r:$(row.type)]->(b)
SET r.weight = row.weight, r.sufficiency = row.sufficiency
RETURN count(r) AS linked
