// Purpose: the owner's causal knowledge: every CAUSES edge between two of its memories, as the
//          texts of cause and effect with the edge's sufficiency, ordered by cause and effect.
// Parameters: $owner.
// Returns: one row: rules, a list of {cause, effect, sufficiency} (one record: see
//          find_similar_memories.cypher).
MATCH (c:Memory {owner: $owner})-[r:CAUSES]->(e:Memory)
WITH c.text AS cause, e.text AS effect, r.sufficiency AS sufficiency
ORDER BY cause, effect
RETURN collect({cause: cause, effect: effect, sufficiency: sufficiency}) AS rules
