// Purpose: what the owner's profile at $at is read from (graphmem.mechanisms.profile), in one
//          read: its facts made by $at, each with the belief of the observation FROM the same
//          turn (null without one); its impressions with a conjecture made by $at, each with
//          the ids it rests on (those conjectures, then its cues made by $at, oldest first);
//          its events begun by $at and still open then (news at $at would join them: at most
//          timeliness_days after their last update, as mechanisms.events.is_open), each with
//          the memories PART_OF it made by $at, oldest first; and its CAUSES edges counted.
//          Facts by time then id, impressions and events by id. Facts are sought in the
//          (owner, kind) index (schema.cypher): the cost grows with the owner's facts,
//          impressions and events, not with its memories.
// Parameters: $owner, $at.
// Returns: one row: facts (list of {fact: memory properties, belief}), impressions (list of
//          {impression: properties without the embedding, rests_on: ids}), events (list of
//          {event: properties without the embedding, members: ids}), causal_rules (a count).
CALL () {
  MATCH (f:Memory {owner: $owner, kind: 'fact'})
  WHERE f.created_at <= $at
  CALL (f) {
    OPTIONAL MATCH (f)-[:FROM]->(:Turn)<-[:FROM]-(o:Memory {kind: 'observation'})
    RETURN head(collect(o.belief)) AS belief
  }
  WITH f, belief ORDER BY f.created_at, f.id
  RETURN collect({fact: f {.*}, belief: belief}) AS facts
}
CALL () {
  MATCH (i:Impression {owner: $owner})
  CALL (i) {
    MATCH (c:Memory)-[:INFERRED_FROM]->(i)
    WHERE c.created_at <= $at
    WITH c ORDER BY c.created_at, c.id
    RETURN collect(c.id) AS conjectures
  }
  WITH i, conjectures
  WHERE conjectures <> []
  CALL (i) {
    MATCH (i)-[:INFERRED_FROM]->(cue:Memory)
    WHERE cue.created_at <= $at
    WITH cue ORDER BY cue.created_at, cue.id
    RETURN collect(cue.id) AS cues
  }
  WITH i, conjectures + cues AS rests_on ORDER BY i.id
  RETURN collect({impression: i {.*, embedding: []}, rests_on: rests_on}) AS impressions
}
CALL () {
  MATCH (e:Event {owner: $owner})
  WHERE e.first_at <= $at
    AND $at <= e.last_at + duration({seconds: toInteger(e.timeliness_days * 86400)})
  CALL (e) {
    MATCH (m:Memory)-[:PART_OF]->(e)
    WHERE m.created_at <= $at
    WITH m ORDER BY m.created_at, m.id
    RETURN collect(m.id) AS members
  }
  WITH e, members ORDER BY e.id
  RETURN collect({event: e {.*, embedding: []}, members: members}) AS events
}
RETURN facts, impressions, events,
       COUNT { (:Memory {owner: $owner})-[:CAUSES]->(:Memory) } AS causal_rules
