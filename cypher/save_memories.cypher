// Purpose: store what stored turns gave, derivation by derivation in $derivations' order (a
//          subquery each, so a later one sees what the earlier wrote): for each turn, store its
//          memories, each linked (m)-[:FROM]->(t) (tier-0 memories also labelled Hot, the mirror
//          of tier 0 that the hot fulltext index covers), add edges between the owner's memories
//          (one per type and pair; ends not stored are skipped), and clear the turn's pending
//          mark; all in one transaction. Idempotent: a memory
//          whose (owner, id) exists keeps its stored properties. Edge types come from graphmem's
//          LinkType, never from input.
//          Only while the turn is pending, each impression, in order (a subquery each, so a later
//          one of the same statement sees the earlier), accumulates on the owner's impression of
//          its statement with the arithmetic of graphmem/mechanisms/impressions.py
//          (`accumulated`): the stored belief decayed by its half-life to the new one's time,
//          then noisy-OR with the new belief; the later time, the new half-life; text, creation
//          time and embedding kept. A new impression starts from belief 0, which makes the same
//          arithmetic give it the new belief. It is linked INFERRED_FROM every memory of this
//          call, the edge keeping the belief this cue gave (forget_message subtracts it).
//          When the update carries the belief from below $threshold to it or above, and the
//          impression made no conjecture within the new half-life, the conjecture memory is
//          stored with the accumulated belief, INFERRED_FROM the impression, and the impression
//          notes the time (conjectured_at).
//          Concurrent saves lose no update: the turn and each impression are read only after
//          their write lock is taken by writing a _lock property (removed again), as the Neo4j
//          manual shows against lost updates, so of two saves of one turn the second waits for
//          the first to commit and finds the mark cleared. (A SET that rewrites a property with
//          its own value, SET n += {p: n.p}, does not protect a later read: it lost updates when
//          tried.)
// Parameters: $owner, $derivations (list of {turn_id, rows: list of memory property maps, each
//             with id; links: list of {type, source, target, weight, sufficiency};
//             impressions: list of {impression, conjecture}, an impression property map with
//             the new cue's belief, belief_at and half_life_days, and a memory property map}),
//             $threshold (belief at which an impression becomes a conjecture).
// Returns: one row per derivation whose turn exists, in order: turn_id, and conjectures, a
//          list of [index in the derivation's impressions, accumulated belief], one per
//          conjecture made, in input order. The caller rolls back when a row is missing.
UNWIND $derivations AS derivation
CALL (derivation) {
  MATCH (t:Turn {owner: $owner, id: derivation.turn_id})
  SET t._lock = true
  WITH t, derivation, t.pending IS NOT NULL AS pending
  CALL (t, derivation) {
    UNWIND derivation.rows AS row
    MERGE (m:Memory {owner: $owner, id: row.id})
    ON CREATE SET m += row
    MERGE (m)-[:FROM]->(t)
    FOREACH (hot IN CASE WHEN m.tier = 0 THEN [m] ELSE [] END | SET hot:Hot)
    RETURN collect(m) AS saved
  }
  CALL (derivation) {
    UNWIND derivation.links AS link
    MATCH (a:Memory {owner: $owner, id: link.source})
    MATCH (b:Memory {owner: $owner, id: link.target})
    MERGE (a)-[r:$(link.type)]->(b)
    SET r.weight = link.weight, r.sufficiency = link.sufficiency
  }
  CALL (pending, saved, derivation) {
    UNWIND CASE WHEN pending THEN range(0, size(derivation.impressions) - 1) ELSE [] END AS index
    CALL (index, saved, derivation) {
      WITH derivation.impressions[index].impression AS new,
           derivation.impressions[index].conjecture AS conjecture, saved
      MERGE (i:Impression {owner: $owner, id: new.id})
      ON CREATE SET i += new, i.belief = 0.0
      SET i._lock = true
      WITH i, new, conjecture, saved,
           i.belief * 0.5 ^ (CASE WHEN i.belief_at < new.belief_at
             THEN duration.inSeconds(i.belief_at, new.belief_at).milliseconds / 1000.0
             ELSE 0.0 END / (i.half_life_days * 86400.0)) AS before,
           i.conjectured_at AS last
      WITH i, new, conjecture, saved, before, last,
           1.0 - (1.0 - before) * (1.0 - new.belief) AS belief,
           last IS NOT NULL
             AND duration.inSeconds(last, new.belief_at).milliseconds / 1000.0
               < new.half_life_days * 86400.0 AS recent
      WITH i, new, conjecture, saved, last, belief,
           before < $threshold <= belief AND NOT recent AS crossed
      SET i += {
        belief: belief,
        belief_at: CASE WHEN i.belief_at < new.belief_at THEN new.belief_at ELSE i.belief_at END,
        half_life_days: new.half_life_days,
        conjectured_at: CASE WHEN crossed THEN new.belief_at ELSE last END
      }
      REMOVE i._lock
      WITH i, new, conjecture, saved, belief, crossed
      CALL (i, new, saved) {
        UNWIND saved AS m
        MERGE (i)-[r:INFERRED_FROM]->(m)
        SET r.belief = new.belief
      }
      CALL (i, conjecture, belief, crossed) {
        WITH i, conjecture, belief, crossed
        WHERE crossed
        MERGE (c:Memory {owner: $owner, id: conjecture.id})
        ON CREATE SET c += conjecture, c.belief = belief
        MERGE (c)-[:INFERRED_FROM]->(i)
        WITH c
        WHERE c.tier = 0
        SET c:Hot
      }
      RETURN belief, crossed
    }
    WITH index, belief, crossed
    WHERE crossed
    ORDER BY index
    RETURN collect([index, belief]) AS conjectures
  }
  REMOVE t.pending, t._lock
  RETURN t.id AS turn_id, conjectures
}
RETURN turn_id, conjectures
