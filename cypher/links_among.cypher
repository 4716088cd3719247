// Purpose: the edges between the given memories of one owner, for a recall's subgraph. Each
//          memory is found by its (owner, id) key, one id at a time (matched with IN, Neo4j
//          2026.08 seeks the owner index and filters every memory of the owner), and its own
//          edges are followed (a subquery per memory), so the cost grows with the edges of the
//          given memories, not with the square of their number or with the owner's memories.
// Parameters: $owner, $ids (memory ids).
// Returns: one row: links, a list of [type, source, target, weight, sufficiency], one per edge,
//          ordered by type, source and target (one record: see find_similar_memories.cypher).
UNWIND $ids AS id
WITH DISTINCT id
MATCH (a:Memory {owner: $owner, id: id})
CALL (a) {
  MATCH (a)-[r]->(b:Memory {owner: $owner})
  WHERE b.id IN $ids
  RETURN r, b
}
WITH type(r) AS type, a.id AS source, b.id AS target, r.weight AS weight,
     r.sufficiency AS sufficiency
ORDER BY type, source, target
RETURN collect([type, source, target, weight, sufficiency]) AS links
