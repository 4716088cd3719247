// Purpose: the owner's turns whose memories are not derived yet (pending: true), oldest first.
// Parameters: $owner, $limit.
// Returns: turn (properties), one row per turn.
MATCH (t:Turn {owner: $owner, pending: true})
RETURN t {.*} AS turn
ORDER BY t.created_at, t.id
LIMIT $limit
