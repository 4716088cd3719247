// Purpose: the turns of one session of the owner in their order: all of them, or the last $last
//          (its Session node counts them, so the index on (owner, session, position) finds them).
// Parameters: $owner, $session ('' for the turns without a session), $last (an integer >= 0, or
//             null for all).
// Returns: turn (properties), one row per turn, first position first.
MATCH (s:Session {owner: $owner, id: $session})
MATCH (t:Turn {owner: $owner, session: $session})
WHERE t.position >= s.turns - coalesce($last, s.turns)
RETURN t {.*} AS turn
ORDER BY t.position
