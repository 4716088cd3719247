// Purpose: the edges between the given memories of one owner, for a recall's subgraph.
// Parameters: $owner, $ids (memory ids).
// Returns: type, source, target, weight, sufficiency; one row per edge, ordered.
MATCH (a:Memory {owner: $owner})-[r]->(b:Memory {owner: $owner})
WHERE a.id IN $ids AND b.id IN $ids
RETURN type(r) AS type, a.id AS source, b.id AS target, r.weight AS weight,
       r.sufficiency AS sufficiency
ORDER BY type, source, target
