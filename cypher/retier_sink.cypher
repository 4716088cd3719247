// Purpose: sink the owner's memories of tiers 0-2 whose current attention (decayed as in
//          graphmem/mechanisms/attention.py) is below their tier's floor, in batches; a sunk
//          memory loses the label Hot (the mirror of tier 0). Each batch takes the owner's write
//          lock (cypher/lock_owner.cypher) before it moves its first memory.
//          Runs in an auto-commit transaction (CALL {} IN TRANSACTIONS).
// Parameters: $owner, $now, $long_half_life and $short_half_life (seconds), $floors (least
//             attention of tiers 0, 1 and 2).
// Returns: moved (how many memories sank).
MATCH (m:Memory {owner: $owner})
WHERE m.tier < 3
CALL (m) {
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
  WITH m, size([floor IN $floors WHERE level < floor]) AS fits
  WHERE fits > m.tier
  MERGE (lock:Owner {owner: $owner})
  SET lock._lock = true
  REMOVE lock._lock
  SET m.tier = fits
  REMOVE m:Hot
  RETURN count(*) AS sunk
} IN TRANSACTIONS OF 5000 ROWS
RETURN sum(sunk) AS moved
