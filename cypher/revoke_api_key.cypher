// Purpose: revoke an API key: it keeps its record, with the time it was revoked (the first
//          revocation's; revoking again changes nothing), and no request is let in with it.
// Parameters: $id, $revoked_at.
// Returns: at most one row: key, the ApiKey node's properties after.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $revoked_at)
RETURN properties(k) AS key
