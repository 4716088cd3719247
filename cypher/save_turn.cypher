// Purpose: store a turn unless its owner already has one with its id (turns are immutable).
// Parameters: $owner, $row (the turn's properties, with id).
// Returns: turn (the stored turn's properties: the new one, or the one already there).
MERGE (t:Turn {owner: $owner, id: $row.id})
ON CREATE SET t += $row
RETURN t {.*} AS turn
