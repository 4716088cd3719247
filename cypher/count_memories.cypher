// Purpose: count one owner's memories per tier and per tenth of belief, as
//          graphmem.store.base.belief_bin bins them (tenth 0 for [0, 0.1) up to 9 for [0.9, 1];
//          -1 for a memory without a belief).
// Parameters: $owner.
// Returns: tier, tenth, count (one row per pair present).
MATCH (m:Memory {owner: $owner})
RETURN m.tier AS tier,
       CASE WHEN m.belief IS NULL THEN -1
            WHEN m.belief >= 0.9 THEN 9
            ELSE toInteger(floor(m.belief * 10)) END AS tenth,
       count(*) AS count
