// Purpose: one recall's use and regional wake-up, in one transaction, with the arithmetic of
//          graphmem/mechanisms/attention.py. Used memories: both attention parts decayed to $now
//          plus their gains, accessed_at $now, tier 0. Neighbours (memories and events) along
//          RELATED, CAUSES and PART_OF edges either way, up to $hops (0-2) hops, following from
//          each node only its $fan_out strongest edges (weight, else sufficiency, else 1; ties
//          by id): short-term gain $short_gain * $per_hop^hop * the edge weights, the largest
//          over all paths, dropped below $min_gain (and then not spread further); each rises
//          to the tier its new attention reaches (memories of tier 0 carry the label Hot, the
//          mirror the hot fulltext index covers). Each node's write lock is taken before its
//          attention is read, so concurrent recalls lose no update.
// Parameters: $owner, $ids (used memory ids), $now, $long_gain, $short_gain, $per_hop, $hops,
//             $fan_out, $min_gain, $long_half_life and $short_half_life (seconds), $floors (least
//             attention of tiers 0, 1 and 2).
// Returns: id, label, used, short_term_gain, tier; one row per node whose attention rose.
MATCH (u:Memory {owner: $owner})
WHERE u.id IN $ids
WITH collect(u) AS used
CALL (used) {
  UNWIND used AS u
  CALL (u) {
    MATCH (u)-[r:RELATED|CAUSES|PART_OF]-(n:Memory|Event {owner: $owner})
    WHERE $hops >= 1
    WITH n, coalesce(r.weight, r.sufficiency, 1.0) AS w
    ORDER BY w DESC, n.id, CASE WHEN n:Memory THEN 'Memory' ELSE 'Event' END
    LIMIT $fan_out
    RETURN n, w
  }
  WITH n, max($short_gain * $per_hop * w) AS gain
  WHERE gain >= $min_gain
  RETURN collect({node: n, gain: gain}) AS first
}
CALL (first) {
  UNWIND first AS step
  WITH step.node AS m, step.gain AS amount
  WHERE $hops >= 2
  CALL (m) {
    MATCH (m)-[r:RELATED|CAUSES|PART_OF]-(n:Memory|Event {owner: $owner})
    WITH n, coalesce(r.weight, r.sufficiency, 1.0) AS w
    ORDER BY w DESC, n.id, CASE WHEN n:Memory THEN 'Memory' ELSE 'Event' END
    LIMIT $fan_out
    RETURN n, w
  }
  WITH n, max(amount * $per_hop * w) AS gain
  WHERE gain >= $min_gain
  RETURN collect({node: n, gain: gain}) AS second
}
CALL (used) {
  UNWIND used AS u
  SET u.attention_long_term = u.attention_long_term
  WITH u,
       duration.inSeconds(u.attention_long_term_at, $now) AS long_elapsed,
       duration.inSeconds(u.attention_short_term_at, $now) AS short_elapsed
  SET u.attention_long_term = u.attention_long_term * 0.5 ^ (CASE
        WHEN u.attention_long_term_at < $now
        THEN (long_elapsed.seconds + long_elapsed.nanosecondsOfSecond / 1e9) / $long_half_life
        ELSE 0.0 END) + $long_gain,
      u.attention_short_term = u.attention_short_term * 0.5 ^ (CASE
        WHEN u.attention_short_term_at < $now
        THEN (short_elapsed.seconds + short_elapsed.nanosecondsOfSecond / 1e9) / $short_half_life
        ELSE 0.0 END) + $short_gain,
      u.attention_long_term_at = CASE
        WHEN u.attention_long_term_at < $now THEN $now ELSE u.attention_long_term_at END,
      u.attention_short_term_at = CASE
        WHEN u.attention_short_term_at < $now THEN $now ELSE u.attention_short_term_at END,
      u.accessed_at = CASE WHEN u.accessed_at < $now THEN $now ELSE u.accessed_at END,
      u.tier = 0,
      u:Hot
  RETURN collect({id: u.id, label: 'Memory', used: true, gain: $short_gain, tier: 0}) AS uses
}
CALL (used, first, second) {
  UNWIND first + second AS step
  WITH step.node AS n, max(step.gain) AS gain
  WHERE NOT n IN used
  SET n.attention_short_term = n.attention_short_term
  WITH n, gain,
       duration.inSeconds(n.attention_long_term_at, $now) AS long_elapsed,
       duration.inSeconds(n.attention_short_term_at, $now) AS short_elapsed
  SET n.attention_long_term = n.attention_long_term * 0.5 ^ (CASE
        WHEN n.attention_long_term_at < $now
        THEN (long_elapsed.seconds + long_elapsed.nanosecondsOfSecond / 1e9) / $long_half_life
        ELSE 0.0 END),
      n.attention_short_term = n.attention_short_term * 0.5 ^ (CASE
        WHEN n.attention_short_term_at < $now
        THEN (short_elapsed.seconds + short_elapsed.nanosecondsOfSecond / 1e9) / $short_half_life
        ELSE 0.0 END) + gain,
      n.attention_long_term_at = CASE
        WHEN n.attention_long_term_at < $now THEN $now ELSE n.attention_long_term_at END,
      n.attention_short_term_at = CASE
        WHEN n.attention_short_term_at < $now THEN $now ELSE n.attention_short_term_at END
  WITH n, gain,
       size([floor IN $floors WHERE n.attention_long_term + n.attention_short_term < floor]) AS fits
  SET n.tier = CASE WHEN fits < n.tier THEN fits ELSE n.tier END
  FOREACH (hot IN CASE WHEN n:Memory AND n.tier = 0 THEN [n] ELSE [] END | SET hot:Hot)
  WITH n, gain, CASE WHEN n:Memory THEN 'Memory' ELSE 'Event' END AS label
  RETURN collect({id: n.id, label: label, used: false, gain: gain, tier: n.tier}) AS wakes
}
UNWIND uses + wakes AS row
RETURN row.id AS id, row.label AS label, row.used AS used, row.gain AS short_term_gain,
       row.tier AS tier
ORDER BY label, id
