// Purpose: apply one fact's consolidation (the store runs this for each fact it settles, in
//          order, in one transaction), with the arithmetic of graphmem/mechanisms/beliefs.py
//          and graphmem/mechanisms/attention.py. Each move, in
//          order (a subquery of its own, so a memory moved twice is moved the second time from
//          where the first left it), sets the memory's belief b (the first-hand belief when it
//          has none) to b + $rate * (estimate - b) and changes its attention: 'raise' as a use
//          in wake.cypher (each part with a gain decayed to $now plus the gain, its time $now
//          unless later; accessed_at $now unless later; tier 0, label Hot); 'lower' as
//          `lowered` (each part decayed to $now times $kept, its time $now unless later; tier
//          kept); 'keep' leaves it. Belief and attention are read and written in one SET of a
//          literal map, for which Cypher takes the node's write lock before reading it.
//          Then edges between the owner's memories are merged (one per type and pair); an
//          UPDATES edge ends the older memory's validity when the newer one was made
//          (valid_until, the earliest if several) and starts the newer one's (valid_from); and
//          the fact's awaiting_consolidation mark is removed. Moves and edges naming memories not
//          stored are skipped. A fact not awaiting consolidation (settled by another job since it
//          was read, or gone) is skipped whole: settling is idempotent. Edge types come from
//          graphmem's LinkType, never from input.
// Parameters: $owner, $fact (memory id), $moves (list of {id, estimate, attention: 'raise',
//             'lower' or 'keep'}), $links (list of {type, source, target, weight,
//             sufficiency}), $now, $rate, $first_hand, $kept (share of attention a lowered
//             memory keeps), $long_gain and $short_gain (use gains), $long_half_life and
//             $short_half_life (seconds).
// Returns: settled (1), or no row when the fact was skipped.
MATCH (f:Memory {owner: $owner, id: $fact})
WHERE f.awaiting_consolidation
CALL () {
  UNWIND range(0, size($moves) - 1) AS index
  CALL (index) {
    WITH $moves[index] AS move
    MATCH (m:Memory {owner: $owner, id: move.id})
    WITH m, move,
         CASE move.attention WHEN 'raise' THEN $long_gain <> 0 WHEN 'lower' THEN true
           ELSE false END AS long_changes,
         CASE move.attention WHEN 'raise' THEN $short_gain <> 0 WHEN 'lower' THEN true
           ELSE false END AS short_changes,
         CASE move.attention WHEN 'lower' THEN $kept ELSE 1.0 END AS share,
         CASE move.attention WHEN 'raise' THEN $long_gain ELSE 0.0 END AS long_gain,
         CASE move.attention WHEN 'raise' THEN $short_gain ELSE 0.0 END AS short_gain
    SET m += {
      belief: coalesce(m.belief, $first_hand)
        + $rate * (move.estimate - coalesce(m.belief, $first_hand)),
      attention_long_term: CASE WHEN long_changes
        THEN m.attention_long_term * 0.5 ^ (CASE WHEN m.attention_long_term_at < $now
          THEN duration.inSeconds(m.attention_long_term_at, $now).milliseconds / 1000.0
          ELSE 0.0 END / $long_half_life) * share + long_gain
        ELSE m.attention_long_term END,
      attention_long_term_at: CASE WHEN long_changes AND m.attention_long_term_at < $now
        THEN $now ELSE m.attention_long_term_at END,
      attention_short_term: CASE WHEN short_changes
        THEN m.attention_short_term * 0.5 ^ (CASE WHEN m.attention_short_term_at < $now
          THEN duration.inSeconds(m.attention_short_term_at, $now).milliseconds / 1000.0
          ELSE 0.0 END / $short_half_life) * share + short_gain
        ELSE m.attention_short_term END,
      attention_short_term_at: CASE WHEN short_changes AND m.attention_short_term_at < $now
        THEN $now ELSE m.attention_short_term_at END,
      accessed_at: CASE WHEN move.attention = 'raise' AND m.accessed_at < $now
        THEN $now ELSE m.accessed_at END,
      tier: CASE WHEN move.attention = 'raise' THEN 0 ELSE m.tier END
    }
    WITH m
    WHERE m.tier = 0
    SET m:Hot
  }
}
CALL () {
  UNWIND $links AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Memory {owner: $owner, id: link.target})
  MERGE (a)-[r:$(link.type)]->(b)
  SET r.weight = link.weight, r.sufficiency = link.sufficiency
  WITH a, b, link
  WHERE link.type = 'UPDATES'
  SET b.valid_until = CASE WHEN b.valid_until < a.created_at THEN b.valid_until
                           ELSE a.created_at END,
      a.valid_from = a.created_at
}
REMOVE f.awaiting_consolidation
RETURN 1 AS settled
