// Purpose: one recall's use and regional wake-up, in one transaction, with the arithmetic of
//          graphmem/mechanisms/attention.py. Used memories: both attention parts decayed to $now
//          plus their gains (a part with no gain is left as it is), accessed_at $now, tier 0.
//          Neighbours (memories and events) along RELATED, CAUSES and PART_OF edges either way,
//          up to $hops (0-2) hops, following from each node only its $fan_out strongest edges
//          (weight, else sufficiency, else 1; ties by id): short-term gain $short_gain *
//          $per_hop^hop * the edge weights, the largest over all paths, dropped below $min_gain
//          (and then not spread further); only their short-term part is written, and their tier
//          when the new attention reaches a higher one (memories of tier 0 carry the label Hot,
//          the mirror the hot fulltext index covers). Concurrent recalls lose no update: each
//          part is decayed and raised inside one SET of a literal map, for which Cypher takes
//          the node's write lock before reading it, and nothing reads attention before that.
// Parameters: $owner, $ids (used memory ids), $now, $long_gain, $short_gain, $per_hop, $hops,
//             $fan_out, $min_gain, $long_half_life and $short_half_life (seconds), $floors (least
//             attention of tiers 0, 1 and 2).
// Returns: one row: woken, a list of {id, label, used, short_term_gain, tier}, one per node whose
//          attention rose, by label and id (one record: see find_similar_memories.cypher).
UNWIND $ids AS id
WITH DISTINCT id
MATCH (u:Memory {owner: $owner, id: id})
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
  SET u += {
    attention_long_term: CASE WHEN $long_gain = 0 THEN u.attention_long_term
      ELSE u.attention_long_term * 0.5 ^ (CASE WHEN u.attention_long_term_at < $now
        THEN duration.inSeconds(u.attention_long_term_at, $now).milliseconds / 1000.0
        ELSE 0.0 END / $long_half_life) + $long_gain END,
    attention_long_term_at: CASE WHEN $long_gain = 0 OR u.attention_long_term_at >= $now
      THEN u.attention_long_term_at ELSE $now END,
    attention_short_term: CASE WHEN $short_gain = 0 THEN u.attention_short_term
      ELSE u.attention_short_term * 0.5 ^ (CASE WHEN u.attention_short_term_at < $now
        THEN duration.inSeconds(u.attention_short_term_at, $now).milliseconds / 1000.0
        ELSE 0.0 END / $short_half_life) + $short_gain END,
    attention_short_term_at: CASE WHEN $short_gain = 0 OR u.attention_short_term_at >= $now
      THEN u.attention_short_term_at ELSE $now END,
    accessed_at: CASE WHEN u.accessed_at < $now THEN $now ELSE u.accessed_at END,
    tier: 0
  }
  SET u:Hot
  RETURN collect({id: u.id, label: 'Memory', used: true, gain: $short_gain, tier: 0}) AS uses
}
CALL (used, first, second) {
  UNWIND first + second AS step
  WITH step.node AS n, max(step.gain) AS gain
  WHERE NOT n IN used
  SET n += {
    attention_short_term: n.attention_short_term * 0.5 ^ (CASE
      WHEN n.attention_short_term_at < $now
      THEN duration.inSeconds(n.attention_short_term_at, $now).milliseconds / 1000.0
      ELSE 0.0 END / $short_half_life) + gain,
    attention_short_term_at: CASE WHEN n.attention_short_term_at < $now
      THEN $now ELSE n.attention_short_term_at END
  }
  WITH n, gain, n.attention_short_term + n.attention_long_term * 0.5 ^ (CASE
      WHEN n.attention_long_term_at < $now
      THEN duration.inSeconds(n.attention_long_term_at, $now).milliseconds / 1000.0
      ELSE 0.0 END / $long_half_life) AS level
  WITH n, gain, size([floor IN $floors WHERE level < floor]) AS fits
  FOREACH (risen IN CASE WHEN fits < n.tier THEN [n] ELSE [] END | SET risen.tier = fits)
  FOREACH (hot IN CASE WHEN n:Memory AND n.tier = 0 THEN [n] ELSE [] END | SET hot:Hot)
  WITH n, gain, CASE WHEN n:Memory THEN 'Memory' ELSE 'Event' END AS label
  RETURN collect({id: n.id, label: label, used: false, gain: gain, tier: n.tier}) AS wakes
}
UNWIND uses + wakes AS row
WITH row
ORDER BY row.label, row.id
RETURN collect({id: row.id, label: row.label, used: row.used, short_term_gain: row.gain,
                tier: row.tier}) AS woken
