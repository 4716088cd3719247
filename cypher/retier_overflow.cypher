// Purpose: move the owner's memories of one tier beyond its capacity one tier down, the least
//          attended first (attention decayed as in graphmem/mechanisms/attention.py; ties by
//          id), without the label Hot (the mirror of tier 0). Runs in an auto-commit
//          transaction (CALL {} IN TRANSACTIONS); each batch takes the owner's write lock
//          (cypher/lock_owner.cypher) before it moves its first memory.
// Parameters: $owner, $now, $long_half_life and $short_half_life (seconds), $tier (0-2),
//             $capacity.
// Returns: moved (how many memories moved down).
MATCH (m:Memory {owner: $owner, tier: $tier})
WITH m,
     duration.inSeconds(m.attention_long_term_at, $now) AS long_elapsed,
     duration.inSeconds(m.attention_short_term_at, $now) AS short_elapsed
WITH m,
     m.attention_long_term * 0.5 ^ (CASE
       WHEN m.attention_long_term_at < $now
       THEN (long_elapsed.seconds + long_elapsed.nanosecondsOfSecond / 1e9) / $long_half_life
       ELSE 0.0 END)
     + m.attention_short_term * 0.5 ^ (CASE
       WHEN m.attention_short_term_at < $now
       THEN (short_elapsed.seconds + short_elapsed.nanosecondsOfSecond / 1e9) / $short_half_life
       ELSE 0.0 END) AS level
ORDER BY level DESC, m.id ASC
SKIP $capacity
CALL (m) {
  MERGE (lock:Owner {owner: $owner})
  SET lock._lock = true
  REMOVE lock._lock
  SET m.tier = $tier + 1
  REMOVE m:Hot
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS moved
