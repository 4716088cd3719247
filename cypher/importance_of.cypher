// Purpose: the importance of some memories of one owner (a dialogue summary takes the highest
//          of its turns' observations). Each memory is found by its (owner, id) key, one id at a
//          time (see find_neighbours.cypher).
// Parameters: $owner, $ids (memory ids).
// Returns: one row: importances, a list of [id, importance], one per stored memory (one record:
//          see find_similar_memories.cypher).
UNWIND $ids AS id
WITH DISTINCT id
MATCH (m:Memory {owner: $owner, id: id})
RETURN collect([m.id, m.importance]) AS importances
